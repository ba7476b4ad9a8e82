/**
 * Reading a window out of each server's response body: the body shapes (Schema), which model of a list is
 * meant, and whether the value can be believed. Pure: the requests live in `DiscoverWindow.ts`.
 *
 * @internal
 */
import { isTrustedWindow, WINDOW_TRUST_LIMIT } from "@ctxkit/budget/Window"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

/** What one probe concluded: a window it believes, or a pass with the reason (`note`) and real warnings. */
export type Reading =
  | {
    readonly _tag: "Answer"
    readonly window: number
    readonly source: string
    readonly warnings: ReadonlyArray<string>
  }
  | { readonly _tag: "Pass"; readonly notes: ReadonlyArray<string>; readonly warnings: ReadonlyArray<string> }

export const answer = (window: number, source: string, warnings: ReadonlyArray<string> = []): Reading => ({
  _tag: "Answer",
  window,
  source,
  warnings
})

export const pass = (notes: ReadonlyArray<string>, warnings: ReadonlyArray<string> = []): Reading => ({
  _tag: "Pass",
  notes,
  warnings
})

/** A value shown in a warning: numbers as they are, anything else as short JSON. */
export const show = (value: unknown): string => {
  if (Predicate.isNumber(value)) return String(value)
  const json = JSON.stringify(value) ?? String(value)
  return json.length > 60 ? `${json.slice(0, 57)}...` : json
}

/** Why a reported window is not believed, or `undefined` when it is. */
const distrust = (value: unknown): string | undefined => {
  if (isTrustedWindow(value)) return undefined
  if (!Predicate.isNumber(value) || Number.isNaN(value)) return "not a number of tokens"
  if (value > WINDOW_TRUST_LIMIT) {
    return `above the ${WINDOW_TRUST_LIMIT.toLocaleString("en-US")}-token trust limit`
  }
  return "not a positive number of tokens"
}

type Checked =
  | { readonly _tag: "Trusted"; readonly window: number }
  | { readonly _tag: "Absent" }
  | { readonly _tag: "Untrusted"; readonly why: string }

export const checkWindow = (value: unknown): Checked => {
  if (value === undefined || value === null) return { _tag: "Absent" }
  const why = distrust(value)
  // Some servers send floats (LiteLLM); a window is whole tokens.
  return why === undefined && Predicate.isNumber(value)
    ? { _tag: "Trusted", window: Math.floor(value) }
    : { _tag: "Untrusted", why: why ?? "not a number of tokens" }
}

/** One model of a listing, with the value and field that tell its window. */
export interface Listed {
  readonly id: string
  readonly names: ReadonlyArray<string>
  readonly value: unknown
  readonly field: string
  /** Said when this entry answers (e.g. "this is the model's maximum, not the loaded window"). */
  readonly caveat?: string | undefined
  readonly loaded?: boolean | undefined
}

const loose = (name: string): string => {
  const lower = name.trim().toLowerCase()
  // llama.cpp lists the `-m` path; users write the file name, with or without `.gguf`.
  const file = lower.endsWith(".gguf") ? (lower.split(/[\\/]/).at(-1) ?? lower).slice(0, -".gguf".length) : lower
  // Ollama names without a tag mean `:latest`.
  return file.endsWith(":latest") ? file.slice(0, -":latest".length) : file
}

/** The entry the caller meant: an exact name first, then the same name as users write it. */
export const findModel = (entries: ReadonlyArray<Listed>, model: string): Listed | undefined =>
  entries.find((entry) => entry.names.includes(model)) ??
    entries.find((entry) => entry.names.some((name) => loose(name) === loose(model)))

const listedNames = (entries: ReadonlyArray<Listed>): string => {
  const ids = entries.slice(0, 5).map((entry) => `"${entry.id}"`).join(", ")
  return entries.length > 5 ? `${ids} and ${entries.length - 5} more` : ids
}

/**
 * The window a listing tells: the entry named by `model`, else the only one, else the smallest trusted
 * window (erring low only brings compaction forward) with a warning that says to pass `model`.
 */
export const fromListing = (
  where: string,
  entries: ReadonlyArray<Listed>,
  model: string | undefined,
  options: { readonly preferLoaded?: boolean } = {}
): Reading => {
  if (entries.length === 0) return pass([`${where}: lists no models`])
  if (model !== undefined) {
    const entry = findModel(entries, model)
    if (entry === undefined) {
      return pass([], [`${where} does not list model "${model}" (it lists ${listedNames(entries)}): check \`model\``])
    }
    return fromEntry(where, entry)
  }
  const loaded = entries.filter((entry) => entry.loaded === true)
  const pool = options.preferLoaded === true && loaded.length > 0 ? loaded : entries
  if (pool.length === 1 && pool[0] !== undefined) return fromEntry(where, pool[0])
  const readings = pool.map((entry) => ({ entry, checked: checkWindow(entry.value) }))
  const trusted = readings.flatMap(({ checked, entry }) =>
    checked._tag === "Trusted" ? [{ entry, window: checked.window }] : []
  )
  const smallest = trusted.reduce<typeof trusted[number] | undefined>(
    (low, next) => low === undefined || next.window < low.window ? next : low,
    undefined
  )
  if (smallest === undefined) {
    const untrusted = readings.flatMap(({ checked, entry }) =>
      checked._tag === "Untrusted" ? [untrustedWarning(where, entry, checked.why)] : []
    )
    return pass(
      untrusted.length === 0 ? [`${where}: no model reports ${pool[0]?.field ?? "a window"}`] : [],
      untrusted.slice(0, 3)
    )
  }
  const caveats = smallest.entry.caveat === undefined ? [] : [smallest.entry.caveat]
  if (trusted.every(({ window }) => window === smallest.window)) {
    return answer(smallest.window, `${where} ${smallest.entry.field}`, caveats)
  }
  return answer(smallest.window, `${where} ${smallest.entry.field} (model "${smallest.entry.id}")`, [
    `${where} lists ${pool.length} models with different windows (${
      listedNames(pool)
    }); used the smallest, ${smallest.window} of "${smallest.entry.id}": pass \`model\` to choose`,
    ...caveats
  ])
}

const untrustedWarning = (where: string, entry: Listed, why: string): string =>
  `${where} reports ${entry.field} = ${show(entry.value)} for "${entry.id}": ${why}, so not trusted`

const fromEntry = (where: string, entry: Listed): Reading => {
  const checked = checkWindow(entry.value)
  switch (checked._tag) {
    case "Trusted":
      return answer(
        checked.window,
        `${where} ${entry.field} (model "${entry.id}")`,
        entry.caveat === undefined ? [] : [entry.caveat]
      )
    case "Absent":
      return pass([`${where}: no ${entry.field} for "${entry.id}"`])
    case "Untrusted":
      return pass([], [untrustedWarning(where, entry, checked.why)])
  }
}

/** A single reported value (llama.cpp `/props`). */
export const fromValue = (where: string, field: string, value: unknown): Reading => {
  const checked = checkWindow(value)
  switch (checked._tag) {
    case "Trusted":
      return answer(checked.window, `${where} ${field}`)
    case "Absent":
      return pass([`${where}: no ${field}`])
    case "Untrusted":
      return pass([], [`${where} reports ${field} = ${show(value)}: ${checked.why}, so not trusted`])
  }
}

const decode = <S extends Schema.Decoder<unknown>>(schema: S) => {
  const run = Schema.decodeUnknownOption(schema)
  return (body: unknown): S["Type"] | undefined => Option.getOrUndefined(run(body))
}

const Unknown = Schema.optionalKey(Schema.Unknown)

const LlamaProps = decode(Schema.Struct({ default_generation_settings: Schema.Struct({ n_ctx: Schema.Unknown }) }))

/** llama.cpp `GET /props`: the window of each slot. */
export const readLlamaProps = (body: unknown): Reading => {
  const props = LlamaProps(body)
  return props === undefined
    ? pass(["GET /props: not llama.cpp's shape (no default_generation_settings.n_ctx)"])
    : fromValue("llama.cpp GET /props", "default_generation_settings.n_ctx", props.default_generation_settings.n_ctx)
}

const OpenAiModels = decode(Schema.Struct({
  data: Schema.Array(Schema.Struct({
    id: Schema.String,
    aliases: Schema.optionalKey(Schema.Array(Schema.String)),
    owned_by: Unknown,
    meta: Unknown,
    max_model_len: Unknown,
    context_length: Unknown,
    context_window: Unknown,
    max_context_length: Unknown
  }))
}))

const LlamaMeta = decode(Schema.Struct({ n_ctx: Schema.Unknown }))

const names = (id: string, aliases: ReadonlyArray<string> = []): ReadonlyArray<string> => [id, ...aliases]

/** llama.cpp `GET /v1/models`: `data[].meta.n_ctx` (the current window; `meta` is null while loading). */
export const readLlamaModels = (body: unknown, model: string | undefined): Reading => {
  const list = OpenAiModels(body)
  if (list === undefined) return pass(["GET /v1/models: not an OpenAI-style model list"])
  const llama = list.data.filter((entry) => entry.meta !== undefined || entry.owned_by === "llamacpp")
  if (llama.length === 0) return pass([])
  return fromListing(
    "llama.cpp GET /v1/models",
    llama.map((entry) => ({
      id: entry.id,
      names: names(entry.id, entry.aliases),
      value: LlamaMeta(entry.meta)?.n_ctx,
      field: "data[].meta.n_ctx"
    })),
    model
  )
}

/** vLLM `GET /v1/models`: `data[].max_model_len`. */
export const readVllmModels = (body: unknown, model: string | undefined): Reading => {
  const list = OpenAiModels(body)
  if (list === undefined) return pass([])
  const vllm = list.data.filter((entry) => entry.max_model_len !== undefined)
  if (vllm.length === 0) return pass([])
  const server = vllm.every((entry) => entry.owned_by === "vllm") ? "vLLM" : "OpenAI-compatible"
  return fromListing(
    `${server} GET /v1/models`,
    vllm.map((entry) => ({
      id: entry.id,
      names: names(entry.id, entry.aliases),
      value: entry.max_model_len,
      field: "data[].max_model_len"
    })),
    model
  )
}

const catalogFields = ["context_length", "context_window", "max_context_length"] as const

/** Any OpenAI-compatible catalog (Together, Groq, Mistral, ...): the first window field each entry carries. */
export const readCatalogModels = (where: string, body: unknown, model: string | undefined): Reading => {
  const list = OpenAiModels(body)
  if (list === undefined) return pass([])
  const entries = list.data.flatMap((entry): ReadonlyArray<Listed> => {
    const field = catalogFields.find((name) => entry[name] !== undefined)
    return field === undefined ?
      [] :
      [{ id: entry.id, names: names(entry.id, entry.aliases), value: entry[field], field: `data[].${field}` }]
  })
  return entries.length === 0 ?
    pass([`${where}: lists models without a window field (${catalogFields.join(", ")}, max_model_len)`]) :
    fromListing(where, entries, model)
}

const OpenRouterModels = decode(Schema.Struct({
  data: Schema.Array(Schema.Struct({
    id: Schema.String,
    canonical_slug: Schema.optionalKey(Schema.String),
    context_length: Unknown
  }))
}))

/** OpenRouter `GET /api/v1/models`: `data[].context_length`. */
export const readOpenRouterModels = (body: unknown, model: string | undefined): Reading => {
  const list = OpenRouterModels(body)
  if (list === undefined) return pass(["GET /api/v1/models: not OpenRouter's shape"])
  return fromListing(
    "OpenRouter GET /api/v1/models",
    list.data.map((entry) => ({
      id: entry.id,
      names: entry.canonical_slug === undefined ? [entry.id] : [entry.id, entry.canonical_slug],
      value: entry.context_length,
      field: "data[].context_length"
    })),
    model
  )
}

const OllamaPs = decode(Schema.Struct({
  models: Schema.Array(
    Schema.Struct({ name: Schema.String, model: Schema.optionalKey(Schema.String), context_length: Unknown })
  )
}))

/** The models Ollama has loaded (`GET /api/ps`), by name; `undefined` when the body is not Ollama's. */
export const ollamaLoaded = (body: unknown): ReadonlyArray<string> | undefined =>
  OllamaPs(body)?.models.map((entry) => entry.name)

/** Ollama `GET /api/ps`: the loaded runner's `context_length`, the window Ollama really uses. */
export const readOllamaPs = (body: unknown, model: string | undefined): Reading => {
  const ps = OllamaPs(body)
  if (ps === undefined) return pass(["GET /api/ps: not Ollama's shape"])
  if (ps.models.length === 0) return pass(["Ollama GET /api/ps: no model is loaded"])
  const entries = ps.models.map((entry) => ({
    id: entry.name,
    names: entry.model === undefined ? [entry.name] : [entry.name, entry.model],
    value: entry.context_length,
    field: "models[].context_length"
  }))
  if (model !== undefined && findModel(entries, model) === undefined) {
    return pass([`Ollama GET /api/ps: "${model}" is not loaded (loaded: ${listedNames(entries)})`])
  }
  return fromListing("Ollama GET /api/ps", entries, model)
}

const OllamaShow = decode(Schema.Struct({
  parameters: Schema.optionalKey(Schema.String),
  model_info: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
}))

/** The `num_ctx` of a Modelfile: a `num_ctx 4096` line in the `parameters` string, when there is one. */
export const numCtxParameter = (parameters: string): string | undefined =>
  parameters.split("\n").map((line) => line.trim().split(/\s+/)).find((words) => words[0] === "num_ctx")?.[1]

/**
 * Ollama `POST /api/show`: a Modelfile `num_ctx` wins; else `model_info["<arch>.context_length"]`, which is the
 * model's trained length, not necessarily what Ollama runs it with.
 */
export const readOllamaShow = (body: unknown, name: string): Reading => {
  const show = OllamaShow(body)
  if (show === undefined) return pass(["POST /api/show: not Ollama's shape"])
  const where = `Ollama POST /api/show`
  const numCtx = show.parameters === undefined ? undefined : numCtxParameter(show.parameters)
  const fromNumCtx = numCtx === undefined
    ? undefined
    : fromValue(where, `parameters num_ctx (model "${name}")`, Number(numCtx))
  if (fromNumCtx?._tag === "Answer") return fromNumCtx
  const arch = show.model_info?.["general.architecture"]
  if (!Predicate.isString(arch)) {
    return pass([`${where}: no model_info["general.architecture"] for "${name}"`], fromNumCtx?.warnings ?? [])
  }
  const field = `model_info["${arch}.context_length"]`
  const reading = fromValue(where, `${field} (model "${name}")`, show.model_info?.[`${arch}.context_length`])
  const earlier = fromNumCtx?.warnings ?? []
  return reading._tag === "Answer" ?
    answer(reading.window, reading.source, [
      ...earlier,
      `Ollama runs "${name}" with its num_ctx (by default 4096, or more with OLLAMA_CONTEXT_LENGTH or a large GPU), capped at this trained length ${reading.window}: load the model and ask again (GET /api/ps tells the real window), set num_ctx in its Modelfile, or configure the window`
    ]) :
    pass(reading.notes, [...earlier, ...reading.warnings])
}

const LmStudioV1 = decode(Schema.Struct({
  models: Schema.Array(Schema.Struct({
    key: Schema.String,
    max_context_length: Unknown,
    loaded_instances: Schema.optionalKey(Schema.Array(Schema.Struct({
      id: Schema.String,
      config: Schema.optionalKey(Schema.Struct({ context_length: Unknown }))
    })))
  }))
}))

const lmStudioCaveat = (id: string): string =>
  `LM Studio reports the maximum context of "${id}" (max_context_length); a loaded instance runs with the context length it was loaded with, often smaller: load it first, or configure the window`

/** LM Studio 0.4+ `GET /api/v1/models`: a loaded instance's `config.context_length`, else `max_context_length`. */
export const readLmStudioV1 = (body: unknown, model: string | undefined): Reading => {
  const list = LmStudioV1(body)
  if (list === undefined) return pass([])
  const entries = list.models.flatMap((entry): ReadonlyArray<Listed> => {
    const instances = entry.loaded_instances ?? []
    const loaded = instances.flatMap((instance) =>
      instance.config?.context_length === undefined ? [] : [{
        id: instance.id,
        names: [instance.id, entry.key],
        value: instance.config.context_length,
        field: "models[].loaded_instances[].config.context_length",
        loaded: true
      }]
    )
    return loaded.length > 0 ? loaded : [{
      id: entry.key,
      names: [entry.key],
      value: entry.max_context_length,
      field: "models[].max_context_length",
      caveat: lmStudioCaveat(entry.key),
      loaded: instances.length > 0
    }]
  })
  return fromListing("LM Studio GET /api/v1/models", entries, model, { preferLoaded: true })
}

const LmStudioV0 = decode(Schema.Struct({
  data: Schema.Array(Schema.Struct({
    id: Schema.String,
    state: Unknown,
    max_context_length: Unknown,
    loaded_context_length: Unknown
  }))
}))

/** LM Studio `GET /api/v0/models`: `loaded_context_length` where reported, else `max_context_length`. */
export const readLmStudioV0 = (body: unknown, model: string | undefined): Reading => {
  const list = LmStudioV0(body)
  if (list === undefined) return pass(["GET /api/v0/models: not LM Studio's shape"])
  return fromListing(
    "LM Studio GET /api/v0/models",
    list.data.map((entry) =>
      entry.loaded_context_length === undefined || entry.loaded_context_length === null ?
        {
          id: entry.id,
          names: [entry.id],
          value: entry.max_context_length,
          field: "data[].max_context_length",
          caveat: lmStudioCaveat(entry.id),
          loaded: entry.state === "loaded"
        } :
        {
          id: entry.id,
          names: [entry.id],
          value: entry.loaded_context_length,
          field: "data[].loaded_context_length",
          loaded: true
        }
    ),
    model,
    { preferLoaded: true }
  )
}

const LiteLlmGroups = decode(Schema.Struct({
  data: Schema.Array(Schema.Struct({ model_group: Schema.String, max_input_tokens: Unknown }))
}))

/** LiteLLM proxy `GET /model_group/info`: `data[].max_input_tokens` of the model group. */
export const readLiteLlm = (body: unknown, model: string | undefined): Reading => {
  const groups = LiteLlmGroups(body)
  if (groups === undefined) return pass(["GET /model_group/info: not LiteLLM's shape"])
  return fromListing(
    "LiteLLM GET /model_group/info",
    groups.data.map((entry) => ({
      id: entry.model_group,
      names: [entry.model_group],
      value: entry.max_input_tokens,
      field: "data[].max_input_tokens"
    })),
    model
  )
}
