/**
 * The offline side of the harness: reply scripts for the scripted Ollama-like server that behave like a small
 * agent. Each sees only the messages the server KEPT, so a server that truncated the prompt makes it answer
 * without the task — the failure the tutorial is about.
 */
import type { ScriptedReply, WireMessage } from "@ctxkit/testing/OllamaLikeServer"
import * as path from "node:path"

/** The folder of the eight-files task: eight source files of a small sample shop. */
export const SAMPLE_WORKSPACE = path.join(import.meta.dirname, "sample")

/** The tutorial's first task, on the sample folder. */
export const EIGHT_FILES_TASK =
  "Read the eight files of this workspace whole and tell me which of these eight files is the longest."

/** What a small model says when the task is gone from what it was given (the tutorial's run, word for word). */
export const LOST_TASK_REPLY =
  "Ready to continue or answer any specific questions about the code. What would you like to know?"

const contentOf = (message: WireMessage): string => typeof message.content === "string" ? message.content : ""

/** Sizes the script can still see: `path  N bytes` lines of a listing (or a summary quoting one). */
const sizesIn = (text: string): Map<string, number> => {
  const sizes = new Map<string, number>()
  for (const match of text.matchAll(/([\w./-]+\.\w+)\s+(\d+) bytes/g)) {
    sizes.set(match[1] ?? "", Number(match[2]))
  }
  return sizes
}

/** The paths of every `read_file` the script can still see: calls in view, or a checkpoint's list of them. */
const readPaths = (kept: ReadonlyArray<WireMessage>): Set<string> => {
  const paths = new Set<string>()
  for (const message of kept) {
    for (const call of message.tool_calls ?? []) {
      const fn = typeof call === "object" && call !== null ? Reflect.get(call, "function") : undefined
      if (typeof fn !== "object" || fn === null || Reflect.get(fn, "name") !== "read_file") continue
      const args = Reflect.get(fn, "arguments")
      const match = typeof args === "string" ? /"path":"([^"]+)"/.exec(args) : null
      if (match?.[1] !== undefined) paths.add(match[1])
    }
    if (message.role === "user") {
      for (const match of contentOf(message).matchAll(/read_file \{"path":"([^"]+)"\}/g)) {
        if (match[1] !== undefined) paths.add(match[1])
      }
    }
  }
  return paths
}

/** How many files the small agent reads per turn (parallel calls). */
const READS_PER_TURN = 2

/**
 * The small agent of the eight-files task: it lists the folder, reads the files two at a time (parallel calls),
 * lists again when the listing was cleared, and names the longest from the sizes it sees. Without the task in
 * view, it answers like the tutorial's 7B model did after losing it.
 */
export const eightFilesAgent = (kept: ReadonlyArray<WireMessage>): ScriptedReply => {
  if (!kept.some((m) => m.role === "user" && /longest/.test(contentOf(m)))) return { content: LOST_TASK_REPLY }
  const sizes = sizesIn(kept.filter((m) => m.role === "tool").map(contentOf).join("\n"))
  const read = readPaths(kept)
  const everRead = read.size > 0
  if (sizes.size === 0) {
    // No listing in view: list (again, when it was cleared; the cleared note says to run the tool again).
    return { toolCalls: [{ name: "list_files", arguments: { dir: "." } }] }
  }
  const unread = [...sizes.keys()].filter((file) => !read.has(file))
  if (unread.length > 0 && !(everRead && unread.length === sizes.size)) {
    return {
      toolCalls: unread.slice(0, READS_PER_TURN).map((file) => ({ name: "read_file", arguments: { path: file } }))
    }
  }
  if (unread.length > 0) {
    return {
      toolCalls: unread.slice(0, READS_PER_TURN).map((file) => ({ name: "read_file", arguments: { path: file } }))
    }
  }
  const longest = [...sizes.entries()].sort((a, b) => b[1] - a[1])[0]
  return longest === undefined
    ? { content: "I read the files, but I can no longer see their sizes." }
    : { content: `The longest of the eight files is ${longest[0]} (${longest[1].toLocaleString("en-US")} bytes).` }
}
