/**
 * Response parts as stream parts, for a `streamText` served by one non-streaming request.
 *
 * @internal
 */
import type * as Response from "effect/ai/Response"

/** One finished part as the stream parts that announce, carry and close it. */
export const toStreamParts = (part: Response.PartEncoded): ReadonlyArray<Response.StreamPartEncoded> => {
  switch (part.type) {
    case "text":
      return [{ type: "text-start", id: "text" }, { type: "text-delta", id: "text", delta: part.text }, {
        type: "text-end",
        id: "text"
      }]
    case "reasoning":
      return [{ type: "reasoning-start", id: "reasoning" }, {
        type: "reasoning-delta",
        id: "reasoning",
        delta: part.text
      }, { type: "reasoning-end", id: "reasoning" }]
    case "tool-call":
    case "response-metadata":
    case "finish":
      return [part]
    default:
      return []
  }
}
