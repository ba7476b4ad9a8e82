/**
 * Starts a real `llama-server` on 127.0.0.1 with the tiny model, one slot and a small window, and stops it.
 * Reusable by any test or example that wants a real llama.cpp server:
 *
 * ```ts
 * const server = await startLlamaServer({ nCtx: 512 })
 * // server.baseUrl: "http://127.0.0.1:<port>", server.model: "ctxkit-tiny"
 * await server.stop()
 * ```
 *
 * The binary comes from {@link ensureLlamaServer} (built once, cached; `LLAMA_SERVER=/path` uses yours), the
 * model from {@link ensureTinyModel}. `-c` is rounded up by llama.cpp to a multiple of 256; `nCtx` here must
 * already be one, so the window a test expects is the window the server has.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as net from "node:net"
import * as path from "node:path"
import { ensureLlamaServer, type LlamaBuild } from "./build.ts"
import { ensureTinyModel, type TinyModelOptions } from "./tinyModel.ts"

/** How to start the server. */
export interface LlamaServerOptions {
  /** The window (`-c`): a multiple of 256 (llama.cpp pads any other value up). Default 512. */
  readonly nCtx?: number
  /** The model id the server answers to (`--alias`). Default `ctxkit-tiny`. */
  readonly alias?: string
  /** The vocabulary of the tiny model. Default `llama-bpe` (Llama 3). */
  readonly vocab?: TinyModelOptions["vocab"]
  /** Milliseconds to wait for `/health` to answer 200. Default 120000 (a loaded machine is slow). */
  readonly readyTimeout?: number
  /** Extra command-line arguments. */
  readonly args?: ReadonlyArray<string>
}

/** A running server. */
export interface RunningLlamaServer {
  /** `http://127.0.0.1:<port>` (give it to an OpenAI client as is, or with `/v1`). */
  readonly baseUrl: string
  /** The model id to send. */
  readonly model: string
  /** The window the server was started with. */
  readonly nCtx: number
  /** The binary and how it was obtained. */
  readonly build: LlamaBuild
  /** The GGUF file served. */
  readonly modelPath: string
  /** The server's output so far (for a failing test's message). */
  readonly log: () => string
  /** Stops the server (SIGTERM, then SIGKILL after 5 seconds). */
  readonly stop: () => Promise<void>
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = net.createServer()
    probe.on("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => resolve(port))
    })
  })

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once("exit", () => resolve()))

/** Starts `llama-server` and resolves once `/health` answers 200. */
export const startLlamaServer = async (options: LlamaServerOptions = {}): Promise<RunningLlamaServer> => {
  const nCtx = options.nCtx ?? 512
  if (!Number.isInteger(nCtx) || nCtx < 256 || nCtx % 256 !== 0) {
    throw new Error(`nCtx = ${nCtx}: llama.cpp pads the window to a multiple of 256; pass 256, 512, 768, ...`)
  }
  const alias = options.alias ?? "ctxkit-tiny"
  const build = await ensureLlamaServer()
  const sourceDir = build.sourceDir === "" ? process.env["LLAMA_CPP_SOURCE"] ?? "" : build.sourceDir
  if (sourceDir === "") {
    throw new Error("LLAMA_SERVER is set but LLAMA_CPP_SOURCE is not: point it at a llama.cpp checkout (its models/)")
  }
  const modelPath = ensureTinyModel({
    sourceDir,
    outDir: path.join(path.dirname(sourceDir), "models"),
    ...(options.vocab === undefined ? {} : { vocab: options.vocab })
  })
  const port = await freePort()
  const args = [
    ["-m", modelPath],
    ["--alias", alias],
    ["-c", String(nCtx)],
    ["-np", "1"],
    ["--host", "127.0.0.1"],
    ["--port", String(port)],
    ["--no-webui"],
    ["-t", "1"],
    ...(options.args === undefined ? [] : [options.args])
  ].flat()
  const child = spawn(build.binary, args, { stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-20_000)
  }
  child.stdout?.on("data", keep)
  child.stderr?.on("data", keep)
  const baseUrl = `http://127.0.0.1:${port}`
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill("SIGTERM")
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000)
    await exited(child)
    clearTimeout(timer)
  }
  const deadline = Date.now() + (options.readyTimeout ?? 120_000)
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`llama-server exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${output}`)
    }
    const ready = await fetch(`${baseUrl}/health`).then((r) => r.status === 200, () => false)
    if (ready) return { baseUrl, model: alias, nCtx, build, modelPath, log: () => output, stop }
    await sleep(200)
  }
  await stop()
  throw new Error(
    `llama-server did not answer ${baseUrl}/health within ${options.readyTimeout ?? 120_000} ms:\n${output}`
  )
}
