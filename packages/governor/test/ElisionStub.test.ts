import { elisionStub } from "@ctxkit/governor"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"

describe("elisionStub (exact strings, policy 1)", () => {
  it("read_file: @ + the first 8 hex digits of the sha256, or @unknown", () => {
    assert.strictEqual(
      elisionStub({ kind: "read_file", path: "src/a.ts", sha256: "1a2b3c4d5e6f7a8b9c0d" }),
      "[elided: read_file \"src/a.ts\"@1a2b3c4d; re-read to view]"
    )
    assert.strictEqual(
      elisionStub({ kind: "read_file", path: "src/a.ts" }),
      "[elided: read_file \"src/a.ts\"@unknown; re-read to view]"
    )
    // Upper-case digests are shown lower-case; something that is not hex is unknown.
    assert.strictEqual(
      elisionStub({ kind: "read_file", path: "a", sha256: "ABCDEF0123456789" }),
      "[elided: read_file \"a\"@abcdef01; re-read to view]"
    )
    assert.strictEqual(
      elisionStub({ kind: "read_file", path: "a", sha256: "not-a-digest" }),
      "[elided: read_file \"a\"@unknown; re-read to view]"
    )
  })

  it("read_file ranges: ` lines S+L` before the `;`, S defaults to 1, L omitted when absent", () => {
    assert.strictEqual(
      elisionStub({ kind: "read_file", path: "src/a.ts", sha256: "1a2b3c4d", startLine: 10, limit: 50 }),
      "[elided: read_file \"src/a.ts\"@1a2b3c4d lines 10+50; re-read to view]"
    )
    assert.strictEqual(
      elisionStub({ kind: "read_file", path: "src/a.ts", startLine: 10 }),
      "[elided: read_file \"src/a.ts\"@unknown lines 10+; re-read to view]"
    )
    assert.strictEqual(
      elisionStub({ kind: "read_file", path: "src/a.ts", limit: 50 }),
      "[elided: read_file \"src/a.ts\"@unknown lines 1+50; re-read to view]"
    )
    // A range that is not a non-negative integer is no range.
    assert.strictEqual(
      elisionStub({ kind: "read_file", path: "a", startLine: Number.NaN, limit: -3 }),
      "[elided: read_file \"a\"@unknown; re-read to view]"
    )
  })

  it("escapes paths as JSON with every non-ASCII character as \\uXXXX (surrogate pairs as two escapes)", () => {
    assert.strictEqual(
      elisionStub({ kind: "read_file", path: "docs/café 🚀.md" }),
      "[elided: read_file \"docs/caf\\u00e9 \\ud83d\\ude80.md\"@unknown; re-read to view]"
    )
    assert.strictEqual(
      elisionStub({ kind: "read_file", path: "a\nb\t\"c\"\\d\u007f" }),
      "[elided: read_file \"a\\nb\\t\\\"c\\\"\\\\d\\u007f\"@unknown; re-read to view]"
    )
  })

  it("bg_output: the task id and the offset (default 0)", () => {
    assert.strictEqual(
      elisionStub({ kind: "bg_output", taskId: "task-id" }),
      "[elided: bg_output \"task-id\" offset 0; a later bg_output covers it]"
    )
    assert.strictEqual(
      elisionStub({ kind: "bg_output", taskId: "t\u00e9", offset: 4096 }),
      "[elided: bg_output \"t\\u00e9\" offset 4096; a later bg_output covers it]"
    )
  })

  it("search_text: the pattern, quotes and backslashes escaped", () => {
    assert.strictEqual(
      elisionStub({ kind: "search_text", pattern: "pattern" }),
      "[elided: search_text \"pattern\"; identical to a later result]"
    )
    assert.strictEqual(
      elisionStub({ kind: "search_text", pattern: "say \"hi\" \\d+ 'x'" }),
      "[elided: search_text \"say \\\"hi\\\" \\\\d+ 'x'\"; identical to a later result]"
    )
    assert.strictEqual(
      elisionStub({ kind: "search_text", pattern: "naïve\u0000" }),
      "[elided: search_text \"na\\u00efve\\u0000\"; identical to a later result]"
    )
  })

  it("is always one line of printable ASCII whose quoted part reads back as the original (property)", () => {
    const anyText = fc.oneof(fc.string(), fc.string({ unit: "grapheme" }), fc.string({ unit: "binary" }))
    fc.assert(
      fc.property(anyText, fc.option(fc.nat(), { nil: undefined }), (text, n) => {
        for (
          const stub of [
            elisionStub({ kind: "read_file", path: text, ...(n === undefined ? {} : { startLine: n }) }),
            elisionStub({ kind: "bg_output", taskId: text }),
            elisionStub({ kind: "search_text", pattern: text })
          ]
        ) {
          assert.match(stub, /^[\x20-\x7e]*$/)
          const quoted = /^\[elided: \w+ ("(?:[^"\\]|\\.)*")/.exec(stub)?.[1]
          assert.isDefined(quoted)
          assert.strictEqual(JSON.parse(quoted ?? ""), text)
        }
      }),
      { numRuns: runs.many }
    )
  })
})
