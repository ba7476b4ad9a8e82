/**
 * A per-message number remembered by position: the engine's per-session memo for what it derives from each
 * message of the history on every request (its serialized size, its audit flags).
 *
 * A session's history changes at its end (appended turns) far more often than anywhere else, so the last list
 * seen is kept as it was: a new list is compared with it by reference from the start, and only the messages from
 * the first difference on are looked up in the identity map (or computed). Comparing two references costs a few
 * nanoseconds; a `WeakMap` lookup costs ten times more, which on a 10,000-message session was most of a request's
 * work after an append.
 */
export class PositionalMemo {
  /** Every message seen, by identity (messages that moved, or come back after a rewrite). */
  readonly #byIdentity = new WeakMap<object, number>()
  /** The last list seen, and each of its messages' values. */
  readonly #refs: Array<unknown> = []
  readonly #values: Array<number> = []

  /**
   * The value of every message of `messages`, in order, computing it (`compute`) for a message never seen.
   * The array returned is the memo's own and changes on the next call: read it before calling again.
   */
  values(messages: ReadonlyArray<unknown>, compute: (message: unknown) => number): ReadonlyArray<number> {
    const refs = this.#refs
    const values = this.#values
    const n = messages.length
    let same = 0
    const known = Math.min(n, refs.length)
    while (same < known && refs[same] === messages[same]) same++
    refs.length = same
    values.length = same
    for (let i = same; i < n; i++) {
      const message = messages[i]
      const key = typeof message === "object" && message !== null ? message : undefined
      let value = key === undefined ? undefined : this.#byIdentity.get(key)
      if (value === undefined) {
        value = compute(message)
        if (key !== undefined) this.#byIdentity.set(key, value)
      }
      refs.push(message)
      values.push(value)
    }
    return values
  }
}
