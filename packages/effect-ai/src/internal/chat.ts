/**
 * The OpenAI chat-completions wire format: `effect/ai` prompts and tools to a request body, a response body to
 * `effect/ai` response parts, and error bodies to their classifiable fields.
 *
 * @internal
 */
import type { LanguageModel, Prompt, Response } from "effect/ai"
import * as Tool from "effect/ai/Tool"
import * as Base64 from "effect/encoding/Base64"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"

/** One message of a chat-completions request. */
export type ChatMessage =
  | { readonly role: "system"; readonly content: string }
  | { readonly role: "user"; readonly content: string | ReadonlyArray<ChatContentPart> }
  | {
    readonly role: "assistant"
    readonly content: string | null
    readonly tool_calls?: ReadonlyArray<ChatToolCall>
  }
  | { readonly role: "tool"; readonly tool_call_id: string; readonly content: string }

type ChatContentPart =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image_url"; readonly image_url: { readonly url: string } }

interface ChatToolCall {
  readonly id: string
  readonly type: "function"
  readonly function: { readonly name: string; readonly arguments: string }
}

const asText = (value: unknown): string => Predicate.isString(value) ? value : JSON.stringify(value) ?? ""

/** A file part as an image URL (`data:` URL for bytes and base64), or why it cannot be sent. */
const imageUrl = (part: Prompt.FilePart): Result.Result<string, string> => {
  if (!part.mediaType.startsWith("image/")) {
    return Result.fail(`a ${part.mediaType} file cannot be sent in a chat-completions message (only images can)`)
  }
  const data = part.data
  if (Predicate.isString(data)) {
    return Result.succeed(/^(https?:|data:)/.test(data) ? data : `data:${part.mediaType};base64,${data}`)
  }
  if (Predicate.isUint8Array(data)) return Result.succeed(`data:${part.mediaType};base64,${Base64.encode(data)}`)
  // A URL object: its text is its address.
  return Result.succeed(String(data))
}

/**
 * The prompt as chat-completions messages. Reasoning parts, approval parts and provider-executed results are not
 * sent (the chat-completions format has no place for them); a tool message becomes one `tool` message per
 * result, each with its `tool_call_id`.
 */
export const toChatMessages = (prompt: Prompt.Prompt): Result.Result<Array<ChatMessage>, string> => {
  const out: Array<ChatMessage> = []
  for (const message of prompt.content) {
    switch (message.role) {
      case "system":
        out.push({ role: "system", content: message.content })
        break
      case "user": {
        const parts: Array<ChatContentPart> = []
        for (const part of message.content) {
          if (part.type === "text") parts.push({ type: "text", text: part.text })
          else {
            const url = imageUrl(part)
            if (Result.isFailure(url)) return Result.fail(url.failure)
            parts.push({ type: "image_url", image_url: { url: url.success } })
          }
        }
        const textOnly = parts.every((p) => p.type === "text")
        out.push({
          role: "user",
          content: textOnly ? parts.map((p) => p.type === "text" ? p.text : "").join("\n") : parts
        })
        break
      }
      case "assistant": {
        const texts: Array<string> = []
        const calls: Array<ChatToolCall> = []
        for (const part of message.content) {
          if (part.type === "text") texts.push(part.text)
          else if (part.type === "tool-call" && part.providerExecuted !== true) {
            calls.push({
              id: part.id,
              type: "function",
              function: { name: part.name, arguments: JSON.stringify(part.params ?? {}) }
            })
          }
        }
        out.push({
          role: "assistant",
          content: texts.length > 0 ? texts.join("\n") : null,
          ...(calls.length > 0 ? { tool_calls: calls } : {})
        })
        break
      }
      case "tool":
        for (const part of message.content) {
          if (part.type === "tool-result") {
            out.push({ role: "tool", tool_call_id: part.id, content: asText(part.result) })
          }
        }
        break
    }
  }
  return Result.succeed(out)
}

/** The tools as chat-completions `tools`, or why one cannot be sent. */
export const toChatTools = (tools: ReadonlyArray<Tool.Any>): Result.Result<Array<unknown>, string> => {
  const out: Array<unknown> = []
  for (const tool of tools) {
    if (Tool.isProviderDefined(tool)) {
      return Result.fail(`the provider-defined tool ${tool.name} cannot be sent to an OpenAI-compatible server`)
    }
    const description = Tool.getDescription(tool)
    out.push({
      type: "function",
      function: {
        name: tool.name,
        ...(description === undefined ? {} : { description }),
        parameters: Tool.getJsonSchema(tool)
      }
    })
  }
  return Result.succeed(out)
}

/** `tool_choice`, and the tools a `oneOf` choice narrows the list to. */
export const toChatToolChoice = (
  choice: LanguageModel.ToolChoice<string>
): { readonly toolChoice: unknown; readonly only: ReadonlyArray<string> | undefined } => {
  if (Predicate.isString(choice)) return { toolChoice: choice, only: undefined }
  if ("tool" in choice) return { toolChoice: { type: "function", function: { name: choice.tool } }, only: undefined }
  return { toolChoice: choice.mode ?? "auto", only: choice.oneOf }
}

const Count = Schema.optional(Schema.NullOr(Schema.Number))

/** The part of a chat-completions response body this provider reads. */
export const ChatCompletion = Schema.Struct({
  id: Schema.optional(Schema.NullOr(Schema.String)),
  model: Schema.optional(Schema.NullOr(Schema.String)),
  created: Count,
  choices: Schema.NonEmptyArray(Schema.Struct({
    finish_reason: Schema.optional(Schema.NullOr(Schema.String)),
    message: Schema.Struct({
      content: Schema.optional(Schema.NullOr(Schema.String)),
      reasoning_content: Schema.optional(Schema.NullOr(Schema.String)),
      tool_calls: Schema.optional(Schema.NullOr(Schema.Array(Schema.Struct({
        id: Schema.String,
        function: Schema.Struct({ name: Schema.String, arguments: Schema.optional(Schema.NullOr(Schema.String)) })
      }))))
    })
  })),
  usage: Schema.optional(Schema.NullOr(Schema.Struct({
    prompt_tokens: Count,
    completion_tokens: Count,
    prompt_tokens_details: Schema.optional(Schema.NullOr(Schema.Struct({ cached_tokens: Count }))),
    completion_tokens_details: Schema.optional(Schema.NullOr(Schema.Struct({ reasoning_tokens: Count })))
  })))
})

/** A decoded chat-completions response body. */
export type ChatCompletion = typeof ChatCompletion.Type

const finishReasons: Readonly<Record<string, Response.FinishReason>> = {
  stop: "stop",
  length: "length",
  tool_calls: "tool-calls",
  function_call: "tool-calls",
  content_filter: "content-filter"
}

const int = (n: number | null | undefined): number | undefined =>
  Predicate.isNumber(n) && Number.isFinite(n) && n >= 0 ? Math.round(n) : undefined

/** The response's parts, or the name of the tool call whose arguments are not JSON. */
export const fromChatCompletion = (
  body: ChatCompletion
): Result.Result<Array<Response.PartEncoded>, string> => {
  const choice = body.choices[0]
  const parts: Array<Response.PartEncoded> = []
  parts.push({
    type: "response-metadata",
    ...(Predicate.isString(body.id) ? { id: body.id } : {}),
    ...(Predicate.isString(body.model) ? { modelId: body.model } : {}),
    ...(int(body.created) === undefined ? {} : { timestamp: new Date((int(body.created) ?? 0) * 1000).toISOString() })
  })
  const reasoning = choice.message.reasoning_content
  if (Predicate.isString(reasoning) && reasoning.length > 0) parts.push({ type: "reasoning", text: reasoning })
  const content = choice.message.content
  if (Predicate.isString(content) && content.length > 0) parts.push({ type: "text", text: content })
  for (const call of choice.message.tool_calls ?? []) {
    const raw = call.function.arguments ?? ""
    let params: unknown = {}
    if (raw.trim().length > 0) {
      const parsed = Result.try(() => Tool.unsafeSecureJsonParse(raw))
      if (Result.isFailure(parsed)) return Result.fail(call.function.name)
      params = parsed.success
    }
    parts.push({ type: "tool-call", id: call.id, name: call.function.name, params, providerExecuted: false })
  }
  const usage = body.usage
  const input = int(usage?.prompt_tokens)
  const cached = int(usage?.prompt_tokens_details?.cached_tokens)
  const output = int(usage?.completion_tokens)
  const reasoningTokens = int(usage?.completion_tokens_details?.reasoning_tokens)
  parts.push({
    type: "finish",
    reason: finishReasons[choice.finish_reason ?? ""] ??
      (Predicate.isString(choice.finish_reason) ? "other" : "unknown"),
    usage: {
      inputTokens: {
        total: input,
        cacheRead: cached,
        uncached: input === undefined ? undefined : input - (cached ?? 0),
        cacheWrite: undefined
      },
      outputTokens: {
        total: output,
        reasoning: reasoningTokens,
        text: output === undefined ? undefined : output - (reasoningTokens ?? 0)
      }
    }
  })
  return Result.succeed(parts)
}

/** The classifiable fields of an error body, as OpenAI, llama.cpp, vLLM, Ollama and LiteLLM write them. */
export interface ErrorFields {
  readonly message: string | undefined
  readonly type: string | undefined
  readonly code: string | undefined
  readonly param: string | undefined
  readonly nPromptTokens: number | undefined
  readonly nCtx: number | undefined
}

const field = (record: unknown, key: string): unknown =>
  Predicate.isObject(record) ? Reflect.get(record, key) : undefined

const str = (value: unknown): string | undefined =>
  Predicate.isString(value) && value.length > 0
    ? value
    : Predicate.isNumber(value) && Number.isFinite(value)
    ? String(value)
    : undefined

/** One line, at most 300 characters: a provider's message, never its whole body. */
const oneLine = (text: string | undefined): string | undefined => {
  if (text === undefined) return undefined
  const line = text.replace(/\s+/g, " ").trim()
  return line.length > 300 ? `${line.slice(0, 299)}…` : line
}

/** The fields of a parsed error body: `{ error: { message, type, code, param, n_prompt_tokens, n_ctx } }`, `{ error: "…" }` or `{ message, type, code }`. */
export const errorFields = (body: unknown): ErrorFields => {
  const inner = field(body, "error")
  const error = Predicate.isObject(inner) ? inner : body
  const message = Predicate.isString(inner) ? inner : str(field(error, "message")) ?? str(field(body, "detail"))
  const count = (key: string): number | undefined => {
    const value = field(error, key)
    return Predicate.isNumber(value) && Number.isFinite(value) ? value : undefined
  }
  return {
    message: oneLine(message),
    type: str(field(error, "type")),
    code: str(field(error, "code")),
    param: str(field(error, "param")),
    nPromptTokens: count("n_prompt_tokens"),
    nCtx: count("n_ctx")
  }
}
