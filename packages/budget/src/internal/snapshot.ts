/**
 * The last conversation a `CostCache` counted with one profile: the message at each position, and its count
 * there (`-1` where the count fell back and must be redone).
 */
export interface CostSnapshot {
  /** The messages, by position (a copy of the array: callers may push onto theirs). */
  readonly refs: ReadonlyArray<unknown>
  /** Their counts, by position. */
  readonly values: ArrayLike<number>
}
