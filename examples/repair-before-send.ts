/**
 * Before sending a Chat Completions request: find the tool-call groups of your own messages and make sure
 * no call is left without a result and no result without its call — the request providers reject.
 *
 * Run: npx node --conditions=@ctxkit/source examples/repair-before-send.ts
 */
import { formats, type OpenAiChatMessage, repairPairs, toolGroups } from "@ctxkit/core"

// A conversation as an agent stores it. The harness crashed while `run_tests` was running, and an older
// trim left the result of a call whose assistant message is gone.
const messages: ReadonlyArray<OpenAiChatMessage> = [
  { role: "system", content: "You are a coding agent working in /repo." },
  { role: "tool", tool_call_id: "call_old", content: "…output of a call trimmed away earlier…" },
  { role: "user", content: "Fix the failing test in parser.ts" },
  {
    role: "assistant",
    content: null,
    tool_calls: [
      { id: "call_read", type: "function", function: { name: "read_file", arguments: "{\"path\":\"parser.ts\"}" } },
      { id: "call_test", type: "function", function: { name: "run_tests", arguments: "{}" } }
    ]
  },
  { role: "tool", tool_call_id: "call_read", content: "export const parse = …" }
]

const { diagnostics, groups } = toolGroups(messages, formats.openaiChat)
console.log("groups:", JSON.stringify(groups))
for (const d of diagnostics) console.log(`${d._tag}: ${d.message}`)

const repaired = repairPairs(messages, { format: formats.openaiChat, dangling: "stub" })
for (const change of repaired.changes) console.log(`${change._tag} at messages[${change.index}]`)
console.log(JSON.stringify(repaired.messages, null, 2))
