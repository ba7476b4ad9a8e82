/**
 * A scripted server for tests: it answers like Ollama with a context window of `window` tokens, in the two ways
 * the tutorial measured. `plateau`: the prompt does not fit, so the oldest messages after the system prompt
 * are dropped until it does, and the tokens KEPT are reported. `collapse`: the prompt does not fit, and a tiny
 * prompt size (63) is reported. Either way the answer is HTTP 200 with a normal stop reason.
 *
 * Its "true" token count is a deterministic tokenizer that differs from the harness's estimate (characters / 4)
 * by a factor between 1.00 and 1.48, as real tokenizers do between code and JSON, plus a few template tokens a
 * message. Also the driver that replays a conversation through the server and the detector, one request per
 * assistant turn, the prompt being every message before it.
 */
import { approximateCounter } from "@ctxkit/budget"
import { tokenFloor } from "@ctxkit/budget/TokenFloor"
import type { MessageFormat, Role } from "@ctxkit/core"
import { OverflowDetector, type OverflowDetectorState, type OverflowVerdict } from "@ctxkit/overflow"

/** The estimator's per-message overhead (tokens), added to the approximate count of each message's text. */
export const ESTIMATE_PER_MESSAGE = 4
/** The server's chat-template tokens per message (role markers, separators). */
export const TEMPLATE_PER_MESSAGE = 4
/** What a collapsing server reports for a prompt that does not fit (the tutorial's measured figure). */
export const COLLAPSE_TOKENS = 63

/** A tokenizer: text → tokens. */
export type Tokenizer = (text: string) => number

/** The harness's estimate of one message's text: characters / 4, rounded up. */
export const estimateText: Tokenizer = (text) => approximateCounter.count(text)

/** A tokenizer that counts `factor` (1.00–1.48) times the estimate, rounded up. */
export const scaledTokenizer = (factor: number): Tokenizer => (text) => Math.ceil(estimateText(text) * factor)

/** FNV-1a over UTF-16 code units: a deterministic hash, so a message's factor depends on its text only. */
const fnv1a = (text: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h
}

/** A factor between 1.00 and 1.48 picked by a hash of `key`: deterministic, and different from key to key. */
export const factorOf = (key: string): number => 1 + 0.48 * ((fnv1a(key) % 1_001) / 1_000)

/**
 * A tokenizer whose factor varies from text to text, between 1.00 and 1.48 (code-like to JSON-like), decided by
 * a hash of the text: deterministic, and not a constant ratio.
 */
export const mixedTokenizer: Tokenizer = (text) => Math.ceil(estimateText(text) * factorOf(text))

/** How the scripted server behaves when a prompt does not fit. */
export type ServerMode = "plateau" | "collapse"

/** A scripted server: its window, what it does on overflow, and its own tokenizer. */
export interface ScriptedServer {
  readonly window: number
  readonly mode: ServerMode
  readonly tokenizer: Tokenizer
  /** The chat-template tokens of a message of this role; default {@link TEMPLATE_PER_MESSAGE} for every role. */
  readonly template?: ((role: Role) => number) | undefined
}

/** What the server answered for one prompt, with the ground truth the harness never sees. */
export interface Reply {
  /** The prompt size it reported. */
  readonly tokens: number
  /** Ground truth: the true size of the whole prompt. */
  readonly total: number
  /** Ground truth: the prompt did not fit and part of it was dropped. */
  readonly truncated: boolean
  /** Ground truth: how many true tokens were dropped (the whole prompt, for a collapse). */
  readonly dropped: number
}

/** The true size of one message on the server: its text by the server's tokenizer, plus the template. */
export const serverSize = <M>(server: ScriptedServer, format: MessageFormat<M>, message: M): number =>
  server.tokenizer(format.text(message)) + (server.template?.(format.role(message)) ?? TEMPLATE_PER_MESSAGE)

/**
 * The server's answer to a prompt given as the true size of each message and whether it is a system message
 * (what `answer` computes from the messages; `replay` computes them once per conversation).
 */
export const answerSizes = (
  server: ScriptedServer,
  sizes: ReadonlyArray<number>,
  isSystem: ReadonlyArray<boolean>
): Reply => {
  const total = sizes.reduce((a, b) => a + b, 0)
  if (total <= server.window) return { tokens: total, total, truncated: false, dropped: 0 }
  if (server.mode === "collapse") return { tokens: COLLAPSE_TOKENS, total, truncated: true, dropped: total }
  // Plateau: system messages stay, and so does the latest message; the oldest of the others go first, until
  // the rest fits. If it still does not fit, the server cuts tokens and fills its window.
  let kept = total
  for (let i = 0; i < sizes.length - 1 && kept > server.window; i++) {
    // `i` is within `sizes`, and `isSystem` has one entry per message.
    if (!isSystem[i]!) kept -= sizes[i]!
  }
  const tokens = Math.min(kept, server.window)
  return { tokens, total, truncated: true, dropped: total - tokens }
}

/** The server's answer to one prompt. */
export const answer = <M>(server: ScriptedServer, format: MessageFormat<M>, prompt: ReadonlyArray<M>): Reply =>
  answerSizes(
    server,
    prompt.map((m) => serverSize(server, format, m)),
    prompt.map((m) => format.role(m) === "system")
  )

/** One request of a replay: its prompt length, estimate, the server's reply and the detector's verdict. */
export interface Step {
  /** The prompt is `messages.slice(0, at)`; `messages[at]` is the assistant turn that answers it. */
  readonly at: number
  readonly estimate: number
  readonly reply: Reply
  readonly verdict: OverflowVerdict
}

/** How the harness estimates a request, message by message. */
export type Estimator = <M>(format: MessageFormat<M>, message: M) => number

/** The default estimate of a message: characters / 4 plus a per-message overhead. */
export const approximateEstimate: Estimator = (format, message) =>
  estimateText(format.text(message)) + ESTIMATE_PER_MESSAGE

/** The exact counter for the served model: the server's own tokenizer, without the chat template. */
export const exactEstimate = (tokenizer: Tokenizer): Estimator => (format, message) => tokenizer(format.text(message))

/**
 * The token floor of one message as a harness computes it: `tokenFloor` of each tool result's text, or of the
 * message's own text (never tool-call arguments or reasoning, which a template may re-serialize or drop).
 */
export const messageFloor: Estimator = (format, message) => {
  const results = format.toolResults(message)
  return results.length > 0
    ? results.reduce((sum, result) => sum + tokenFloor(result.text), 0)
    : tokenFloor(format.ownText(message))
}

/**
 * Replays a conversation through a server and the detector: one request per assistant message (the prompt
 * being every message before it), its usage observed by the detector. Per-message estimates are computed once.
 */
export const replay = <M>(
  messages: ReadonlyArray<M>,
  format: MessageFormat<M>,
  server: ScriptedServer,
  options: {
    readonly detector?: OverflowDetectorState | undefined
    readonly estimator?: Estimator | undefined
    /** The token floor of a message (see {@link messageFloor}); none given when absent. */
    readonly floor?: Estimator | undefined
  } = {}
): { readonly steps: ReadonlyArray<Step>; readonly detector: OverflowDetectorState } => {
  const estimateOf = options.estimator ?? approximateEstimate
  let detector = options.detector ?? OverflowDetector.initial()
  const sizes = messages.map((m) => serverSize(server, format, m))
  const isSystem = messages.map((m) => format.role(m) === "system")
  const steps: Array<Step> = []
  let estimate = 0
  let floor = 0
  for (let at = 0; at < messages.length; at++) {
    // `at` is within `messages`.
    const message = messages[at]!
    if (format.role(message) === "assistant" && at > 0) {
      const reply = answerSizes(server, sizes.slice(0, at), isSystem.slice(0, at))
      const observed = OverflowDetector.observe(
        detector,
        options.floor === undefined ? { tokens: reply.tokens, estimate } : { tokens: reply.tokens, estimate, floor }
      )
      detector = observed.state
      steps.push({ at, estimate, reply, verdict: observed.verdict })
    }
    estimate += estimateOf(format, message)
    if (options.floor !== undefined) floor += options.floor(format, message)
  }
  return { steps, detector }
}
