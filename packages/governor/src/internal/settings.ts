/**
 * Options → validated settings, with a diagnostic for every value replaced.
 *
 * @internal
 */
import { approximateCounter, type CostCache, toCounter, type TokenCounter } from "@ctxkit/budget"
import { formats, type MessageFormat } from "@ctxkit/core"
import { describeValue } from "@ctxkit/core/Describe"
import * as Predicate from "effect/Predicate"
import type { GovernMode, GovernOptions } from "../Govern.ts"
import { GovernorSettingAdjusted } from "../GovernorDiagnostics.ts"
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

const integerIn = (
  value: unknown,
  min: number,
  max: number,
  fallback: number,
  setting: GovernorSettingAdjusted["setting"],
  out: Array<GovernorSettingAdjusted>
): number => {
  if (value === undefined) return fallback
  if (typeof value === "number" && Number.isInteger(value) && value >= min && value <= max) return value
  const used = typeof value === "number" && !Number.isNaN(value)
    ? Math.min(max, Math.max(min, Math.trunc(value)))
    : fallback
  out.push(new GovernorSettingAdjusted({ setting, given: describeValue(value), used: String(used) }))
  return used
}

const MODES: ReadonlySet<unknown> = new Set(["off", "shadow", "on"])

// Arrays pass, as they always did: a format or a mapping is only ever checked for being an object.
const isRecord = Predicate.isObjectOrArray

/** Validates `options`; every replaced value gives one {@link GovernorSettingAdjusted}. */
export const settingsOf = <M>(options: GovernOptions<M> | undefined): Settings<M> => {
  const o: GovernOptions<M> = isRecord(options) ? options : {}
  const diagnostics: Array<GovernorSettingAdjusted> = []
  let mode: GovernMode = "off"
  if (o.mode !== undefined) {
    if (MODES.has(o.mode)) mode = o.mode
    else {diagnostics.push(
        new GovernorSettingAdjusted({ setting: "mode", given: describeValue(o.mode), used: "\"off\"" })
      )}
  }
  const minAgeTurns = integerIn(o.minAgeTurns, 1, 20, DEFAULT_MIN_AGE_TURNS, "minAgeTurns", diagnostics)
  const epochMessages = integerIn(o.epochMessages, 0, 1000, DEFAULT_EPOCH_MESSAGES, "epochMessages", diagnostics)
  if (o.policyVersion !== undefined && o.policyVersion !== 1) {
    diagnostics.push(
      new GovernorSettingAdjusted({ setting: "policyVersion", given: describeValue(o.policyVersion), used: "1" })
    )
  }
  const request = integerIn(o.request, 1, Number.MAX_SAFE_INTEGER, 1, "request", diagnostics)
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
