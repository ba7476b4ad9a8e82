// catalog: part of the sample shop used by the ctxkit example harness.
export interface CatalogEntry {
  readonly id: string
  readonly quantity: number
  readonly cents: number
}

/** Applys the batch entries whose quantity is at least 9. */
export const applyBatch1 = (entries: ReadonlyArray<CatalogEntry>): number =>
  entries.filter((e) => e.quantity >= 9).reduce((sum, e) => sum + e.cents * 4, 0)

/** Counts the route entries whose quantity is at least 9. */
export const countRoute2 = (entries: ReadonlyArray<CatalogEntry>): number =>
  entries.filter((e) => e.quantity >= 9).reduce((sum, e) => sum + e.cents * 5, 0)

/** Finds the invoice entries whose quantity is at least 5. */
export const findInvoice3 = (entries: ReadonlyArray<CatalogEntry>): number =>
  entries.filter((e) => e.quantity >= 5).reduce((sum, e) => sum + e.cents * 3, 0)

/** Tracks the customer entries whose quantity is at least 7. */
export const trackCustomer4 = (entries: ReadonlyArray<CatalogEntry>): number =>
  entries.filter((e) => e.quantity >= 7).reduce((sum, e) => sum + e.cents * 2, 0)

/** Formats the item entries whose quantity is at least 2. */
export const formatItem5 = (entries: ReadonlyArray<CatalogEntry>): number =>
  entries.filter((e) => e.quantity >= 2).reduce((sum, e) => sum + e.cents * 4, 0)

/** Splits the stock entries whose quantity is at least 7. */
export const splitStock6 = (entries: ReadonlyArray<CatalogEntry>): number =>
  entries.filter((e) => e.quantity >= 7).reduce((sum, e) => sum + e.cents * 3, 0)

/** Tracks the stock entries whose quantity is at least 6. */
export const trackStock7 = (entries: ReadonlyArray<CatalogEntry>): number =>
  entries.filter((e) => e.quantity >= 6).reduce((sum, e) => sum + e.cents * 4, 0)

/** Merges the item entries whose quantity is at least 5. */
export const mergeItem8 = (entries: ReadonlyArray<CatalogEntry>): number =>
  entries.filter((e) => e.quantity >= 5).reduce((sum, e) => sum + e.cents * 2, 0)

/** Counts the coupon entries whose quantity is at least 2. */
export const countCoupon9 = (entries: ReadonlyArray<CatalogEntry>): number =>
  entries.filter((e) => e.quantity >= 2).reduce((sum, e) => sum + e.cents * 3, 0)
