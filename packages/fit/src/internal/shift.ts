/**
 * The context shift, step 2 of every built-in strategy: what `shiftContext` does between reading its arguments
 * and assembling its result.
 */
import { compressOldest } from "./compress.ts"
import { type Fitting, isRemoved, keepAll, keepNewest, removeGroup } from "./fitting.ts"
import { keepPart } from "./partial.ts"

/**
 * Step 2, the context shift itself: `endOn` (groups after the last message of the roles go), compression when
 * asked, {@link keepNewest} over `order` (with `allowPartial`, the group at the cut may keep a part of its text),
 * then `startOn` (the oldest kept groups go until the first kept message after the system prompt has one of the
 * roles). Returns how many groups it removed.
 */
export const shift = <M>(f: Fitting<M>, order: ReadonlyArray<number>): number => {
  const before = f.removed.length
  const { compression, endOn, keep, partial, startOn } = f.settings
  // LangChain applies `endOn` before the budget with "last" (it changes what fits), after it with "first".
  if (endOn !== undefined && keep === "last") removeAfterLast(f, endOn)
  if (compression !== undefined) {
    keepAll(f)
    compressOldest(f, order, compression)
  }
  keepNewest(f, order, "context-shift", 0, partial === undefined ? undefined : (g) => keepPart(f, g, partial))
  // Removing for one constraint can break the other (the cut, or `startOn`, can take the message `endOn` ended
  // on): both are applied until neither removes anything, so that fitting the result again changes nothing.
  if (endOn !== undefined || startOn !== undefined) {
    for (let removed = -1; removed !== f.removed.length;) {
      removed = f.removed.length
      if (endOn !== undefined) removeAfterLast(f, endOn)
      if (startOn !== undefined) removeBeforeFirst(f, startOn)
    }
  }
  return f.removed.length - before
}

/**
 * `endOn`: removes every unprotected group with a message after the last kept message of `roles` (every unprotected
 * group, if there is none).
 */
const removeAfterLast = <M>(f: Fitting<M>, roles: ReadonlySet<string>): void => {
  let last = f.input.length - 1
  while (
    last >= 0 &&
    (isRemoved(f, f.groupOf[last] as number) || !roles.has(f.settings.format.role(f.input[last] as M)))
  ) last--
  for (let i = f.input.length - 1; i > last; i--) removeGroup(f, f.groupOf[i] as number, "context-shift")
}

/**
 * `startOn`: removes kept groups, oldest first, until the first kept message that is not a protected system
 * message has one of `roles` — or is protected, which stops it (protection wins).
 */
const removeBeforeFirst = <M>(f: Fitting<M>, roles: ReadonlySet<string>): void => {
  const format = f.settings.format
  for (let i = 0; i < f.input.length; i++) {
    const g = f.groupOf[i] as number
    if (isRemoved(f, g)) continue
    const m = f.input[i] as M
    const role = format.role(m)
    if (f.locked[g] === 1) {
      if (role === "system") continue
      return
    }
    if (roles.has(role)) return
    removeGroup(f, g, "context-shift")
  }
}
