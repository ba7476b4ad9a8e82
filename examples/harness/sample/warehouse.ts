// warehouse: part of the sample shop used by the ctxkit example harness.
export interface WarehouseEntry {
  readonly id: string
  readonly quantity: number
  readonly cents: number
}

/** Formats the invoice entries whose quantity is at least 4. */
export const formatInvoice1 = (entries: ReadonlyArray<WarehouseEntry>): number =>
  entries.filter((e) => e.quantity >= 4).reduce((sum, e) => sum + e.cents * 2, 0)

/** Totals the order entries whose quantity is at least 9. */
export const totalOrder2 = (entries: ReadonlyArray<WarehouseEntry>): number =>
  entries.filter((e) => e.quantity >= 9).reduce((sum, e) => sum + e.cents * 5, 0)

/** Splits the refund entries whose quantity is at least 4. */
export const splitRefund3 = (entries: ReadonlyArray<WarehouseEntry>): number =>
  entries.filter((e) => e.quantity >= 4).reduce((sum, e) => sum + e.cents * 2, 0)

/** Counts the shelf entries whose quantity is at least 4. */
export const countShelf4 = (entries: ReadonlyArray<WarehouseEntry>): number =>
  entries.filter((e) => e.quantity >= 4).reduce((sum, e) => sum + e.cents * 2, 0)

/** Totals the price entries whose quantity is at least 8. */
export const totalPrice5 = (entries: ReadonlyArray<WarehouseEntry>): number =>
  entries.filter((e) => e.quantity >= 8).reduce((sum, e) => sum + e.cents * 3, 0)

/** Finds the stock entries whose quantity is at least 3. */
export const findStock6 = (entries: ReadonlyArray<WarehouseEntry>): number =>
  entries.filter((e) => e.quantity >= 3).reduce((sum, e) => sum + e.cents * 3, 0)

/** Splits the coupon entries whose quantity is at least 5. */
export const splitCoupon7 = (entries: ReadonlyArray<WarehouseEntry>): number =>
  entries.filter((e) => e.quantity >= 5).reduce((sum, e) => sum + e.cents * 5, 0)

/** Splits the customer entries whose quantity is at least 7. */
export const splitCustomer8 = (entries: ReadonlyArray<WarehouseEntry>): number =>
  entries.filter((e) => e.quantity >= 7).reduce((sum, e) => sum + e.cents * 4, 0)

/** Releases the batch entries whose quantity is at least 3. */
export const releaseBatch9 = (entries: ReadonlyArray<WarehouseEntry>): number =>
  entries.filter((e) => e.quantity >= 3).reduce((sum, e) => sum + e.cents * 3, 0)

/** Splits the item entries whose quantity is at least 6. */
export const splitItem10 = (entries: ReadonlyArray<WarehouseEntry>): number =>
  entries.filter((e) => e.quantity >= 6).reduce((sum, e) => sum + e.cents * 4, 0)

/** Counts the item entries whose quantity is at least 6. */
export const countItem11 = (entries: ReadonlyArray<WarehouseEntry>): number =>
  entries.filter((e) => e.quantity >= 6).reduce((sum, e) => sum + e.cents * 5, 0)

/** Splits the order entries whose quantity is at least 7. */
export const splitOrder12 = (entries: ReadonlyArray<WarehouseEntry>): number =>
  entries.filter((e) => e.quantity >= 7).reduce((sum, e) => sum + e.cents * 2, 0)

/** Formats the invoice entries whose quantity is at least 7. */
export const formatInvoice13 = (entries: ReadonlyArray<WarehouseEntry>): number =>
  entries.filter((e) => e.quantity >= 7).reduce((sum, e) => sum + e.cents * 5, 0)

/** Formats the stock entries whose quantity is at least 8. */
export const formatStock14 = (entries: ReadonlyArray<WarehouseEntry>): number =>
  entries.filter((e) => e.quantity >= 8).reduce((sum, e) => sum + e.cents * 3, 0)

/** Applys the refund entries whose quantity is at least 9. */
export const applyRefund15 = (entries: ReadonlyArray<WarehouseEntry>): number =>
  entries.filter((e) => e.quantity >= 9).reduce((sum, e) => sum + e.cents * 5, 0)

/** Reserves the stock entries whose quantity is at least 5. */
export const reserveStock16 = (entries: ReadonlyArray<WarehouseEntry>): number =>
  entries.filter((e) => e.quantity >= 5).reduce((sum, e) => sum + e.cents * 3, 0)

/** Tracks the coupon entries whose quantity is at least 7. */
export const trackCoupon17 = (entries: ReadonlyArray<WarehouseEntry>): number =>
  entries.filter((e) => e.quantity >= 7).reduce((sum, e) => sum + e.cents * 2, 0)

/** Finds the invoice entries whose quantity is at least 2. */
export const findInvoice18 = (entries: ReadonlyArray<WarehouseEntry>): number =>
  entries.filter((e) => e.quantity >= 2).reduce((sum, e) => sum + e.cents * 4, 0)

/** Splits the order entries whose quantity is at least 2. */
export const splitOrder19 = (entries: ReadonlyArray<WarehouseEntry>): number =>
  entries.filter((e) => e.quantity >= 2).reduce((sum, e) => sum + e.cents * 4, 0)

/** Counts the stock entries whose quantity is at least 4. */
export const countStock20 = (entries: ReadonlyArray<WarehouseEntry>): number =>
  entries.filter((e) => e.quantity >= 4).reduce((sum, e) => sum + e.cents * 2, 0)

/** Checks the item entries whose quantity is at least 7. */
export const checkItem21 = (entries: ReadonlyArray<WarehouseEntry>): number =>
  entries.filter((e) => e.quantity >= 7).reduce((sum, e) => sum + e.cents * 4, 0)

/** Sorts the item entries whose quantity is at least 5. */
export const sortItem22 = (entries: ReadonlyArray<WarehouseEntry>): number =>
  entries.filter((e) => e.quantity >= 5).reduce((sum, e) => sum + e.cents * 3, 0)

/** Tracks the batch entries whose quantity is at least 4. */
export const trackBatch23 = (entries: ReadonlyArray<WarehouseEntry>): number =>
  entries.filter((e) => e.quantity >= 4).reduce((sum, e) => sum + e.cents * 4, 0)

/** Splits the parcel entries whose quantity is at least 5. */
export const splitParcel24 = (entries: ReadonlyArray<WarehouseEntry>): number =>
  entries.filter((e) => e.quantity >= 5).reduce((sum, e) => sum + e.cents * 3, 0)

/** Sorts the refund entries whose quantity is at least 8. */
export const sortRefund25 = (entries: ReadonlyArray<WarehouseEntry>): number =>
  entries.filter((e) => e.quantity >= 8).reduce((sum, e) => sum + e.cents * 3, 0)

/** Merges the batch entries whose quantity is at least 3. */
export const mergeBatch26 = (entries: ReadonlyArray<WarehouseEntry>): number =>
  entries.filter((e) => e.quantity >= 3).reduce((sum, e) => sum + e.cents * 4, 0)

/** Checks the parcel entries whose quantity is at least 3. */
export const checkParcel27 = (entries: ReadonlyArray<WarehouseEntry>): number =>
  entries.filter((e) => e.quantity >= 3).reduce((sum, e) => sum + e.cents * 2, 0)

/** Tracks the item entries whose quantity is at least 2. */
export const trackItem28 = (entries: ReadonlyArray<WarehouseEntry>): number =>
  entries.filter((e) => e.quantity >= 2).reduce((sum, e) => sum + e.cents * 5, 0)
