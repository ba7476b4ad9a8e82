/**
 * Bad input for every command, through the real bin: exit 2, nothing on stdout (so `--json` never prints half a
 * document), and exactly one line on stderr that names the problem and the fix — never a stack trace.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, vi } from "vitest"
import { ctxkit, SLOW_TEST_TIMEOUT } from "./bin.ts"

// Each test starts real processes; on a shared machine under load one start can take tens of seconds.
vi.setConfig({ testTimeout: SLOW_TEST_TIMEOUT })

// Made now, not in `beforeAll`: the tables below name files in it when the module loads.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ctxkit-cli-bad-"))
const at = (name: string) => path.join(dir, name)

beforeAll(() => {
  fs.writeFileSync(at("ok.json"), JSON.stringify([{ role: "user", content: "hello" }]))
  fs.writeFileSync(at("ok.jsonl"), "{\"estimate\":100,\"tokens\":120}\n")
  fs.writeFileSync(
    at("malformed.json"),
    "[\n  {\"role\": \"user\", \"content\": \"hi\"},\n  {\"role\": \"user\" \"content\": \"x\"}\n]\n"
  )
  fs.writeFileSync(at("trailing.json"), "[{\"role\": \"user\", \"content\": \"hi\"},]")
  fs.writeFileSync(
    at("malformed.jsonl"),
    "{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"assistant\",\"content\":\"b\"}\n{\"role\": oops}\n"
  )
  fs.writeFileSync(at("empty.json"), "")
  fs.writeFileSync(at("blank.json"), "  \n\t\n  ")
  fs.writeFileSync(
    at("binary.bin"),
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d])
  )
  fs.writeFileSync(at("latin1.json"), Buffer.from("[{\"role\":\"user\",\"content\":\"caf\xe9\"}]", "latin1"))
  fs.writeFileSync(at("object.json"), JSON.stringify({ hello: "world", n: 1 }))
  fs.writeFileSync(at("number.json"), "42")
  fs.writeFileSync(at("none.json"), "[]")
  fs.mkdirSync(at("folder"))
  // Over the 128 MiB input limit without writing it: a sparse file has the size and no blocks.
  const fd = fs.openSync(at("huge.json"), "w")
  fs.ftruncateSync(fd, 129 * 1024 * 1024)
  fs.closeSync(fd)
})

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true })
})

/** Each command with the arguments that make it valid apart from its input. */
const COMMANDS: ReadonlyArray<
  { readonly name: string; readonly args: ReadonlyArray<string>; readonly samples?: true }
> = [
  { name: "fit", args: ["--budget", "100"] },
  { name: "report", args: ["--window", "8192"] },
  { name: "govern", args: ["--mode", "on"] },
  { name: "compact", args: [] },
  { name: "detect", args: [], samples: true }
]

/** A bad input: the file (or stdin) and what the message must say. */
interface BadFile {
  readonly label: string
  readonly file: () => string
  readonly stdin?: string | Uint8Array
  readonly expect: RegExp
  /** The message for a samples file (detect), when it differs. */
  readonly samples?: RegExp
}

const BAD_FILES: ReadonlyArray<BadFile> = [
  {
    label: "malformed JSON",
    file: () => at("malformed.json"),
    expect: /malformed\.json:3:19: malformed JSON: .*fix the file at line 3, column 19/
  },
  {
    label: "a trailing comma",
    file: () => at("trailing.json"),
    expect: /:1:36: malformed JSON: a trailing comma before '\]' \(remove it\)/
  },
  { label: "malformed JSONL", file: () => at("malformed.jsonl"), expect: /malformed\.jsonl:3:\d+: malformed JSONL/ },
  { label: "an empty file", file: () => at("empty.json"), expect: /empty\.json is empty; pass a conversation/ },
  { label: "only whitespace", file: () => at("blank.json"), expect: /blank\.json is empty \(only whitespace\)/ },
  {
    label: "a binary file",
    file: () => at("binary.bin"),
    expect: /binary\.bin is a binary file .*pass a JSON or JSONL text file/
  },
  { label: "not UTF-8", file: () => at("latin1.json"), expect: /latin1\.json is not UTF-8 text; save it as UTF-8/ },
  {
    label: "over the size limit",
    file: () => at("huge.json"),
    expect: /huge\.json is 129\.0 MB, over the 128\.0 MB input limit; split the conversation/
  },
  { label: "a missing file", file: () => at("nope.json"), expect: /nope\.json: no such file; check the path/ },
  { label: "a directory", file: () => at("folder"), expect: /folder is a directory; pass a conversation file/ },
  {
    label: "an object that is not a conversation",
    file: () => at("object.json"),
    expect: /holds an object with keys hello, n, not a conversation; pass a JSON array of messages/,
    samples: /sample 0: not an object|"estimate" is missing/
  },
  {
    label: "a number",
    file: () => at("number.json"),
    expect: /holds a number, not a conversation/,
    samples: /sample 0: not an object/
  },
  { label: "no messages", file: () => at("none.json"), expect: /holds no messages/, samples: /holds no samples/ },
  { label: "empty stdin", file: () => "-", stdin: "", expect: /stdin is empty/ },
  { label: "binary stdin", file: () => "-", stdin: new Uint8Array([1, 0, 2, 0]), expect: /stdin is a binary file/ }
]

/** Exit 2, empty stdout, one stderr line, no stack trace — and the message asked for. */
const assertBadInput = (run: { code: number | null; stdout: string; stderr: string }, expect: RegExp) => {
  assert.strictEqual(run.code, 2, `exit code; stderr: ${run.stderr}`)
  assert.strictEqual(run.stdout, "", "nothing on stdout")
  const lines = run.stderr.trimEnd().split("\n")
  assert.strictEqual(lines.length, 1, `one line on stderr, got: ${run.stderr}`)
  assert.match(lines[0] ?? "", /^ctxkit/)
  assert.notMatch(run.stderr, /\n\s+at |Error: |FiberFailure|\{ _tag/)
  assert.match(run.stderr, expect)
}

describe("bad input, every command × every bad file", () => {
  for (const command of COMMANDS) {
    for (const bad of BAD_FILES) {
      it(`${command.name}: ${bad.label} → exit 2`, async () => {
        const run = await ctxkit(
          [command.name, bad.file(), ...command.args, "--json"],
          bad.stdin === undefined ? {} : {
            stdin: bad.stdin
          }
        )
        assertBadInput(run, command.samples === true && bad.samples !== undefined ? bad.samples : bad.expect)
      })
    }
  }
})

/** Usage errors: a flag or value the command does not know, numbers that are not counts. */
interface BadUsage {
  readonly label: string
  readonly args: ReadonlyArray<string>
  readonly expect: RegExp
}

const conversationCommands = COMMANDS.filter((c) => c.samples !== true)

const BAD_USAGE: ReadonlyArray<BadUsage> = [
  ...COMMANDS.map((c) => ({
    label: `${c.name}: an unknown flag`,
    args: [c.name, at(c.samples ? "ok.jsonl" : "ok.json"), ...c.args, "--colour"],
    expect: /unknown flag --colour; valid flags: --json, .*\(see `ctxkit [a-z]+ --help`\)/
  })),
  ...conversationCommands.map((c) => ({
    label: `${c.name}: an unknown format`,
    args: [c.name, at("ok.json"), ...c.args, "--format", "xml"],
    expect: /Invalid value for flag --format: "xml"\. Expected: .*"canonical" \| "openai-chat" \| .*"langchain"/
  })),
  ...COMMANDS.map((c) => ({
    label: `${c.name}: an unknown tokenizer`,
    args: [c.name, at(c.samples ? "ok.jsonl" : "ok.json"), ...c.args, "--tokenizer", "gpt5"],
    expect:
      /Invalid value for flag --tokenizer: "gpt5"\. Expected: .*"o200k" \| "cl100k" \| "llama3" \| "qwen3" \| "gemma3" \| "deepseek-v3"/
  })),
  {
    label: "fit: an unknown strategy",
    args: ["fit", at("ok.json"), "--budget", "10", "--strategy", "fifo"],
    expect:
      /Invalid value for flag --strategy: "fifo"\. Expected: "truncate" \| "summarize" \| "vector-recall" \| "manual"/
  },
  {
    label: "fit: no budget",
    args: ["fit", at("ok.json")],
    expect: /no budget: pass --budget N .* or --window N/
  },
  {
    label: "fit: both budget and window",
    args: ["fit", at("ok.json"), "--budget", "10", "--window", "100"],
    expect: /--budget and --window were both given; pass one/
  },
  {
    label: "fit: --max-tokens without --window",
    args: ["fit", at("ok.json"), "--budget", "10", "--max-tokens", "5"],
    expect: /--max-tokens only applies with --window/
  },
  {
    label: "fit: a window no model has",
    args: ["fit", at("ok.json"), "--window", "9000000"],
    expect: /--window 9000000 is over 2,000,000 tokens/
  },
  ...(["fit --budget", "fit --window", "fit --window 8192 --max-tokens", "report --window"] as const).flatMap((flag) =>
    (flag === "fit --budget" ? ["0", "-5", "NaN", "abc", "1.5", "8k", ""] : ["0", "-5", "NaN"]).map((value) => {
      const words = flag.split(" ")
      const name = words[words.length - 1]?.slice(2) ?? ""
      return {
        label: `${flag} ${JSON.stringify(value)}`,
        // `--flag=value`, so that "-5" is read as the flag's value and not as a flag of its own.
        args: [...words.slice(0, 1), at("ok.json"), ...words.slice(1, -1), `--${name}=${value}`],
        expect: value === ""
          ? new RegExp(`(Missing value for flag --${name}|--${name} "" is not a whole number)`)
          : new RegExp(
            `--${name} "${
              value.replace(".", "\\.")
            }" is (below 1|not a whole number); pass a whole number of tokens of at least 1, e\\.g\\. --${name} \\d+`
          )
      }
    })
  ),
  { label: "report: no window", args: ["report", at("ok.json")], expect: /missing --window N/ },
  {
    label: "report: --html into a missing directory",
    args: ["report", at("ok.json"), "--window", "8192", "--html", at("no/such/dir/r.html")],
    expect: /--html .* could not be written .*pass a path in a directory that exists/
  },
  {
    label: "report: --html is a directory",
    args: ["report", at("ok.json"), "--window", "8192", "--html", at("folder")],
    expect: /--html .*folder is a directory/
  },
  {
    label: "report: unknown governor mode",
    args: ["report", at("ok.json"), "--window", "100", "--governor", "off"],
    expect: /--governor: "off"\. Expected: "shadow" \| "on"/
  },
  {
    label: "govern: no mode",
    args: ["govern", at("ok.json")],
    expect: /missing required flag --mode: shadow \(.*\) or on \(/
  },
  {
    label: "govern: unknown mode",
    args: ["govern", at("ok.json"), "--mode", "always"],
    expect: /--mode: "always"\. Expected: "shadow" \| "on"/
  },
  ...["-1", "21", "two"].map((value) => ({
    label: `compact --keep-turns ${value}`,
    args: ["compact", at("ok.json"), `--keep-turns=${value}`],
    expect: new RegExp(`--keep-turns "${value}" is .*; pass a whole number of turns from 0 to 20`)
  })),
  ...["0", "-3", "NaN"].map((value) => ({
    label: `compact --max-context-chars ${value}`,
    args: ["compact", at("ok.json"), `--max-context-chars=${value}`],
    expect: /--max-context-chars ".*" is .*; pass a whole number of characters of at least 1/
  })),
  {
    label: "compact: --model without --base-url",
    args: ["compact", at("ok.json"), "--model", "m"],
    expect: /--model needs --base-url: pass both/
  },
  {
    label: "compact: --base-url is not a URL",
    args: ["compact", at("ok.json"), "--base-url", "localhost:1234", "--model", "m"],
    expect: /--base-url "localhost:1234" is not an http\(s\) URL/
  },
  {
    label: "detect: a sample without tokens",
    args: ["detect", "-"],
    expect: /stdin:2: "tokens" is missing, not a number of tokens >= 0/
  },
  { label: "window: no --base-url", args: ["window"], expect: /missing required flag --base-url/ },
  {
    label: "window: not a URL",
    args: ["window", "--base-url", "ftp://x"],
    expect: /--base-url "ftp:\/\/x" is not an http\(s\) URL/
  },
  { label: "context explain: no path", args: ["context", "explain"], expect: /missing argument <path>/ },
  {
    label: "context explain: a missing path",
    args: ["context", "explain", at("nowhere")],
    expect: /nowhere: no such file or directory/
  },
  {
    label: "context explain: outside the workspace",
    args: ["context", "explain", os.tmpdir(), "--workspace", path.resolve(".")],
    expect: /is outside the workspace .*pass a path inside it, or --workspace DIR/
  },
  {
    label: "skills list: a missing path",
    args: ["skills", "list", at("nowhere")],
    expect: /nowhere: no such file or directory/
  },
  { label: "skills list: a file", args: ["skills", "list", at("ok.json")], expect: /ok\.json is not a directory/ },
  {
    label: "skills validate: a missing path",
    args: ["skills", "validate", at("nowhere")],
    expect: /no such file or directory/
  },
  {
    label: "skills: unknown subcommand",
    args: ["skills", "lint"],
    expect: /unknown command "lint"; did you mean list\? valid commands: list, validate/
  },
  {
    label: "an unknown command",
    args: ["fitt"],
    expect: /unknown command "fitt"; did you mean fit\? valid commands: fit, report, govern/
  },
  {
    label: "an unexpected argument",
    args: ["fit", at("ok.json"), "extra", "--budget", "5"],
    expect: /unexpected argument extra; takes <file>/
  }
]

describe("bad usage", () => {
  for (const bad of BAD_USAGE) {
    it(`${bad.label} → exit 2`, async () => {
      const stdin = bad.label.startsWith("detect") ? "{\"estimate\":1,\"tokens\":1}\n{\"estimate\":5}\n" : undefined
      const run = await ctxkit([...bad.args, "--json"], stdin === undefined ? {} : { stdin })
      assertBadInput(run, bad.expect)
    })
  }
})

describe("a message names the format that did not validate", () => {
  it("a tool message without its call id, read as OpenAI Chat", async () => {
    const file = at("chat-bad.json")
    fs.writeFileSync(
      file,
      JSON.stringify([{ role: "user", content: "a" }, { role: "tool", content: "x", tool_call_id: 7 }])
    )
    const run = await ctxkit(["fit", file, "--budget", "100", "--format", "openai-chat"])
    assertBadInput(
      run,
      /not a valid openai-chat conversation: messages\[1\]\.tool_call_id: .*; fix the message, or pass the format it is in/
    )
  })

  it("a message that is not an object", async () => {
    const file = at("strings.json")
    fs.writeFileSync(file, JSON.stringify([{ role: "user", content: "a" }, "hello"]))
    const run = await ctxkit(["fit", file, "--budget", "100"])
    assertBadInput(run, /message 1 is a string, not a message object/)
  })
})
