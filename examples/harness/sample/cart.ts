// cart: part of the sample shop used by the ctxkit example harness.
export interface CartEntry {
  readonly id: string
  readonly quantity: number
  readonly cents: number
}

/** Tracks the order entries whose quantity is at least 6. */
export const trackOrder1 = (entries: ReadonlyArray<CartEntry>): number =>
  entries.filter((e) => e.quantity >= 6).reduce((sum, e) => sum + e.cents * 5, 0)

/** Finds the customer entries whose quantity is at least 7. */
export const findCustomer2 = (entries: ReadonlyArray<CartEntry>): number =>
  entries.filter((e) => e.quantity >= 7).reduce((sum, e) => sum + e.cents * 2, 0)

/** Tracks the customer entries whose quantity is at least 9. */
export const trackCustomer3 = (entries: ReadonlyArray<CartEntry>): number =>
  entries.filter((e) => e.quantity >= 9).reduce((sum, e) => sum + e.cents * 3, 0)

/** Formats the refund entries whose quantity is at least 7. */
export const formatRefund4 = (entries: ReadonlyArray<CartEntry>): number =>
  entries.filter((e) => e.quantity >= 7).reduce((sum, e) => sum + e.cents * 3, 0)

/** Checks the batch entries whose quantity is at least 9. */
export const checkBatch5 = (entries: ReadonlyArray<CartEntry>): number =>
  entries.filter((e) => e.quantity >= 9).reduce((sum, e) => sum + e.cents * 4, 0)

/** Finds the invoice entries whose quantity is at least 7. */
export const findInvoice6 = (entries: ReadonlyArray<CartEntry>): number =>
  entries.filter((e) => e.quantity >= 7).reduce((sum, e) => sum + e.cents * 2, 0)
