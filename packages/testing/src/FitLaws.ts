/**
 * The fitting laws (quality.md L1–L9) as reusable checks for any context strategy — ctxkit's built-ins or
 * yours: `fitViolations` checks one conversation at one budget, `fitLaws` is a fast-check property over
 * generated conversations at random budgets. A strategy is anything with an `id` and a
 * `fit(messages, countTokens, budget, options)` returning `{ kept, excluded, truncated, inserted, tokens, fits }`
 * (the shape of `@ctxkit/fit`'s results): this module does not depend on `@ctxkit/fit`.
 *
 * @since 0.1.0
 */
import { formats, type MessageFormat, toolGroups } from "@ctxkit/core"
import * as fc from "fast-check"
import { conversation, type ScenarioOptions } from "./Arbitraries.ts"
import { identityViolations, pairViolations, partitionViolations, purityViolations, type Selection } from "./Laws.ts"
import { type FormatName, formatOf } from "./Render.ts"
import type { Rendered } from "./Scenario.ts"

/**
 * What a strategy under test must return (a structural subset of `@ctxkit/fit`'s `FitResult`).
 *
 * @example
 * ```ts
 * import type { StrategyOutcome } from "@ctxkit/testing/FitLaws"
 *
 * const outcome: StrategyOutcome<string> = { kept: ["b"], excluded: [{ message: "a" }], truncated: [], inserted: [], tokens: 5, fits: true }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface StrategyOutcome<M> {
  /** What is sent, in order: input messages, compressed copies (listed in `truncated`) and `inserted` notes. */
  readonly kept: ReadonlyArray<M>
  /** The input messages left out. */
  readonly excluded: ReadonlyArray<{ readonly message: M }>
  /** Compressed copies sent in place of their originals. */
  readonly truncated: ReadonlyArray<{ readonly original: M; readonly message: M }>
  /** Messages of `kept` that are not from the input. */
  readonly inserted: ReadonlyArray<M>
  /** The strategy's count of `kept`, in tokens. */
  readonly tokens: number
  /** Whether `kept` fits the budget with everything protected in it. */
  readonly fits: boolean
}

/**
 * The options the laws call a strategy with: the format, the per-message overhead, and any extra options of
 * {@link FitCheckOptions.fitOptions} (spread in).
 *
 * @example
 * ```ts
 * import { formats } from "@ctxkit/core"
 * import type { FitCall } from "@ctxkit/testing/FitLaws"
 *
 * const call: FitCall = { format: formats.canonical as never, perMessageOverhead: 4 }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface FitCall {
  /** The lens the strategy must read the messages with. */
  readonly format: MessageFormat<unknown>
  /** Tokens added per message. */
  readonly perMessageOverhead: number
}

/**
 * A context strategy as the laws see it: an id and a pure `fit`. Every `@ctxkit/fit` strategy is one.
 *
 * @example
 * ```ts
 * import type { StrategyUnderTest } from "@ctxkit/testing"
 *
 * // Keeps everything: lawful only while everything fits.
 * const keepAll: StrategyUnderTest = {
 *   id: "keep-all",
 *   fit: (messages) => ({ kept: messages, excluded: [], truncated: [], inserted: [], tokens: 0, fits: true })
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface StrategyUnderTest {
  /** The strategy's id, shown in failures. */
  readonly id: string
  /** Fits `messages` into `budget` tokens. */
  readonly fit: (
    messages: ReadonlyArray<unknown>,
    countTokens: (text: string) => number,
    budget: number,
    options: FitCall
  ) => StrategyOutcome<unknown>
}

/**
 * How {@link fitViolations} calls the strategy and which of the optional laws it checks.
 *
 * @example
 * ```ts
 * import { formats } from "@ctxkit/core"
 * import type { FitCheckOptions } from "@ctxkit/testing/FitLaws"
 *
 * const options: FitCheckOptions = { format: formats.anthropic as never, minimality: true, largerBudget: 2_000 }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface FitCheckOptions {
  /** The lens of the messages. Default: `formats.auto`. */
  readonly format?: MessageFormat<unknown> | undefined
  /** The token counter given to the strategy and used for the independent recount. Default: `ceil(length / 4)`. */
  readonly countTokens?: ((text: string) => number) | undefined
  /** Tokens added per message, given to the strategy and used by the recount. Default 4. */
  readonly perMessageOverhead?: number | undefined
  /** More options for the strategy (`{ compress: true }`), spread into its options. */
  readonly fitOptions?: Readonly<Record<string, unknown>> | undefined
  /** Whether the current request (last user message that is not a summary) is protected. Default true. */
  readonly protectCurrentRequest?: boolean | undefined
  /** Check L6 minimality (strategies that only truncate). Default false. */
  readonly minimality?: boolean | undefined
  /** Check L7 monotonicity against this larger budget (strategies that only truncate). Default: not checked. */
  readonly largerBudget?: number | undefined
  /** Check L9 purity (deep-freezes the messages). Default true. */
  readonly purity?: boolean | undefined
}

const approximate = (text: string): number => Math.ceil(text.length / 4)

/** Protected messages (system from the system itself, pinned, the current request) and the groups holding one. */
const protection = (
  messages: ReadonlyArray<unknown>,
  lens: MessageFormat<unknown>,
  protectCurrentRequest: boolean | undefined
) => {
  const { groupOf, groups } = toolGroups(messages, lens)
  let current = -1
  if (protectCurrentRequest !== false) {
    for (let i = messages.length - 1; i >= 0; i--) {
      if (lens.role(messages[i]) === "user" && !lens.isSummary(messages[i])) {
        current = i
        break
      }
    }
  }
  const isProtected = messages.map((m, i) => i === current || lens.isProtected(m) || lens.isPinned(m))
  const lockedGroups = new Set<number>()
  isProtected.forEach((p, i) => {
    if (p) lockedGroups.add(groupOf[i] ?? -1)
  })
  return { groupOf, groups, isProtected, lockedGroups }
}

const describe = (error: unknown): string => error instanceof Error ? error.message : String(error)

/**
 * Every violation of the fitting laws by `strategy` on `messages` at `budget` (a finite number > 0), in words;
 * empty when they all hold:
 *
 * - L1 partition & order, L2 pairs, L3 identity (the checks of this package, with `truncated` as replacements
 *   and `inserted` as new messages);
 * - L4 protection: every protected message (system messages whose source is absent or `"system"`, pinned
 *   messages, the current request) is kept, or `fits` is false; `fits` is false only when the protected
 *   messages and their tool-call groups alone exceed the budget, and then nothing else is kept;
 * - L5 budget: an independent recount of `kept` equals `tokens`, and is at most `budget` when `fits`;
 * - L6 minimality (`minimality: true`): putting back the last excluded group would exceed the budget;
 * - L7 monotonicity (`largerBudget`): the larger budget keeps every input message this one keeps;
 * - L8 idempotence: fitting `kept` again with the same budget keeps the same objects and excludes, compresses and
 *   inserts nothing;
 * - L9 purity (unless `purity: false`): it works on deep-frozen messages, and twice gives equal results.
 *
 * @example
 * ```ts
 * import { formats } from "@ctxkit/core"
 * import { fitViolations, type StrategyUnderTest } from "@ctxkit/testing"
 *
 * const dropsEverything: StrategyUnderTest = {
 *   id: "drops-everything",
 *   fit: (messages) => ({ kept: [], excluded: messages.map((message) => ({ message })), truncated: [], inserted: [], tokens: 0, fits: true })
 * }
 * fitViolations(dropsEverything, [{ role: "system", content: "Be brief." }, { role: "user", content: "hi" }], 100, {
 *   format: formats.canonical as never
 * })
 * // ["L4: protected message 0 was excluded although the result fits", ...]
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const fitViolations = (
  strategy: StrategyUnderTest,
  messages: ReadonlyArray<unknown>,
  budget: number,
  options: FitCheckOptions = {}
): Array<string> => {
  const lens = options.format ?? (formats.auto as MessageFormat<unknown>)
  const count = options.countTokens ?? approximate
  const overhead = options.perMessageOverhead ?? 4
  const call: FitCall = { ...options.fitOptions, format: lens, perMessageOverhead: overhead }
  const fit = (input: ReadonlyArray<unknown>, at: number): StrategyOutcome<unknown> =>
    strategy.fit(input, count, at, call)
  const cost = (m: unknown): number => Math.ceil(count(lens.text(m))) + overhead
  const recount = (list: ReadonlyArray<unknown>): number => list.reduce((sum: number, m) => sum + cost(m), 0)

  if (options.purity !== false) {
    const impure = purityViolations((input: ReadonlyArray<unknown>) => fit(input, budget), messages)
    if (impure.length > 0) return impure
  }
  let outcome: StrategyOutcome<unknown>
  try {
    outcome = fit(messages, budget)
  } catch (error) {
    return [`the strategy threw: ${describe(error)}`]
  }
  const selection: Selection<unknown> = {
    kept: outcome.kept,
    excluded: outcome.excluded.map((e) => e.message),
    inserted: outcome.inserted,
    replaced: outcome.truncated
  }
  const violations = [
    ...partitionViolations(messages, selection),
    ...pairViolations(messages, selection, lens),
    ...identityViolations(selection, lens)
  ]
  if (violations.length > 0) return violations

  // What is sent, as input messages: inserted notes skipped, compressed copies mapped to their originals.
  const inserted = new Set(outcome.inserted)
  const originalOf = new Map(outcome.truncated.map((t) => [t.message, t.original]))
  const sent = new Set<unknown>()
  for (const m of outcome.kept) if (!inserted.has(m)) sent.add(originalOf.get(m) ?? m)

  // L4 protection.
  const { groupOf, groups, isProtected, lockedGroups } = protection(messages, lens, options.protectCurrentRequest)
  messages.forEach((m, i) => {
    if (isProtected[i] === true && !sent.has(m) && outcome.fits) {
      violations.push(`L4: protected message ${i} was excluded although the result fits`)
    }
  })
  if (!outcome.fits) {
    const lockedTokens = recount(messages.filter((_, i) => lockedGroups.has(groupOf[i] ?? -1)))
    if (Number.isFinite(budget) && budget > 0 && lockedTokens <= budget) {
      violations.push(
        `L4: the result says it does not fit, but the protected context alone (${lockedTokens} tokens) fits the budget of ${budget}`
      )
    }
    messages.forEach((m, i) => {
      if (!lockedGroups.has(groupOf[i] ?? -1) && sent.has(m)) {
        violations.push(`L4: the result does not fit but keeps unprotected message ${i}`)
      }
    })
  }

  // L5 budget.
  const tokens = recount(outcome.kept)
  if (outcome.fits && tokens > budget) {
    violations.push(`L5: the result says it fits, but what is sent recounts to ${tokens} tokens > budget ${budget}`)
  }
  if (!(Math.abs(tokens - outcome.tokens) <= 1e-6 * Math.max(1, tokens))) {
    violations.push(`L5: the result reports ${outcome.tokens} tokens; what is sent recounts to ${tokens}`)
  }

  // L6 minimality.
  const last = outcome.excluded[outcome.excluded.length - 1]
  if (options.minimality === true && last !== undefined) {
    const at = messages.indexOf(last.message)
    const group = groups[groupOf[at] ?? -1] ?? []
    const back = tokens + recount(group.map((i) => messages[i]))
    if (back <= budget) {
      violations.push(
        `L6: putting back the last excluded group [${
          group.join(", ")
        }] gives ${back} tokens, within the budget of ${budget}`
      )
    }
  }

  // L7 monotonicity.
  if (options.largerBudget !== undefined && options.largerBudget > budget) {
    try {
      const wider = fit(messages, options.largerBudget)
      const widerInserted = new Set(wider.inserted)
      const widerOriginal = new Map(wider.truncated.map((t) => [t.message, t.original]))
      const widerSent = new Set<unknown>()
      for (const m of wider.kept) if (!widerInserted.has(m)) widerSent.add(widerOriginal.get(m) ?? m)
      messages.forEach((m, i) => {
        if (sent.has(m) && !widerSent.has(m)) {
          violations.push(
            `L7: message ${i} is kept at budget ${budget} but not at the larger budget ${options.largerBudget}`
          )
        }
      })
    } catch (error) {
      violations.push(`L7: the strategy threw at the larger budget: ${describe(error)}`)
    }
  }

  // L8 idempotence.
  try {
    const again = fit(outcome.kept, budget)
    const same = again.kept.length === outcome.kept.length && again.kept.every((m, i) => m === outcome.kept[i])
    if (!same) violations.push("L8: fitting the output again changed what is kept")
    if (again.excluded.length > 0) {
      violations.push(`L8: fitting the output again excluded ${again.excluded.length} more`)
    }
    if (again.truncated.length > 0) violations.push("L8: fitting the output again compressed more")
    if (again.inserted.length > 0) violations.push("L8: fitting the output again inserted more")
    if (again.fits !== outcome.fits) violations.push("L8: fitting the output again changed `fits`")
  } catch (error) {
    violations.push(`L8: the strategy threw on its own output: ${describe(error)}`)
  }
  return violations
}

/**
 * How {@link fitLaws} generates conversations and budgets, and which optional laws it checks.
 *
 * @example
 * ```ts
 * import { formats } from "@ctxkit/core"
 * import type { FitLawsOptions } from "@ctxkit/testing/FitLaws"
 *
 * const options: FitLawsOptions = { wireFormat: "anthropic", format: formats.auto as never, minimality: true, monotonicity: true }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface FitLawsOptions extends Omit<FitCheckOptions, "largerBudget"> {
  /** The wire format conversations are generated in. Default `"canonical"`. */
  readonly wireFormat?: FormatName | undefined
  /** The lens the strategy reads them with. Default: the wire format's own lens. */
  readonly format?: MessageFormat<unknown> | undefined
  /** Your own conversations instead of generated ones. */
  readonly arbitrary?: fc.Arbitrary<Rendered<unknown>> | undefined
  /** What generated conversations contain. */
  readonly scenario?: ScenarioOptions | undefined
  /** Check L7 monotonicity against a random larger budget. Default false. */
  readonly monotonicity?: boolean | undefined
}

/**
 * A fast-check property checking the fitting laws ({@link fitViolations}) for `strategy` on generated
 * conversations (every feature of `scenario`: parallel calls, far results, approvals, reasoning, pinned,
 * memory and lorebook blocks, summaries, empty, huge and non-ASCII texts) at random budgets: from 75% of what the
 * protected context needs (it does not fit) up to 110% of what the whole conversation costs (nothing to do),
 * mostly in between (some history must go). Fails with the violations, the strategy's id and the budget.
 *
 * @example
 * ```ts
 * import { fitLaws, type StrategyUnderTest } from "@ctxkit/testing"
 * import * as fc from "fast-check"
 *
 * declare const myStrategy: StrategyUnderTest
 * fc.assert(fitLaws(myStrategy, { wireFormat: "openaiChat" }), { numRuns: 200 })
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const fitLaws = (
  strategy: StrategyUnderTest,
  options: FitLawsOptions = {}
): fc.IPropertyWithHooks<[Rendered<unknown>, number, number]> => {
  const wire = options.wireFormat ?? "canonical"
  const lens = options.format ?? formatOf(wire)
  const count = options.countTokens ?? approximate
  const overhead = options.perMessageOverhead ?? 4
  const arbitrary = options.arbitrary ?? conversation(wire, options.scenario)
  return fc.property(
    arbitrary,
    // Per mille, spread evenly (fast-check's doubles favour the bounds, which would pin the budget to them).
    fc.integer({ min: -250, max: 1_100 }).map((n) => n / 1_000),
    fc.integer({ min: 0, max: 500 }).map((n) => n / 1_000),
    (rendered, share, more) => {
      const cost = (m: unknown): number => Math.ceil(count(lens.text(m))) + overhead
      const total = rendered.messages.reduce((sum: number, m) => sum + cost(m), 0)
      // Budgets around the interesting range: from below what the protected context needs (does not fit) to
      // above the whole conversation (nothing to do).
      const { groupOf, lockedGroups } = protection(rendered.messages, lens, options.protectCurrentRequest)
      const locked = rendered.messages.reduce(
        (sum: number, m, i) => sum + (lockedGroups.has(groupOf[i] ?? -1) ? cost(m) : 0),
        0
      )
      const budget = Math.max(1, Math.floor(share < 0 ? locked * (1 + share) : locked + (total - locked) * share))
      const largerBudget = options.monotonicity === true ? budget + Math.max(1, Math.floor(total * more)) : undefined
      const violations = fitViolations(strategy, rendered.messages, budget, { ...options, format: lens, largerBudget })
      if (violations.length > 0) {
        throw new Error(`strategy "${strategy.id}" at budget ${budget} of ${total} tokens:\n${violations.join("\n")}`)
      }
    }
  )
}
