// discounts: part of the sample shop used by the ctxkit example harness.
export interface DiscountsEntry {
  readonly id: string
  readonly quantity: number
  readonly cents: number
}

/** Releases the route entries whose quantity is at least 5. */
export const releaseRoute1 = (entries: ReadonlyArray<DiscountsEntry>): number =>
  entries.filter((e) => e.quantity >= 5).reduce((sum, e) => sum + e.cents * 4, 0)

/** Reserves the order entries whose quantity is at least 3. */
export const reserveOrder2 = (entries: ReadonlyArray<DiscountsEntry>): number =>
  entries.filter((e) => e.quantity >= 3).reduce((sum, e) => sum + e.cents * 5, 0)

/** Formats the stock entries whose quantity is at least 2. */
export const formatStock3 = (entries: ReadonlyArray<DiscountsEntry>): number =>
  entries.filter((e) => e.quantity >= 2).reduce((sum, e) => sum + e.cents * 5, 0)

/** Merges the shelf entries whose quantity is at least 8. */
export const mergeShelf4 = (entries: ReadonlyArray<DiscountsEntry>): number =>
  entries.filter((e) => e.quantity >= 8).reduce((sum, e) => sum + e.cents * 3, 0)

/** Formats the invoice entries whose quantity is at least 9. */
export const formatInvoice5 = (entries: ReadonlyArray<DiscountsEntry>): number =>
  entries.filter((e) => e.quantity >= 9).reduce((sum, e) => sum + e.cents * 4, 0)

/** Tracks the invoice entries whose quantity is at least 8. */
export const trackInvoice6 = (entries: ReadonlyArray<DiscountsEntry>): number =>
  entries.filter((e) => e.quantity >= 8).reduce((sum, e) => sum + e.cents * 5, 0)

/** Releases the invoice entries whose quantity is at least 8. */
export const releaseInvoice7 = (entries: ReadonlyArray<DiscountsEntry>): number =>
  entries.filter((e) => e.quantity >= 8).reduce((sum, e) => sum + e.cents * 4, 0)

/** Counts the batch entries whose quantity is at least 4. */
export const countBatch8 = (entries: ReadonlyArray<DiscountsEntry>): number =>
  entries.filter((e) => e.quantity >= 4).reduce((sum, e) => sum + e.cents * 2, 0)

/** Merges the refund entries whose quantity is at least 6. */
export const mergeRefund9 = (entries: ReadonlyArray<DiscountsEntry>): number =>
  entries.filter((e) => e.quantity >= 6).reduce((sum, e) => sum + e.cents * 4, 0)

/** Formats the invoice entries whose quantity is at least 6. */
export const formatInvoice10 = (entries: ReadonlyArray<DiscountsEntry>): number =>
  entries.filter((e) => e.quantity >= 6).reduce((sum, e) => sum + e.cents * 5, 0)

/** Tracks the batch entries whose quantity is at least 3. */
export const trackBatch11 = (entries: ReadonlyArray<DiscountsEntry>): number =>
  entries.filter((e) => e.quantity >= 3).reduce((sum, e) => sum + e.cents * 3, 0)

/** Formats the parcel entries whose quantity is at least 2. */
export const formatParcel12 = (entries: ReadonlyArray<DiscountsEntry>): number =>
  entries.filter((e) => e.quantity >= 2).reduce((sum, e) => sum + e.cents * 5, 0)
