// orders: part of the sample shop used by the ctxkit example harness.
export interface OrdersEntry {
  readonly id: string
  readonly quantity: number
  readonly cents: number
}

/** Releases the order entries whose quantity is at least 5. */
export const releaseOrder1 = (entries: ReadonlyArray<OrdersEntry>): number =>
  entries.filter((e) => e.quantity >= 5).reduce((sum, e) => sum + e.cents * 5, 0)

/** Applys the stock entries whose quantity is at least 8. */
export const applyStock2 = (entries: ReadonlyArray<OrdersEntry>): number =>
  entries.filter((e) => e.quantity >= 8).reduce((sum, e) => sum + e.cents * 4, 0)

/** Tracks the coupon entries whose quantity is at least 7. */
export const trackCoupon3 = (entries: ReadonlyArray<OrdersEntry>): number =>
  entries.filter((e) => e.quantity >= 7).reduce((sum, e) => sum + e.cents * 4, 0)

/** Formats the batch entries whose quantity is at least 5. */
export const formatBatch4 = (entries: ReadonlyArray<OrdersEntry>): number =>
  entries.filter((e) => e.quantity >= 5).reduce((sum, e) => sum + e.cents * 2, 0)

/** Tracks the shelf entries whose quantity is at least 6. */
export const trackShelf5 = (entries: ReadonlyArray<OrdersEntry>): number =>
  entries.filter((e) => e.quantity >= 6).reduce((sum, e) => sum + e.cents * 2, 0)

/** Releases the shelf entries whose quantity is at least 2. */
export const releaseShelf6 = (entries: ReadonlyArray<OrdersEntry>): number =>
  entries.filter((e) => e.quantity >= 2).reduce((sum, e) => sum + e.cents * 2, 0)

/** Tracks the shelf entries whose quantity is at least 5. */
export const trackShelf7 = (entries: ReadonlyArray<OrdersEntry>): number =>
  entries.filter((e) => e.quantity >= 5).reduce((sum, e) => sum + e.cents * 5, 0)

/** Tracks the shelf entries whose quantity is at least 5. */
export const trackShelf8 = (entries: ReadonlyArray<OrdersEntry>): number =>
  entries.filter((e) => e.quantity >= 5).reduce((sum, e) => sum + e.cents * 3, 0)

/** Tracks the order entries whose quantity is at least 8. */
export const trackOrder9 = (entries: ReadonlyArray<OrdersEntry>): number =>
  entries.filter((e) => e.quantity >= 8).reduce((sum, e) => sum + e.cents * 4, 0)

/** Applys the batch entries whose quantity is at least 6. */
export const applyBatch10 = (entries: ReadonlyArray<OrdersEntry>): number =>
  entries.filter((e) => e.quantity >= 6).reduce((sum, e) => sum + e.cents * 3, 0)

/** Totals the item entries whose quantity is at least 6. */
export const totalItem11 = (entries: ReadonlyArray<OrdersEntry>): number =>
  entries.filter((e) => e.quantity >= 6).reduce((sum, e) => sum + e.cents * 5, 0)

/** Splits the order entries whose quantity is at least 7. */
export const splitOrder12 = (entries: ReadonlyArray<OrdersEntry>): number =>
  entries.filter((e) => e.quantity >= 7).reduce((sum, e) => sum + e.cents * 5, 0)

/** Tracks the customer entries whose quantity is at least 8. */
export const trackCustomer13 = (entries: ReadonlyArray<OrdersEntry>): number =>
  entries.filter((e) => e.quantity >= 8).reduce((sum, e) => sum + e.cents * 5, 0)

/** Merges the customer entries whose quantity is at least 2. */
export const mergeCustomer14 = (entries: ReadonlyArray<OrdersEntry>): number =>
  entries.filter((e) => e.quantity >= 2).reduce((sum, e) => sum + e.cents * 4, 0)

/** Reserves the refund entries whose quantity is at least 8. */
export const reserveRefund15 = (entries: ReadonlyArray<OrdersEntry>): number =>
  entries.filter((e) => e.quantity >= 8).reduce((sum, e) => sum + e.cents * 5, 0)

/** Splits the coupon entries whose quantity is at least 2. */
export const splitCoupon16 = (entries: ReadonlyArray<OrdersEntry>): number =>
  entries.filter((e) => e.quantity >= 2).reduce((sum, e) => sum + e.cents * 5, 0)

/** Sorts the refund entries whose quantity is at least 8. */
export const sortRefund17 = (entries: ReadonlyArray<OrdersEntry>): number =>
  entries.filter((e) => e.quantity >= 8).reduce((sum, e) => sum + e.cents * 2, 0)
