/**
 * Renders scenarios as LangChain messages, cycling message by message through the three shapes the lens
 * reads: plain `{ type, … }` objects, their `JSON.stringify` form (`{ lc: 1, type: "constructor", id,
 * kwargs }`) and `StoredMessage`s (`{ type, data }`).
 *
 * @internal
 */
import type { LangChainFields, LangChainMessage, LangChainToolCall } from "@ctxkit/core/formats/LangChain"
import type { Rendered, Scenario, ScenarioCall } from "../../Scenario.ts"

type Kind = "human" | "ai" | "system" | "tool"

const CLASSES: { readonly [K in Kind]: string } = {
  human: "HumanMessage",
  ai: "AIMessage",
  system: "SystemMessage",
  tool: "ToolMessage"
}

/** The call's args when its arguments are a JSON object that prints back identically. */
const argsOf = (call: ScenarioCall): Readonly<Record<string, unknown>> | undefined => {
  try {
    const parsed: unknown = JSON.parse(call.arguments)
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) &&
        JSON.stringify(parsed) === call.arguments
      ? parsed as Readonly<Record<string, unknown>>
      : undefined
  } catch {
    return undefined
  }
}

const shaped = (index: number, kind: Kind, fields: LangChainFields, pinned: boolean): LangChainMessage => {
  const pin = pinned ? { pinned: true } : {}
  switch (index % 3) {
    case 0:
      return { type: kind, ...fields, ...pin }
    case 1:
      return {
        lc: 1,
        type: "constructor",
        id: ["langchain_core", "messages", CLASSES[kind]],
        kwargs: { additional_kwargs: {}, response_metadata: {}, ...fields },
        ...pin
      }
    default:
      return { type: kind, data: { additional_kwargs: {}, response_metadata: {}, ...fields }, ...pin }
  }
}

/** The fields of an AI message issuing `calls`: `tool_calls`, or OpenAI-shaped raw calls for arguments that are not a JSON object. */
const callFields = (calls: ReadonlyArray<ScenarioCall>): LangChainFields => {
  if (calls.length === 0) return {}
  const parsed: Array<LangChainToolCall> = []
  for (const call of calls) {
    const args = argsOf(call)
    if (args === undefined) {
      return {
        tool_calls: [],
        additional_kwargs: {
          tool_calls: calls.map((c) => ({
            id: c.id,
            type: "function",
            function: { name: c.name, arguments: c.arguments }
          }))
        }
      }
    }
    parsed.push({ id: call.id, name: call.name, args, type: "tool_call" })
  }
  return { tool_calls: parsed }
}

export const render = (scenario: Scenario): Rendered<LangChainMessage> => {
  const messages: Array<LangChainMessage> = []
  const keys: Array<ReadonlyArray<string>> = []
  const push = (kind: Kind, fields: LangChainFields, pinned: boolean, messageKeys: ReadonlyArray<string>): void => {
    messages.push(shaped(messages.length, kind, fields, pinned))
    keys.push(messageKeys)
  }
  for (const turn of scenario.turns) {
    switch (turn.kind) {
      case "system":
        // A source other than the system travels in ctxkit's `additional_kwargs`, where the lens reads it.
        push(
          "system",
          {
            content: turn.text,
            ...(turn.source === "system" ? {} : { additional_kwargs: { ctxkit: { source: turn.source } } })
          },
          turn.pinned,
          []
        )
        break
      case "user":
        push(
          "human",
          { content: turn.text, ...(turn.summary ? { additional_kwargs: { ctxkit: { summary: true } } } : {}) },
          turn.pinned,
          []
        )
        break
      case "assistant":
        // LangChain messages carry no portable reasoning, and no approvals: approval ids are dropped.
        push("ai", { content: turn.text, ...callFields(turn.calls) }, false, turn.calls.map((c) => `call:${c.id}`))
        break
      case "results":
        for (const result of turn.results) {
          push(
            "tool",
            {
              content: result.text,
              tool_call_id: result.callId,
              name: result.name,
              status: result.isError ? "error" : "success"
            },
            false,
            [`call:${result.callId}`]
          )
        }
        break
      case "approval":
        push("human", { content: turn.approved ? "Approved." : "Denied." }, false, [])
        break
    }
  }
  return { messages, keys }
}
