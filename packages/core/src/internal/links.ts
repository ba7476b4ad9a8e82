/**
 * The link visitor shared by formats that keep a result's call id in one top-level field and the calls in
 * one top-level array of `{ id }` objects (canonical: `toolCallId` / `toolCalls`; Chat Completions:
 * `tool_call_id` / `tool_calls`).
 *
 * @internal
 */
import type { Link } from "../MessageFormat.ts"
import { isRecord } from "./read.ts"

/** A `forEachLink` reading `message[resultKey]` and `message[callsKey][].id`, allocating nothing. */
export const topLevelLinks = (resultKey: string, callsKey: string) =>
(
  message: unknown,
  visit: (kind: Link["kind"], id: string) => void
): void => {
  if (!isRecord(message)) return
  const callId = message[resultKey]
  if (typeof callId === "string") return visit("result", callId)
  const calls = message[callsKey]
  if (!Array.isArray(calls)) return
  for (const call of calls) {
    const id = isRecord(call) ? call["id"] : undefined
    if (typeof id === "string") visit("call", id)
  }
}
