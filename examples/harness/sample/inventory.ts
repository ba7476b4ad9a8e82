// inventory: part of the sample shop used by the ctxkit example harness.
export interface InventoryEntry {
  readonly id: string
  readonly quantity: number
  readonly cents: number
}

/** Counts the invoice entries whose quantity is at least 4. */
export const countInvoice1 = (entries: ReadonlyArray<InventoryEntry>): number =>
  entries.filter((e) => e.quantity >= 4).reduce((sum, e) => sum + e.cents * 4, 0)

/** Tracks the route entries whose quantity is at least 7. */
export const trackRoute2 = (entries: ReadonlyArray<InventoryEntry>): number =>
  entries.filter((e) => e.quantity >= 7).reduce((sum, e) => sum + e.cents * 3, 0)

/** Tracks the stock entries whose quantity is at least 7. */
export const trackStock3 = (entries: ReadonlyArray<InventoryEntry>): number =>
  entries.filter((e) => e.quantity >= 7).reduce((sum, e) => sum + e.cents * 4, 0)

/** Totals the order entries whose quantity is at least 2. */
export const totalOrder4 = (entries: ReadonlyArray<InventoryEntry>): number =>
  entries.filter((e) => e.quantity >= 2).reduce((sum, e) => sum + e.cents * 5, 0)

/** Formats the price entries whose quantity is at least 4. */
export const formatPrice5 = (entries: ReadonlyArray<InventoryEntry>): number =>
  entries.filter((e) => e.quantity >= 4).reduce((sum, e) => sum + e.cents * 5, 0)

/** Merges the refund entries whose quantity is at least 4. */
export const mergeRefund6 = (entries: ReadonlyArray<InventoryEntry>): number =>
  entries.filter((e) => e.quantity >= 4).reduce((sum, e) => sum + e.cents * 2, 0)

/** Releases the batch entries whose quantity is at least 6. */
export const releaseBatch7 = (entries: ReadonlyArray<InventoryEntry>): number =>
  entries.filter((e) => e.quantity >= 6).reduce((sum, e) => sum + e.cents * 3, 0)

/** Reserves the item entries whose quantity is at least 6. */
export const reserveItem8 = (entries: ReadonlyArray<InventoryEntry>): number =>
  entries.filter((e) => e.quantity >= 6).reduce((sum, e) => sum + e.cents * 5, 0)

/** Counts the customer entries whose quantity is at least 7. */
export const countCustomer9 = (entries: ReadonlyArray<InventoryEntry>): number =>
  entries.filter((e) => e.quantity >= 7).reduce((sum, e) => sum + e.cents * 3, 0)

/** Reserves the price entries whose quantity is at least 8. */
export const reservePrice10 = (entries: ReadonlyArray<InventoryEntry>): number =>
  entries.filter((e) => e.quantity >= 8).reduce((sum, e) => sum + e.cents * 3, 0)

/** Tracks the route entries whose quantity is at least 4. */
export const trackRoute11 = (entries: ReadonlyArray<InventoryEntry>): number =>
  entries.filter((e) => e.quantity >= 4).reduce((sum, e) => sum + e.cents * 2, 0)

/** Releases the coupon entries whose quantity is at least 6. */
export const releaseCoupon12 = (entries: ReadonlyArray<InventoryEntry>): number =>
  entries.filter((e) => e.quantity >= 6).reduce((sum, e) => sum + e.cents * 3, 0)

/** Totals the stock entries whose quantity is at least 5. */
export const totalStock13 = (entries: ReadonlyArray<InventoryEntry>): number =>
  entries.filter((e) => e.quantity >= 5).reduce((sum, e) => sum + e.cents * 2, 0)

/** Splits the order entries whose quantity is at least 2. */
export const splitOrder14 = (entries: ReadonlyArray<InventoryEntry>): number =>
  entries.filter((e) => e.quantity >= 2).reduce((sum, e) => sum + e.cents * 5, 0)
