/**
 * Reading a fitting's arguments once: every option checked, a bad value replaced by its documented default with
 * a diagnostic that says so, and the result a plain record the fitting steps read from.
 */
import { CostCache, type TokenCounter } from "@ctxkit/budget"
import { SettingAdjusted } from "@ctxkit/budget/Diagnostics"
import { DEFAULT_PER_MESSAGE_OVERHEAD } from "@ctxkit/budget/MessageCost"
import { formats, isMessageFormat, type MessageFormat, type Role } from "@ctxkit/core"
import { describeValue } from "@ctxkit/core/Describe"
import { readSettings as readOptions, setting, type SettingAdjustment } from "@ctxkit/core/Settings"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { type FitDiagnostic, OptionAdjusted, UnusableBudget } from "../Diagnostics.ts"
import type { CompressOptions, FitOptions, RelevanceScorer, RemovalCandidate, RoleFilter } from "../FitOptions.ts"
import { asCounter } from "./counting.ts"

/** Default `compress.threshold`, in tokens. */
export const DEFAULT_COMPRESS_THRESHOLD = 1_000
/** Default `compress.keep`, in tokens. */
export const DEFAULT_COMPRESS_KEEP = 400

/** Resolved compression settings. */
export interface Compression {
  readonly threshold: number
  readonly keep: number
}

/** Everything a fitting reads from its arguments. */
export interface Settings<M> {
  readonly format: MessageFormat<M>
  readonly counter: TokenCounter
  /** Tokens added to every message. */
  readonly overhead: number
  /** The caller's cost cache, if any. */
  readonly cache: CostCache | undefined
  /** The budget fitted to: the given one, or 0 when it is unusable. */
  readonly budget: number
  readonly budgetUsable: boolean
  readonly protectCurrentRequest: boolean
  /** `"last"` keeps the newest messages (the default), `"first"` the oldest (LangChain's `strategy`). */
  readonly keep: "last" | "first"
  readonly removalPriority: ((group: RemovalCandidate<M>) => number) | undefined
  /** Undefined when compression is off. */
  readonly compression: Compression | undefined
  /** Cut the message at the cut instead of dropping it whole (LangChain's `allowPartial`), with this splitter. */
  readonly partial: ((text: string) => ReadonlyArray<string>) | undefined
  readonly startOn: ReadonlySet<Role> | undefined
  readonly endOn: ReadonlySet<Role> | undefined
  /** Price the excluded messages too, so that every `excluded` entry has its `tokens`. */
  readonly countExcluded: boolean
  readonly relevance: RelevanceScorer | undefined
}

const isPositive = (value: unknown): value is number => Predicate.isNumber(value) && Number.isFinite(value) && value > 0

/**
 * LangChain's default text splitter: the text cut after every newline, each piece keeping its newline, so that
 * the pieces joined are the text.
 */
export const splitLines = (text: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  let start = 0
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", start)) {
    out.push(text.slice(start, at + 1))
    start = at + 1
  }
  if (start < text.length) out.push(text.slice(start))
  return out
}

// LangChain's message type names, read as ctxkit roles.
const ROLE_NAMES: Readonly<Record<string, Role>> = {
  system: "system",
  user: "user",
  human: "user",
  assistant: "assistant",
  ai: "assistant",
  tool: "tool"
}

/** A role filter as a set of roles; undefined when absent, or when it names no role (with a diagnostic). */
const readRoles = (
  option: "startOn" | "endOn",
  given: RoleFilter | undefined,
  diagnostics: Array<FitDiagnostic>
): ReadonlySet<Role> | undefined => {
  if (given === undefined) return undefined
  const names: ReadonlyArray<unknown> = Array.isArray(given) ? given : [given]
  const roles = new Set<Role>()
  for (const name of names) {
    const role = Predicate.isString(name) ? ROLE_NAMES[name] : undefined
    if (role === undefined) {
      diagnostics.push(new OptionAdjusted({ option, given: describeValue(name), used: "no constraint" }))
      return undefined
    }
    roles.add(role)
  }
  return roles.size === 0 ? undefined : roles
}

const Positive = Schema.Finite.check(Schema.isGreaterThan(0))

/** One {@link OptionAdjusted} (or budget's `SettingAdjusted` for the overhead, its one name) per adjustment. */
const report = (adjusted: ReadonlyArray<SettingAdjustment>, diagnostics: Array<FitDiagnostic>): void => {
  for (const a of adjusted) {
    const given = describeValue(a.given)
    if (a.option === "perMessageOverhead") {
      diagnostics.push(new SettingAdjusted({ setting: "perMessageOverhead", given, used: a.used as number }))
    } else {
      const option = a.option as OptionAdjusted["option"]
      const used = option === "format" ? "auto" : Predicate.isString(a.used) ? a.used : String(a.used)
      diagnostics.push(new OptionAdjusted({ option, given, used }))
    }
  }
}

const compressionFields = {
  threshold: setting(Positive, { accepted: "a number of tokens > 0", default: DEFAULT_COMPRESS_THRESHOLD })
}

const readCompression = (
  given: boolean | CompressOptions | undefined,
  diagnostics: Array<FitDiagnostic>
): Compression | undefined => {
  if (given === undefined || given === false) return undefined
  const read = readOptions(compressionFields, given, "compress.")
  report(read.adjusted, diagnostics)
  const { threshold } = read.settings
  // `keep` depends on the threshold: read once it is known.
  const keepField = {
    keep: setting(Positive.check(Schema.isLessThan(threshold)), {
      accepted: `a number of tokens > 0 and below compress.threshold`,
      default: Math.min(DEFAULT_COMPRESS_KEEP, Math.floor(threshold / 2))
    })
  }
  const kept = readOptions(keepField, given, "compress.")
  report(kept.adjusted, diagnostics)
  return { threshold, keep: kept.settings.keep }
}

const fields = {
  format: setting(Schema.declare((u): u is MessageFormat<unknown> => isMessageFormat(u)), {
    accepted: "a MessageFormat",
    default: formats.auto as MessageFormat<unknown>
  }),
  perMessageOverhead: setting(Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0)), {
    accepted: "a number of tokens ≥ 0",
    default: DEFAULT_PER_MESSAGE_OVERHEAD
  }),
  strategy: setting(Schema.Literals(["last", "first"]), { accepted: "\"last\" or \"first\"", default: "last" })
}

/** The settings of one fitting; what had to be adjusted goes to `diagnostics`. */
export const readSettings = <M>(
  countTokens: unknown,
  budget: unknown,
  given: unknown,
  diagnostics: Array<FitDiagnostic>
): Settings<M> => {
  // `null` or a non-object from an untyped caller reads as "no options".
  const options: FitOptions<M> = Predicate.isObject(given) ? given as FitOptions<M> : {}

  const read = readOptions(fields, options)
  // Reported in the order the options are documented, the budget between the overhead and the strategy.
  report(read.adjusted.filter((a) => a.option !== "strategy"), diagnostics)
  const format = read.settings.format as MessageFormat<M>
  const overhead = read.settings.perMessageOverhead

  const budgetUsable = isPositive(budget)
  if (!budgetUsable) diagnostics.push(new UnusableBudget({ given: describeValue(budget) }))

  report(read.adjusted.filter((a) => a.option === "strategy"), diagnostics)
  const keep = read.settings.strategy

  let partial: ((text: string) => ReadonlyArray<string>) | undefined
  if (options.allowPartial === true) {
    const splitter = options.textSplitter
    if (splitter === undefined || Predicate.isFunction(splitter)) partial = splitter ?? splitLines
    else {
      diagnostics.push(
        new OptionAdjusted({
          option: "textSplitter",
          given: describeValue(splitter),
          used: "a split after each newline"
        })
      )
      partial = splitLines
    }
  }

  return {
    format,
    counter: asCounter(countTokens),
    overhead,
    cache: options.cache instanceof CostCache ? options.cache : undefined,
    budget: budgetUsable ? budget : 0,
    budgetUsable,
    protectCurrentRequest: options.protectCurrentRequest !== false,
    keep,
    removalPriority: Predicate.isFunction(options.removalPriority) ? options.removalPriority : undefined,
    compression: readCompression(options.compress, diagnostics),
    partial,
    startOn: readRoles("startOn", options.startOn, diagnostics),
    endOn: readRoles("endOn", options.endOn, diagnostics),
    countExcluded: options.countExcluded === true,
    relevance: Predicate.isFunction(options.relevance) ? options.relevance : undefined
  }
}
