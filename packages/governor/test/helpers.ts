/**
 * Small builders of canonical histories for the governor's tests.
 */
import type { Message } from "@ctxkit/core"

/** An assistant message issuing one call per `[id, name, args]`. */
export const calls = (...list: ReadonlyArray<readonly [string, string, unknown]>): Message => ({
  role: "assistant",
  content: "",
  toolCalls: list.map(([id, name, args]) => ({
    id,
    name,
    arguments: typeof args === "string" ? args : JSON.stringify(args)
  }))
})

/** An assistant message issuing one call. */
export const call = (id: string, name: string, args: unknown): Message => calls([id, name, args])

/** A tool result. */
export const result = (
  id: string,
  content: string,
  extra: { readonly isError?: boolean; readonly sha256?: string } = {}
): Message => ({ role: "tool", toolCallId: id, content, ...extra })

/** A normal user message. */
export const user = (content = "go on"): Message => ({ role: "user", content })

/** An assistant message with text only. */
export const say = (content = "ok"): Message => ({ role: "assistant", content })

/** A file body long enough for any stub to be shorter. */
export const body = (tag: string): string => `${tag}: ${"line of code\n".repeat(40)}`

/** `read_file` of the seed's tools. */
export const read = (id: string, path: string, extra: Record<string, unknown> = {}): Message =>
  call(id, "read_file", { path, ...extra })
