import { isTrustedWindow } from "@ctxkit/budget/Window"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"
import {
  numCtxParameter,
  readCatalogModels,
  readLiteLlm,
  readLlamaModels,
  readLlamaProps,
  readLmStudioV0,
  readLmStudioV1,
  readOllamaPs,
  readOllamaShow,
  readOpenRouterModels,
  readVllmModels
} from "../src/internal/windowRead.ts"
import { liteLlmGroup, llamaProps, ollamaShow, vllmModels } from "./WindowShapes.ts"

const readers = [
  readLlamaProps,
  (body: unknown) => readLlamaModels(body, undefined),
  (body: unknown) => readOllamaPs(body, "m"),
  (body: unknown) => readOllamaShow(body, "m"),
  (body: unknown) => readVllmModels(body, undefined),
  (body: unknown) => readOpenRouterModels(body, "m"),
  (body: unknown) => readLmStudioV1(body, undefined),
  (body: unknown) => readLmStudioV0(body, undefined),
  (body: unknown) => readLiteLlm(body, undefined),
  (body: unknown) => readCatalogModels("catalog", body, undefined)
]

/** A window value as servers might send it: sane, absurd, zero, negative, fractional, a string, null. */
const windowValue = fc.oneof(
  fc.integer({ min: 1, max: 2_000_000 }),
  fc.integer({ min: 2_000_001, max: 100_000_000 }),
  fc.constantFrom(0, -1, 4096.5, "8192", null, true),
  fc.double()
)

describe("window readers: laws over any body", () => {
  it("any JSON body: no reader throws, and an answer is always a trusted window", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (body) =>
        readers.every((read) => {
          const reading = read(body)
          return reading._tag === "Pass" || isTrustedWindow(reading.window)
        })),
      { numRuns: runs.many }
    )
  })

  it("a window value in any server's field: answered exactly when trusted, else a warning that shows it", () => {
    fc.assert(
      fc.property(windowValue, (value) => {
        const bodies = [
          readLlamaProps(llamaProps(value)),
          readVllmModels(vllmModels([["m", value]]), "m"),
          readLiteLlm({ data: [liteLlmGroup("m", value, 4096)] }, "m"),
          readOllamaShow(ollamaShow({ parameters: "", contextLength: value }), "m")
        ]
        return bodies.every((reading) =>
          isTrustedWindow(value) ?
            reading._tag === "Answer" && reading.window === Math.floor(value) :
            reading._tag === "Pass" && (value === null || reading.warnings.some((w) => w.includes("not trusted")))
        )
      }),
      { numRuns: runs.many }
    )
  })

  it("several listed models: `model` picks exactly its window; without it, the smallest trusted one", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/), fc.integer({ min: 1, max: 2_000_000 })), {
          minLength: 2,
          maxLength: 6,
          selector: ([id]) => id
        }),
        fc.nat(),
        (models, pick) => {
          const [id, window] = models[pick % models.length] ?? models[0] ?? ["", 0]
          const named = readVllmModels(vllmModels(models), id)
          const unnamed = readVllmModels(vllmModels(models), undefined)
          return named._tag === "Answer" && named.window === window && unnamed._tag === "Answer" &&
            unnamed.window === Math.min(...models.map(([, w]) => w))
        }
      ),
      { numRuns: runs.many }
    )
  })

  it("num_ctx is read from its own line only", () => {
    assert.strictEqual(numCtxParameter("num_keep 24\nnum_ctx 8192\nstop \"<|eot_id|>\""), "8192")
    assert.strictEqual(numCtxParameter("   num_ctx    32768   "), "32768")
    assert.isUndefined(numCtxParameter("stop \"num_ctx 4096\"\nnum_keep 4"))
  })
})
