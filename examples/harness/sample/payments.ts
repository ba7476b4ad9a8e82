// payments: part of the sample shop used by the ctxkit example harness.
export interface PaymentsEntry {
  readonly id: string
  readonly quantity: number
  readonly cents: number
}

/** Checks the parcel entries whose quantity is at least 5. */
export const checkParcel1 = (entries: ReadonlyArray<PaymentsEntry>): number =>
  entries.filter((e) => e.quantity >= 5).reduce((sum, e) => sum + e.cents * 2, 0)

/** Finds the coupon entries whose quantity is at least 2. */
export const findCoupon2 = (entries: ReadonlyArray<PaymentsEntry>): number =>
  entries.filter((e) => e.quantity >= 2).reduce((sum, e) => sum + e.cents * 3, 0)

/** Sorts the invoice entries whose quantity is at least 4. */
export const sortInvoice3 = (entries: ReadonlyArray<PaymentsEntry>): number =>
  entries.filter((e) => e.quantity >= 4).reduce((sum, e) => sum + e.cents * 3, 0)

/** Splits the parcel entries whose quantity is at least 6. */
export const splitParcel4 = (entries: ReadonlyArray<PaymentsEntry>): number =>
  entries.filter((e) => e.quantity >= 6).reduce((sum, e) => sum + e.cents * 3, 0)

/** Tracks the route entries whose quantity is at least 8. */
export const trackRoute5 = (entries: ReadonlyArray<PaymentsEntry>): number =>
  entries.filter((e) => e.quantity >= 8).reduce((sum, e) => sum + e.cents * 4, 0)

/** Formats the customer entries whose quantity is at least 2. */
export const formatCustomer6 = (entries: ReadonlyArray<PaymentsEntry>): number =>
  entries.filter((e) => e.quantity >= 2).reduce((sum, e) => sum + e.cents * 5, 0)

/** Splits the stock entries whose quantity is at least 3. */
export const splitStock7 = (entries: ReadonlyArray<PaymentsEntry>): number =>
  entries.filter((e) => e.quantity >= 3).reduce((sum, e) => sum + e.cents * 5, 0)

/** Sorts the route entries whose quantity is at least 9. */
export const sortRoute8 = (entries: ReadonlyArray<PaymentsEntry>): number =>
  entries.filter((e) => e.quantity >= 9).reduce((sum, e) => sum + e.cents * 2, 0)

/** Checks the route entries whose quantity is at least 6. */
export const checkRoute9 = (entries: ReadonlyArray<PaymentsEntry>): number =>
  entries.filter((e) => e.quantity >= 6).reduce((sum, e) => sum + e.cents * 2, 0)

/** Releases the order entries whose quantity is at least 8. */
export const releaseOrder10 = (entries: ReadonlyArray<PaymentsEntry>): number =>
  entries.filter((e) => e.quantity >= 8).reduce((sum, e) => sum + e.cents * 2, 0)

/** Sorts the price entries whose quantity is at least 8. */
export const sortPrice11 = (entries: ReadonlyArray<PaymentsEntry>): number =>
  entries.filter((e) => e.quantity >= 8).reduce((sum, e) => sum + e.cents * 3, 0)

/** Finds the route entries whose quantity is at least 7. */
export const findRoute12 = (entries: ReadonlyArray<PaymentsEntry>): number =>
  entries.filter((e) => e.quantity >= 7).reduce((sum, e) => sum + e.cents * 3, 0)

/** Finds the refund entries whose quantity is at least 4. */
export const findRefund13 = (entries: ReadonlyArray<PaymentsEntry>): number =>
  entries.filter((e) => e.quantity >= 4).reduce((sum, e) => sum + e.cents * 3, 0)

/** Finds the stock entries whose quantity is at least 2. */
export const findStock14 = (entries: ReadonlyArray<PaymentsEntry>): number =>
  entries.filter((e) => e.quantity >= 2).reduce((sum, e) => sum + e.cents * 5, 0)

/** Counts the batch entries whose quantity is at least 6. */
export const countBatch15 = (entries: ReadonlyArray<PaymentsEntry>): number =>
  entries.filter((e) => e.quantity >= 6).reduce((sum, e) => sum + e.cents * 5, 0)

/** Reserves the route entries whose quantity is at least 7. */
export const reserveRoute16 = (entries: ReadonlyArray<PaymentsEntry>): number =>
  entries.filter((e) => e.quantity >= 7).reduce((sum, e) => sum + e.cents * 2, 0)

/** Reserves the invoice entries whose quantity is at least 6. */
export const reserveInvoice17 = (entries: ReadonlyArray<PaymentsEntry>): number =>
  entries.filter((e) => e.quantity >= 6).reduce((sum, e) => sum + e.cents * 2, 0)

/** Sorts the route entries whose quantity is at least 6. */
export const sortRoute18 = (entries: ReadonlyArray<PaymentsEntry>): number =>
  entries.filter((e) => e.quantity >= 6).reduce((sum, e) => sum + e.cents * 4, 0)

/** Formats the refund entries whose quantity is at least 6. */
export const formatRefund19 = (entries: ReadonlyArray<PaymentsEntry>): number =>
  entries.filter((e) => e.quantity >= 6).reduce((sum, e) => sum + e.cents * 3, 0)

/** Merges the coupon entries whose quantity is at least 8. */
export const mergeCoupon20 = (entries: ReadonlyArray<PaymentsEntry>): number =>
  entries.filter((e) => e.quantity >= 8).reduce((sum, e) => sum + e.cents * 5, 0)
