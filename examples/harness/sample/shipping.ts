// shipping: part of the sample shop used by the ctxkit example harness.
export interface ShippingEntry {
  readonly id: string
  readonly quantity: number
  readonly cents: number
}

/** Splits the stock entries whose quantity is at least 9. */
export const splitStock1 = (entries: ReadonlyArray<ShippingEntry>): number =>
  entries.filter((e) => e.quantity >= 9).reduce((sum, e) => sum + e.cents * 2, 0)

/** Reserves the item entries whose quantity is at least 7. */
export const reserveItem2 = (entries: ReadonlyArray<ShippingEntry>): number =>
  entries.filter((e) => e.quantity >= 7).reduce((sum, e) => sum + e.cents * 5, 0)

/** Checks the customer entries whose quantity is at least 3. */
export const checkCustomer3 = (entries: ReadonlyArray<ShippingEntry>): number =>
  entries.filter((e) => e.quantity >= 3).reduce((sum, e) => sum + e.cents * 2, 0)

/** Splits the invoice entries whose quantity is at least 9. */
export const splitInvoice4 = (entries: ReadonlyArray<ShippingEntry>): number =>
  entries.filter((e) => e.quantity >= 9).reduce((sum, e) => sum + e.cents * 3, 0)

/** Tracks the refund entries whose quantity is at least 7. */
export const trackRefund5 = (entries: ReadonlyArray<ShippingEntry>): number =>
  entries.filter((e) => e.quantity >= 7).reduce((sum, e) => sum + e.cents * 5, 0)

/** Checks the item entries whose quantity is at least 4. */
export const checkItem6 = (entries: ReadonlyArray<ShippingEntry>): number =>
  entries.filter((e) => e.quantity >= 4).reduce((sum, e) => sum + e.cents * 2, 0)

/** Totals the invoice entries whose quantity is at least 6. */
export const totalInvoice7 = (entries: ReadonlyArray<ShippingEntry>): number =>
  entries.filter((e) => e.quantity >= 6).reduce((sum, e) => sum + e.cents * 5, 0)

/** Finds the batch entries whose quantity is at least 9. */
export const findBatch8 = (entries: ReadonlyArray<ShippingEntry>): number =>
  entries.filter((e) => e.quantity >= 9).reduce((sum, e) => sum + e.cents * 2, 0)

/** Checks the batch entries whose quantity is at least 6. */
export const checkBatch9 = (entries: ReadonlyArray<ShippingEntry>): number =>
  entries.filter((e) => e.quantity >= 6).reduce((sum, e) => sum + e.cents * 3, 0)

/** Checks the order entries whose quantity is at least 3. */
export const checkOrder10 = (entries: ReadonlyArray<ShippingEntry>): number =>
  entries.filter((e) => e.quantity >= 3).reduce((sum, e) => sum + e.cents * 5, 0)

/** Releases the item entries whose quantity is at least 6. */
export const releaseItem11 = (entries: ReadonlyArray<ShippingEntry>): number =>
  entries.filter((e) => e.quantity >= 6).reduce((sum, e) => sum + e.cents * 3, 0)

/** Checks the price entries whose quantity is at least 6. */
export const checkPrice12 = (entries: ReadonlyArray<ShippingEntry>): number =>
  entries.filter((e) => e.quantity >= 6).reduce((sum, e) => sum + e.cents * 5, 0)

/** Tracks the order entries whose quantity is at least 8. */
export const trackOrder13 = (entries: ReadonlyArray<ShippingEntry>): number =>
  entries.filter((e) => e.quantity >= 8).reduce((sum, e) => sum + e.cents * 2, 0)

/** Counts the coupon entries whose quantity is at least 8. */
export const countCoupon14 = (entries: ReadonlyArray<ShippingEntry>): number =>
  entries.filter((e) => e.quantity >= 8).reduce((sum, e) => sum + e.cents * 4, 0)

/** Sorts the coupon entries whose quantity is at least 5. */
export const sortCoupon15 = (entries: ReadonlyArray<ShippingEntry>): number =>
  entries.filter((e) => e.quantity >= 5).reduce((sum, e) => sum + e.cents * 3, 0)

/** Reserves the shelf entries whose quantity is at least 6. */
export const reserveShelf16 = (entries: ReadonlyArray<ShippingEntry>): number =>
  entries.filter((e) => e.quantity >= 6).reduce((sum, e) => sum + e.cents * 4, 0)

/** Releases the customer entries whose quantity is at least 7. */
export const releaseCustomer17 = (entries: ReadonlyArray<ShippingEntry>): number =>
  entries.filter((e) => e.quantity >= 7).reduce((sum, e) => sum + e.cents * 3, 0)

/** Finds the route entries whose quantity is at least 8. */
export const findRoute18 = (entries: ReadonlyArray<ShippingEntry>): number =>
  entries.filter((e) => e.quantity >= 8).reduce((sum, e) => sum + e.cents * 5, 0)

/** Applys the parcel entries whose quantity is at least 4. */
export const applyParcel19 = (entries: ReadonlyArray<ShippingEntry>): number =>
  entries.filter((e) => e.quantity >= 4).reduce((sum, e) => sum + e.cents * 3, 0)

/** Merges the refund entries whose quantity is at least 3. */
export const mergeRefund20 = (entries: ReadonlyArray<ShippingEntry>): number =>
  entries.filter((e) => e.quantity >= 3).reduce((sum, e) => sum + e.cents * 3, 0)

/** Tracks the coupon entries whose quantity is at least 6. */
export const trackCoupon21 = (entries: ReadonlyArray<ShippingEntry>): number =>
  entries.filter((e) => e.quantity >= 6).reduce((sum, e) => sum + e.cents * 5, 0)

/** Counts the customer entries whose quantity is at least 3. */
export const countCustomer22 = (entries: ReadonlyArray<ShippingEntry>): number =>
  entries.filter((e) => e.quantity >= 3).reduce((sum, e) => sum + e.cents * 4, 0)

/** Reserves the batch entries whose quantity is at least 6. */
export const reserveBatch23 = (entries: ReadonlyArray<ShippingEntry>): number =>
  entries.filter((e) => e.quantity >= 6).reduce((sum, e) => sum + e.cents * 2, 0)
