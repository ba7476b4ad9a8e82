/**
 * Reading a provider's error: is it the server saying the prompt is larger than its window, and does it say how
 * large the window is? Knows llama.cpp (`exceed_context_size_error` with `n_prompt_tokens` and `n_ctx`), OpenAI
 * (`context_length_exceeded`), Anthropic (`prompt is too long: N tokens > M maximum`) and vLLM (`maximum context
 * length is N tokens`), given as an `effect/ai` `AiError`, an HTTP status with its parsed body
 * (`{ status, body }`), or the parsed body alone.
 *
 * @since 0.1.0
 */
import { normalizeProviderError, type ProviderErrorCode } from "./internal/hostImports.ts"

/**
 * What a provider error says.
 *
 * @category models
 * @since 0.1.0
 */
export interface ProviderErrorReading {
  /** The server refused the prompt as larger than its context window. */
  readonly overWindow: boolean
  /** Which server's wording matched, when one did. */
  readonly provider?: "llama.cpp" | "openai" | "anthropic" | "vllm" | undefined
  /** The window the error reveals, in the server's tokens. */
  readonly window?: number | undefined
  /** The prompt tokens the server counted, when it says. */
  readonly promptTokens?: number | undefined
  /** The normalized code for the audit (never the provider's body). */
  readonly code: ProviderErrorCode
}

type Json = Readonly<Record<string, unknown>>

const isRecord = (value: unknown): value is Json => typeof value === "object" && value !== null

const parsed = (value: unknown): unknown => {
  if (typeof value !== "string") return value
  const trimmed = value.trim()
  if (!trimmed.startsWith("{")) return value
  try {
    return JSON.parse(trimmed)
  } catch {
    return value
  }
}

const positive = (value: unknown): number | undefined => {
  const n = typeof value === "string" ? Number(value) : value
  return typeof n === "number" && Number.isFinite(n) && n > 0 ? n : undefined
}

/**
 * An `AiError` that keeps no body (`@ctxkit/effect-ai`'s `OpenAiCompatible`) keeps the error's fields in its
 * provider metadata (`metadata.openai.{errorType, errorCode, nCtx, nPromptTokens}`): read back as a body.
 */
const metadataBody = (metadata: unknown): unknown => {
  if (!isRecord(metadata)) return undefined
  for (const fields of Object.values(metadata)) {
    if (!isRecord(fields) || (fields["errorType"] === undefined && fields["errorCode"] === undefined)) continue
    return {
      error: {
        type: fields["errorType"],
        code: fields["errorCode"],
        n_ctx: fields["nCtx"],
        n_prompt_tokens: fields["nPromptTokens"]
      }
    }
  }
  return undefined
}

/** The HTTP status and the body, whatever shape the error came in. */
const partsOf = (
  error: unknown
): { readonly status: number | undefined; readonly body: unknown; readonly texts: Array<string> } => {
  const texts: Array<string> = []
  if (!isRecord(error)) return { status: undefined, body: parsed(error), texts }
  // effect/ai's AiError: the reason is its `cause`, with the HTTP context when the provider had one.
  const candidate = isRecord(error["reason"]) ? error["reason"] : error["cause"]
  const reason = isRecord(candidate) && typeof candidate["_tag"] === "string" ? candidate : undefined
  if (reason !== undefined) {
    const http = isRecord(reason["http"]) ? reason["http"] : {}
    const response = isRecord(http["response"]) ? http["response"] : {}
    for (const key of ["description", "message"]) if (typeof reason[key] === "string") texts.push(reason[key])
    const body = parsed(http["body"])
    return { status: positive(response["status"]), body: body ?? metadataBody(reason["metadata"]), texts }
  }
  if ("status" in error && "body" in error) {
    return { status: positive(error["status"]), body: parsed(error["body"]), texts }
  }
  return { status: undefined, body: error, texts }
}

/** Every string in `value`, a few levels deep. */
const stringsOf = (value: unknown, out: Array<string>, depth: number): void => {
  if (depth > 4) return
  if (typeof value === "string") out.push(value)
  else if (Array.isArray(value)) { for (const item of value) stringsOf(item, out, depth + 1) }
  else if (isRecord(value)) { for (const key of Object.keys(value)) stringsOf(value[key], out, depth + 1) }
}

/**
 * Reads a provider error. Never throws; an error it does not recognize is `overWindow: false` with its
 * normalized code.
 *
 * @example
 * ```ts
 * import { readProviderError } from "@ctxkit/engine/ProviderError"
 *
 * const reading = readProviderError({
 *   status: 400,
 *   body: { error: { code: 400, type: "exceed_context_size_error", n_prompt_tokens: 5000, n_ctx: 4096, message: "…" } }
 * })
 * reading.overWindow // true
 * reading.window // 4096
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const readProviderError = (error: unknown): ProviderErrorReading => {
  const { body, status, texts } = partsOf(error)
  const inner = isRecord(body) && isRecord(body["error"]) ? body["error"] : isRecord(body) ? body : {}
  stringsOf(body, texts, 0)
  const all = texts.join("\n")
  const over = (provider: ProviderErrorReading["provider"], window?: number, promptTokens?: number) => ({
    overWindow: true,
    provider,
    ...(window === undefined ? {} : { window }),
    ...(promptTokens === undefined ? {} : { promptTokens }),
    code: "context_length_exceeded" as const
  })
  if (inner["type"] === "exceed_context_size_error" || /exceed_context_size_error/.test(all)) {
    return over("llama.cpp", positive(inner["n_ctx"]), positive(inner["n_prompt_tokens"]))
  }
  if (inner["code"] === "context_length_exceeded" || /context_length_exceeded/.test(all)) {
    const window = /maximum context length is (\d+) tokens/i.exec(all)
    return over("openai", positive(window?.[1]))
  }
  const anthropic = /prompt is too long(?::\s*(\d+) tokens\s*>\s*(\d+) maximum)?/i.exec(all)
  if (anthropic !== null) return over("anthropic", positive(anthropic[2]), positive(anthropic[1]))
  const vllm = /maximum context length(?: is (\d+) tokens)?/i.exec(all)
  if (vllm !== null && (status === undefined || status === 400)) {
    const requested = /requested (\d+) tokens|(\d+) tokens? in the messages/i.exec(all)
    return over("vllm", positive(vllm[1]), positive(requested?.[1] ?? requested?.[2]))
  }
  return { overWindow: false, code: normalizeProviderError(status === undefined ? error : { status, body }) }
}
