/**
 * Options → validated settings, with a diagnostic for every value replaced.
 *
 * @internal
 */
import { approximateCounter, type CostCache, toCounter, type TokenCounter } from "@ctxkit/budget"
import { formats, type MessageFormat } from "@ctxkit/core"
import { describeValue } from "@ctxkit/core/Describe"
import { readSettings, setting } from "@ctxkit/core/Settings"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { GovernorSettingAdjusted } from "../Diagnostics.ts"
import type { GovernMode, GovernOptions } from "../Govern.ts"
import type { ToolKinds } from "../ToolKinds.ts"
import { seedToolKinds } from "../tools/Seed.ts"
import { type AnalysisState, stateOf } from "./analysis.ts"

/** The default `minAgeTurns`. */
export const DEFAULT_MIN_AGE_TURNS = 2
/** The default `epochMessages`. */
export const DEFAULT_EPOCH_MESSAGES = 32

/** Everything `govern` works with, validated. */
export interface Settings<M> {
  readonly mode: GovernMode
  readonly minAgeTurns: number
  readonly epochMessages: number
  readonly policyVersion: 1
  readonly request: number
  readonly toolKinds: ToolKinds
  readonly format: MessageFormat<M>
  readonly counter: TokenCounter
  readonly cache: CostCache | undefined
  readonly hashReads: boolean
  readonly previouslyElided: ReadonlySet<string>
  readonly usage: boolean
  /** The analysis of an earlier request, to extend (see `GovernOptions.analysis`). */
  readonly previous: AnalysisState<M> | undefined
  readonly diagnostics: ReadonlyArray<GovernorSettingAdjusted>
}

/** An integer option in [min, max]; a number out of range is clamped into it, anything else is the default. */
const integerIn = (min: number, max: number, fallback: number) =>
  setting(Schema.Int.check(Schema.isBetween({ minimum: min, maximum: max })), {
    accepted: `an integer from ${min} to ${max}`,
    default: fallback,
    repair: (given) =>
      Predicate.isNumber(given) && !Number.isNaN(given) ? Math.min(max, Math.max(min, Math.trunc(given))) : fallback
  })

const fields = {
  mode: setting(Schema.Literals(["off", "shadow", "on"]), {
    accepted: "\"off\", \"shadow\" or \"on\"",
    default: "off"
  }),
  minAgeTurns: integerIn(1, 20, DEFAULT_MIN_AGE_TURNS),
  epochMessages: integerIn(0, 1000, DEFAULT_EPOCH_MESSAGES),
  policyVersion: setting(Schema.Literal(1), { accepted: "1", default: 1 }),
  request: integerIn(1, Number.MAX_SAFE_INTEGER, 1)
}

// Arrays pass, as they always did: a format or a mapping is only ever checked for being an object.
const isRecord = Predicate.isObjectOrArray

/** Validates `options`; every replaced value gives one {@link GovernorSettingAdjusted}. */
export const settingsOf = <M>(options: GovernOptions<M> | undefined): Settings<M> => {
  const o: GovernOptions<M> = isRecord(options) ? options : {}
  const read = readSettings(fields, o)
  const diagnostics = read.adjusted.map((a) =>
    new GovernorSettingAdjusted({
      setting: a.option as GovernorSettingAdjusted["setting"],
      given: describeValue(a.given),
      used: a.option === "mode" ? JSON.stringify(a.used) : String(a.used)
    })
  )
  const { epochMessages, minAgeTurns, mode, request } = read.settings
  const previous = o.previouslyElided
  const previouslyElided = new Set<string>()
  if (Predicate.isIterable(previous) && typeof previous !== "string") {
    for (const id of previous) if (typeof id === "string") previouslyElided.add(id)
  }
  return {
    mode,
    minAgeTurns,
    epochMessages,
    policyVersion: 1,
    request,
    toolKinds: isRecord(o.toolKinds) ? o.toolKinds : seedToolKinds,
    format: isRecord(o.format) ? o.format : (formats.auto as MessageFormat<M>),
    counter: typeof o.counter === "function" || (isRecord(o.counter) && typeof o.counter.count === "function")
      ? toCounter(o.counter)
      : approximateCounter,
    cache: o.cache,
    hashReads: o.hashReads === true,
    previouslyElided,
    usage: o.usage === true,
    previous: stateOf<M>(o.analysis),
    diagnostics
  }
}
