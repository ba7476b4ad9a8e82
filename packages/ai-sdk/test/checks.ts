/**
 * Independent checks of what an AI SDK app sends, shared by the ai-sdk tests and the `aiSdk` benchmark: written
 * against the SDK's own shapes (`ModelMessage` parts, the provider prompt the model receives), not through the
 * `formats.aiSdk` lens that the code under test uses.
 */
import type { ModelMessage } from "ai"
import type { MockLanguageModelV4 } from "ai/test"

/** The prompt a model receives (the provider-level prompt), as the SDK's own mock records it. */
export type ModelPrompt = MockLanguageModelV4["doGenerateCalls"][number]["prompt"]

interface PartIds {
  readonly calls: Array<string>
  readonly results: Array<string>
  readonly requests: Array<{ readonly approvalId: string; readonly toolCallId: string }>
  readonly responses: Array<string>
}

const partsOf = (messages: ReadonlyArray<ModelMessage>): PartIds => {
  const ids: PartIds = { calls: [], results: [], requests: [], responses: [] }
  for (const message of messages) {
    if (typeof message.content === "string") continue
    for (const part of message.content) {
      switch (part.type) {
        case "tool-call":
          ids.calls.push(part.toolCallId)
          break
        case "tool-result":
          ids.results.push(part.toolCallId)
          break
        case "tool-approval-request":
          ids.requests.push({ approvalId: part.approvalId, toolCallId: part.toolCallId })
          break
        case "tool-approval-response":
          ids.responses.push(part.approvalId)
          break
      }
    }
  }
  return ids
}

/**
 * What is wrong with the pairs of `sent`, a selection of `input` (empty when nothing): a call kept without its
 * result or a result without its call (when the input has both), an approval request without its call, and an
 * approval request or response kept without the other (when the input has both).
 */
export const pairProblems = (input: ReadonlyArray<ModelMessage>, sent: ReadonlyArray<ModelMessage>): Array<string> => {
  const all = partsOf(input)
  const out = partsOf(sent)
  const problems: Array<string> = []
  const inputCalls = new Set(all.calls)
  const inputResults = new Set(all.results)
  const calls = new Set(out.calls)
  const results = new Set(out.results)
  for (const id of calls) if (inputResults.has(id) && !results.has(id)) problems.push(`call ${id} without its result`)
  for (const id of results) if (inputCalls.has(id) && !calls.has(id)) problems.push(`result ${id} without its call`)
  const inputResponses = new Set(all.responses)
  const requests = new Set(out.requests.map((r) => r.approvalId))
  const responses = new Set(out.responses)
  for (const request of out.requests) {
    if (!calls.has(request.toolCallId)) problems.push(`approval ${request.approvalId} without its call`)
    if (inputResponses.has(request.approvalId) && !responses.has(request.approvalId)) {
      problems.push(`approval request ${request.approvalId} without its response`)
    }
  }
  const inputRequests = new Set(all.requests.map((r) => r.approvalId))
  for (const id of responses) {
    if (inputRequests.has(id) && !requests.has(id)) problems.push(`approval response ${id} without its request`)
  }
  return problems
}

/** A tool call of the prompt the model receives without its result, or a result without its call. */
export const promptPairProblems = (prompt: ModelPrompt): Array<string> => {
  const calls = new Set<string>()
  const results = new Set<string>()
  for (const message of prompt) {
    if (message.role === "system") continue
    for (const part of message.content) {
      if (part.type === "tool-call") calls.add(part.toolCallId)
      if (part.type === "tool-result") results.add(part.toolCallId)
    }
  }
  return [
    ...[...calls].filter((id) => !results.has(id)).map((id) => `call ${id} without its result`),
    ...[...results].filter((id) => !calls.has(id)).map((id) => `result ${id} without its call`)
  ]
}

/** The text of a prompt message (text parts joined), for finding a message the model received. */
export const promptText = (message: ModelPrompt[number]): string =>
  message.role === "system"
    ? message.content
    : message.content.map((part) => part.type === "text" ? part.text : "").join("")

/** The text of a model message's text parts, for the same purpose. */
export const messageText = (message: ModelMessage): string =>
  typeof message.content === "string"
    ? message.content
    : message.content.map((part) => part.type === "text" ? part.text : "").join("")

/** The current request: the last user message that is not a ctxkit summary. */
export const currentRequest = (messages: ReadonlyArray<ModelMessage>): ModelMessage | undefined => {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]
    if (message?.role !== "user") continue
    const ctxkit = message.providerOptions?.["ctxkit"]
    if (ctxkit !== undefined && ctxkit["summary"] === true) continue
    return message
  }
  return undefined
}
