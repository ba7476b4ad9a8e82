import { formats, type Message } from "@ctxkit/core"
import {
  canonicalToolKinds,
  claudeCodeToolKinds,
  govern,
  seedToolKinds,
  sweAgentToolKinds,
  type ToolKinds
} from "@ctxkit/governor"
import type { GovernOptions } from "@ctxkit/governor/Govern"
import { assert, describe, it } from "@effect/vitest"
import { classifyCommand, commandWords, shellWords } from "../src/internal/shell.ts"
import { body, call, result, say, user } from "./helpers.ts"

const elided = (history: ReadonlyArray<Message>, toolKinds: ToolKinds, options: GovernOptions<Message> = {}) =>
  govern(history, { mode: "on", epochMessages: 0, format: formats.canonical, toolKinds, ...options }).elisions.map((
    e
  ) => [e.callId, e.reason, e.supersededBy, e.stub])

/** first call → its result → second call → its result → two assistant messages → a user message. */
const pair = (
  first: readonly [string, unknown],
  firstText: string,
  second: readonly [string, unknown],
  secondText = "ok"
): Array<Message> => [
  user(),
  call("c1", first[0], first[1]),
  result("c1", firstText),
  call("c2", second[0], second[1]),
  result("c2", secondText),
  say(),
  say(),
  user()
]

describe("shell commands", () => {
  it("splits words with quotes and escapes, and says when a command is not simple", () => {
    assert.deepStrictEqual(shellWords("grep -rn \"a b\" 'c d' e\\ f"), {
      words: ["grep", "-rn", "a b", "c d", "e f"],
      simple: true
    })
    for (const command of ["cat a | head", "cat a; ls", "cat a > b", "cat $(x)", "cat `x`", "a && b", "cat 'open"]) {
      assert.isFalse(shellWords(command).simple, command)
    }
    assert.deepStrictEqual(commandWords("python run.py --file=src/a.ts && cat 'b c.ts'"), [
      "python",
      "run.py",
      "--file",
      "src/a.ts",
      "cat",
      "b",
      "c.ts"
    ])
  })

  it("reads cat, nl, head and sed -n as reads, rm as an edit, grep as a search, ls/find as listings", () => {
    const kind = (command: string) => {
      const k = classifyCommand(command)
      const args = {}
      const context = { tool: "Bash", raw: "", currentFile: undefined }
      switch (k.kind) {
        case "read_file":
          return [k.kind, k.path(args, context), k.startLine?.(args, context), k.limit?.(args, context)]
        case "edit_file":
        case "write_file":
          return [k.kind, k.path(args, context)]
        case "search_text":
          return [k.kind, k.pattern(args, context)]
        default:
          return [k.kind]
      }
    }
    assert.deepStrictEqual(kind("cat src/a.ts"), ["read_file", "src/a.ts", undefined, undefined])
    assert.deepStrictEqual(kind("nl -ba src/a.ts"), ["read_file", "src/a.ts", undefined, undefined])
    assert.deepStrictEqual(kind("head -n 40 src/a.ts"), ["read_file", "src/a.ts", undefined, 40])
    assert.deepStrictEqual(kind("head src/a.ts"), ["read_file", "src/a.ts", undefined, 10])
    assert.deepStrictEqual(kind("sed -n '10,59p' src/a.ts"), ["read_file", "src/a.ts", 10, 50])
    assert.deepStrictEqual(kind("rm -f build.log"), ["edit_file", "build.log"])
    assert.deepStrictEqual(kind("grep -rn -e 'TODO' src | head"), ["search_text", "TODO"])
    assert.deepStrictEqual(kind("rg --json foo"), ["search_text", "foo"])
    assert.deepStrictEqual(kind("git grep needle"), ["search_text", "needle"])
    assert.deepStrictEqual(kind("find . -name '*.ts'"), ["list_files"])
    // Anything uncertain is a plain shell command: a missed read or edit only loses a saving.
    for (
      const command of [
        "cat a b",
        "cat a | head",
        "nl -v2 a",
        "sed -i s/a/b/ f",
        "head -c 10 f",
        "rm a b",
        "python x.py"
      ]
    ) {
      assert.deepStrictEqual(kind(command), ["shell"], command)
    }
  })
})

describe("Claude Code tools", () => {
  const path = "/home/me/app/lib/a.ex"

  it("Read is superseded by Edit, Write, MultiEdit or NotebookEdit; offset is the start line", () => {
    for (const change of ["Edit", "MultiEdit", "Write"]) {
      assert.deepStrictEqual(
        elided(
          pair(["Read", { file_path: path, offset: 193, limit: 60 }], body("v1"), [change, { file_path: path }]),
          claudeCodeToolKinds
        ),
        [["c1", "superseded_read", "c2", `[elided: read_file "${path}"@unknown lines 193+60; re-read to view]`]]
      )
    }
    assert.strictEqual(
      elided(
        pair(["Read", { file_path: "n.ipynb" }], body("v1"), ["NotebookEdit", { notebook_path: "n.ipynb" }]),
        claudeCodeToolKinds
      )
        .length,
      1
    )
  })

  it("Bash: cat is a read, grep a search; TaskOutput polls of one task cover each other; BashOutput is not mapped", () => {
    assert.strictEqual(
      elided(
        pair(["Bash", { command: `cat ${path}` }], body("v1"), ["Edit", { file_path: path }]),
        claudeCodeToolKinds
      )[0]?.[3],
      `[elided: read_file "${path}"@unknown; re-read to view]`
    )
    const grep = { command: "grep -rn TODO lib", description: "find todos" }
    assert.deepStrictEqual(
      elided(
        pair(["Bash", grep], body("lib/a.ex:3: TODO"), ["Bash", grep], body("lib/a.ex:3: TODO")),
        claudeCodeToolKinds
      ),
      [["c1", "duplicate_search", "c2", "[elided: search_text \"TODO\"; identical to a later result]"]]
    )
    const running =
      `<retrieval_status>timeout</retrieval_status>\n<task_id>b1</task_id>\n<status>running</status>\n<output>\n${
        body("compiling")
      }</output>`
    assert.deepStrictEqual(
      elided(
        pair(["TaskOutput", { task_id: "b1", block: true, timeout: 120000 }], running, [
          "TaskOutput",
          { task_id: "b1", block: true, timeout: 300000 }
        ], running + "done"),
        claudeCodeToolKinds
      ),
      [["c1", "stale_bg_output", "c2", "[elided: bg_output \"b1\" offset 0; a later bg_output covers it]"]]
    )
    const incremental = pair(
      ["BashOutput", { bash_id: "b1" }],
      body("chunk 1"),
      ["BashOutput", { bash_id: "b1" }],
      body("chunk 2")
    )
    assert.deepStrictEqual(elided(incremental, claudeCodeToolKinds), [])
  })

  it("a TaskOutput with a blank <output> is empty: a later poll of the task makes it redundant", () => {
    const empty =
      `<retrieval_status>timeout</retrieval_status>\n<task_id>b1</task_id>\n<status>running</status>\n<output>\n</output>\n${
        "<!-- padding -->".repeat(4)
      }`
    const history = pair(["TaskOutput", { task_id: "b1" }], empty, ["TaskOutput", { task_id: "b1" }], body("done"))
    assert.strictEqual(elided(history, claudeCodeToolKinds).length, 1)
  })
})

describe("SWE-agent commands", () => {
  it("edit changes the file open showed (thought-action form)", () => {
    const history: Array<Message> = [
      user(),
      call("c1", "open", { command: "open chall.py 40" }),
      result("c1", body("[File: chall.py (120 lines total)]")),
      call("c2", "edit", { command: "edit 1:1\nimport os\nend_of_edit" }),
      result("c2", body("[File: chall.py] updated")),
      say(),
      say(),
      user()
    ]
    assert.deepStrictEqual(elided(history, sweAgentToolKinds), [[
      "c1",
      "superseded_read",
      "c2",
      "[elided: read_file \"chall.py\"@unknown lines 40+; re-read to view]"
    ]])
    // Without the open, edit has no file: nothing to supersede.
    assert.deepStrictEqual(elided([history[0], ...history.slice(3)] as Array<Message>, sweAgentToolKinds), [])
  })

  it("function-calling form: open {path, line_number}, edit {search, replace}; goto shows the current file", () => {
    const history: Array<Message> = [
      user(),
      call("c1", "open", { path: "src/fields.py", line_number: 1474 }),
      result("c1", body("[File: src/fields.py]")),
      call("c2", "goto", { line_number: 1500 }),
      result("c2", body("[File: src/fields.py] 1500")),
      call("c3", "edit", { search: "a", replace: "b" }),
      result("c3", body("edited")),
      say(),
      say(),
      user()
    ]
    assert.deepStrictEqual(elided(history, sweAgentToolKinds).map((e) => [e[0], e[2], e[3]]), [
      ["c1", "c3", "[elided: read_file \"src/fields.py\"@unknown lines 1474+; re-read to view]"],
      ["c2", "c3", "[elided: read_file \"src/fields.py\"@unknown lines 1500+; re-read to view]"]
    ])
  })

  it("create makes the file current; search_dir duplicates; other commands are read from their text", () => {
    const history: Array<Message> = [
      user(),
      call("c1", "cat", { command: "cat reproduce.py" }),
      result("c1", body("old")),
      call("c2", "create", { command: "create reproduce.py" }),
      result("c2", "[File: reproduce.py (1 lines total)]"),
      call("c3", "insert", { text: "print(1)" }),
      result("c3", "ok"),
      say(),
      say(),
      user()
    ]
    assert.deepStrictEqual(elided(history, sweAgentToolKinds).map((e) => [e[0], e[2]]), [["c1", "c2"]])
    const found = "Found 2 matches for \"TimeDelta\" in /repo:\n/repo/src/fields.py (2 matches)\nEnd of matches\n"
      .repeat(2)
    assert.strictEqual(
      elided(
        pair(["search_dir", { command: "search_dir TimeDelta" }], found, ["search_dir", {
          command: "search_dir TimeDelta"
        }], found),
        sweAgentToolKinds
      )[0]?.[3],
      "[elided: search_text \"TimeDelta\"; identical to a later result]"
    )
    // scroll_down shows a window the call does not name: not mapped.
    assert.deepStrictEqual(
      elided(
        pair(
          ["scroll_down", { command: "scroll_down" }],
          body("x"),
          ["scroll_down", { command: "scroll_down" }],
          body("x")
        ),
        sweAgentToolKinds
      ),
      []
    )
  })
})

describe("canonical (corpus) names and custom mappings", () => {
  it("reads every harness's arguments under the canonical names", () => {
    assert.strictEqual(
      elided(
        pair(["read_file", { file_path: "/a.ex", offset: 2 }], body("v1"), ["edit_file", { file_path: "/a.ex" }]),
        canonicalToolKinds
      ).length,
      1
    )
    assert.strictEqual(
      elided(
        pair(["read_file", { command: "open a.py" }], body("v1"), ["edit_file", {
          command: "edit 3:3\nx\nend_of_edit"
        }]),
        canonicalToolKinds
      )
        .length,
      1
    )
    assert.strictEqual(
      elided(
        pair(["read_file", { path: "a.py", line_number: 3 }], body("v1"), ["edit_file", { search: "x", replace: "y" }]),
        canonicalToolKinds
      )
        .length,
      1
    )
    assert.strictEqual(
      elided(
        pair(["read_file", { command: "cat a.py" }], body("v1"), ["write_file", { command: "create a.py" }]),
        canonicalToolKinds
      ).length,
      1
    )
    assert.strictEqual(
      elided(
        pair(["read_file", { command: "nl -ba a.py" }], body("v1"), ["edit_file", { command: "rm a.py" }]),
        canonicalToolKinds
      ).length,
      1
    )
    const hits = "a.py:1: x\n".repeat(20)
    assert.strictEqual(
      elided(pair(["search", { pattern: "x" }], hits, ["search", { pattern: "x" }], hits), canonicalToolKinds).length,
      1
    )
    assert.strictEqual(
      elided(
        pair(["search", { command: "grep -n x a.py" }], hits, ["search", { command: "grep -n x a.py" }], hits),
        canonicalToolKinds
      )
        .length,
      1
    )
    assert.strictEqual(
      elided(
        pair(["background_output", { task_id: "t" }], body("o"), ["background_output", { task_id: "t" }], body("o")),
        canonicalToolKinds
      )
        .length,
      1
    )
    // A run_command never supersedes anything.
    assert.deepStrictEqual(
      elided(
        pair(["read_file", { file_path: "/a.ex" }], body("v1"), ["run_command", { command: "sed -i s/a/b/ /a.ex" }]),
        canonicalToolKinds
      ),
      []
    )
  })

  it("a custom mapping with a fallback rule; names like toString or __proto__ are never read from the prototype", () => {
    const str = (value: unknown) => typeof value === "string" ? value : undefined
    const mine: ToolKinds = {
      view: { kind: "read_file", path: (args) => str(args["file"]) },
      "*": (args, context) =>
        context.tool.startsWith("patch") ? { kind: "edit_file", path: () => str(args["file"]) } : undefined
    }
    assert.strictEqual(elided(pair(["view", { file: "a" }], body("v1"), ["patch_file", { file: "a" }]), mine).length, 1)
    assert.deepStrictEqual(elided(pair(["view", { file: "a" }], body("v1"), ["other", { file: "a" }]), mine), [])
    for (const name of ["toString", "__proto__", "constructor", "hasOwnProperty"]) {
      assert.deepStrictEqual(
        elided(pair([name, { path: "a" }], body("v1"), ["edit_file", { path: "a" }]), seedToolKinds),
        []
      )
    }
  })

  it("the seed's own names are the default", () => {
    const history = pair(["read_file", { path: "a" }], body("v1"), ["edit_file", { path: "a" }])
    assert.deepStrictEqual(
      govern(history, { mode: "on", epochMessages: 0 }).elisions,
      govern(history, { mode: "on", epochMessages: 0, toolKinds: seedToolKinds }).elisions
    )
  })
})
