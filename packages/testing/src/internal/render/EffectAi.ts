/**
 * Renders scenarios as `effect/ai` `Prompt` messages: turns at even indices as decoded messages built with
 * `Prompt.makeMessage` / `Prompt.makePart`, the others in their encoded (plain JSON) form.
 *
 * @internal
 */
import type { EffectAiMessage, EffectAiPart } from "@ctxkit/core/formats/EffectAi"
import { Prompt } from "effect/ai"
import type { Rendered, Scenario, ScenarioCall, ScenarioTurn } from "../../Scenario.ts"

/** The call's params: its arguments parsed when they are JSON that prints back identically, else the raw text. */
const paramsOf = (call: ScenarioCall): unknown => {
  try {
    const parsed: unknown = JSON.parse(call.arguments)
    return JSON.stringify(parsed) === call.arguments ? parsed : call.arguments
  } catch {
    return call.arguments
  }
}

const keysOf = (turn: ScenarioTurn): ReadonlyArray<string> => {
  switch (turn.kind) {
    case "system":
    case "user":
      return []
    case "assistant":
      return turn.calls.flatMap((call) =>
        call.approvalId === undefined ? [`call:${call.id}`] : [`call:${call.id}`, `approval:${call.approvalId}`]
      )
    case "results":
      return turn.results.map((result) => `call:${result.callId}`)
    case "approval":
      return [`approval:${turn.approvalId}`]
  }
}

const summaryOptions = { ctxkit: { summary: true } }

const decoded = (turn: ScenarioTurn): EffectAiMessage => {
  switch (turn.kind) {
    case "system": {
      // A source other than the system travels in ctxkit's options, where the lens reads it.
      const message = Prompt.makeMessage("system", {
        content: turn.text,
        ...(turn.source === "system" ? {} : { options: { ctxkit: { source: turn.source } } })
      })
      return turn.pinned ? { ...message, pinned: true } : message
    }
    case "user": {
      const message = Prompt.makeMessage("user", {
        content: [Prompt.makePart("text", { text: turn.text })],
        ...(turn.summary ? { options: summaryOptions } : {})
      })
      return turn.pinned ? { ...message, pinned: true } : message
    }
    case "assistant": {
      const content: Array<Prompt.AssistantMessagePart> = []
      if (turn.reasoning !== undefined) content.push(Prompt.makePart("reasoning", { text: turn.reasoning }))
      if (turn.text !== "" || turn.calls.length === 0) content.push(Prompt.makePart("text", { text: turn.text }))
      for (const call of turn.calls) {
        content.push(
          Prompt.makePart("tool-call", {
            id: call.id,
            name: call.name,
            params: paramsOf(call),
            providerExecuted: false
          })
        )
        if (call.approvalId !== undefined) {
          content.push(Prompt.makePart("tool-approval-request", { approvalId: call.approvalId, toolCallId: call.id }))
        }
      }
      return Prompt.makeMessage("assistant", { content })
    }
    case "results":
      return Prompt.makeMessage("tool", {
        content: turn.results.map((result) =>
          Prompt.makePart("tool-result", {
            id: result.callId,
            name: result.name,
            isFailure: result.isError,
            result: result.text,
            providerExecuted: false
          })
        )
      })
    case "approval":
      return Prompt.makeMessage("tool", {
        content: [Prompt.makePart("tool-approval-response", { approvalId: turn.approvalId, approved: turn.approved })]
      })
  }
}

const encoded = (turn: ScenarioTurn): EffectAiMessage => {
  switch (turn.kind) {
    case "system":
      return {
        role: "system",
        content: turn.text,
        ...(turn.pinned ? { pinned: true } : {}),
        ...(turn.source === "system" ? {} : { options: { ctxkit: { source: turn.source } } })
      }
    case "user":
      return {
        role: "user",
        content: turn.text,
        ...(turn.pinned ? { pinned: true } : {}),
        ...(turn.summary ? { options: summaryOptions } : {})
      }
    case "assistant": {
      const content: Array<EffectAiPart> = []
      if (turn.reasoning !== undefined) content.push({ type: "reasoning", text: turn.reasoning })
      if (turn.text !== "" || turn.calls.length === 0) content.push({ type: "text", text: turn.text })
      for (const call of turn.calls) {
        content.push({ type: "tool-call", id: call.id, name: call.name, params: paramsOf(call) })
        if (call.approvalId !== undefined) {
          content.push({ type: "tool-approval-request", approvalId: call.approvalId, toolCallId: call.id })
        }
      }
      return { role: "assistant", content }
    }
    case "results":
      return {
        role: "tool",
        content: turn.results.map((result): EffectAiPart => ({
          type: "tool-result",
          id: result.callId,
          name: result.name,
          isFailure: result.isError,
          result: result.text
        }))
      }
    case "approval":
      return {
        role: "tool",
        content: [{ type: "tool-approval-response", approvalId: turn.approvalId, approved: turn.approved }]
      }
  }
}

export const render = (scenario: Scenario): Rendered<EffectAiMessage> => ({
  messages: scenario.turns.map((turn, index) => index % 2 === 0 ? decoded(turn) : encoded(turn)),
  keys: scenario.turns.map(keysOf)
})
