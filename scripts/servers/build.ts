/**
 * Builds (or reuses) a real `llama-server` binary for the opt-in server tests, offline apart from the npm registry.
 *
 * The llama.cpp source comes from the `node-llama-cpp` npm package, which ships it as a git bundle
 * (`llama/gitRelease.bundle`): `npm pack` fetches the tarball, the bundle is cloned, and cmake builds only the
 * `llama-server` target with the web UI off (its default would download the UI). Everything lands in the cache
 * directory, `$CTXKIT_SERVER_CACHE` or `~/.cache/ctxkit/llama-server`, under the llama.cpp tag:
 *
 * - `<cache>/npm/node-llama-cpp-<version>.tgz`: the packed tarball;
 * - `<cache>/<tag>/src`: the llama.cpp checkout (its `models/ggml-vocab-*.gguf` give the tiny model its vocabulary);
 * - `<cache>/<tag>/src/build/bin/llama-server`: the binary, reused by later runs when it answers `--version`.
 *
 * Run: `npx node scripts/servers/build.ts` (Node 24 strips the types). About 10 minutes on 2 idle cores the first
 * time; a cached binary is found in well under a second.
 */
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/** The npm package whose tarball carries the llama.cpp source. */
export const NODE_LLAMA_CPP_VERSION = "3.21.1"

/** Where a build is cached; `$CTXKIT_SERVER_CACHE` overrides the default `~/.cache/ctxkit/llama-server`. */
export const cacheRoot = (): string =>
  process.env["CTXKIT_SERVER_CACHE"] ?? path.join(os.homedir(), ".cache", "ctxkit", "llama-server")

/** The paths of one cached build. */
export interface LlamaBuild {
  readonly tag: string
  readonly sourceDir: string
  readonly binary: string
  readonly version: string
  /** True when this call compiled it, false when a cached binary was reused. */
  readonly built: boolean
  readonly seconds: number
}

const log = (line: string): void => {
  process.stderr.write(`[llama-server build] ${line}\n`)
}

const run = (command: string, args: ReadonlyArray<string>, cwd: string): Promise<void> =>
  new Promise((resolve, reject) => {
    log(`${command} ${args.join(" ")}`)
    const child = spawn(command, [...args], { cwd, stdio: ["ignore", "inherit", "inherit"] })
    child.on("error", reject)
    child.on("exit", (code) => {
      if (code === 0) resolve()
      else reject(new Error(`${command} ${args.join(" ")} exited with ${code} (in ${cwd})`))
    })
  })

// llama-server prints `version: ...` on stderr, hence the shell redirection.
const readVersion = (binary: string): string | undefined => {
  if (!fs.existsSync(binary)) return undefined
  try {
    const out = execFileSync("sh", ["-c", `"${binary}" --version 2>&1`], { encoding: "utf8" })
    const line = out.split("\n").find((l) => l.startsWith("version:"))
    return line?.replace(/^version:\s*/, "").trim()
  } catch {
    return undefined
  }
}

/** The llama.cpp source: where it is checked out and the tag node-llama-cpp records for it. */
export interface LlamaSource {
  readonly tag: string
  readonly sourceDir: string
}

/**
 * Clones the llama.cpp source out of the npm tarball into `<cache>/<tag>/src` (once). The tag is read from the
 * package's `llama/llama.cpp.info.json`; the bundle itself carries one squashed commit and no tag.
 */
export const ensureSource = async (): Promise<LlamaSource> => {
  const npmDir = path.join(cacheRoot(), "npm")
  fs.mkdirSync(npmDir, { recursive: true })
  const tarball = path.join(npmDir, `node-llama-cpp-${NODE_LLAMA_CPP_VERSION}.tgz`)
  if (!fs.existsSync(tarball)) {
    await run(
      "npm",
      ["pack", "--silent", `node-llama-cpp@${NODE_LLAMA_CPP_VERSION}`, "--pack-destination", npmDir],
      npmDir
    )
  }
  const bundle = path.join(npmDir, "package", "llama", "gitRelease.bundle")
  const info = path.join(npmDir, "package", "llama", "llama.cpp.info.json")
  if (!fs.existsSync(bundle) || !fs.existsSync(info)) {
    await run("tar", ["xzf", tarball, "package/llama/gitRelease.bundle", "package/llama/llama.cpp.info.json"], npmDir)
  }
  const parsed: unknown = JSON.parse(fs.readFileSync(info, "utf8"))
  const tag = typeof parsed === "object" && parsed !== null && "tag" in parsed && typeof parsed.tag === "string"
    ? parsed.tag
    : undefined
  if (tag === undefined) throw new Error(`${info} has no "tag": delete ${npmDir} and run again`)
  const sourceDir = path.join(cacheRoot(), tag, "src")
  if (fs.existsSync(path.join(sourceDir, "tools", "server"))) return { tag, sourceDir }
  fs.mkdirSync(path.dirname(sourceDir), { recursive: true })
  fs.rmSync(sourceDir, { recursive: true, force: true })
  await run("git", ["-c", "advice.detachedHead=false", "clone", "-q", bundle, sourceDir], npmDir)
  return { tag, sourceDir }
}

/**
 * Returns a working `llama-server`: the cached one when it answers `--version`, or a fresh build.
 * `LLAMA_SERVER=/path/to/llama-server` skips all of this and uses that binary.
 */
export const ensureLlamaServer = async (): Promise<LlamaBuild> => {
  const started = performance.now()
  const given = process.env["LLAMA_SERVER"]
  if (given !== undefined && given !== "") {
    const version = readVersion(given)
    if (version === undefined) throw new Error(`LLAMA_SERVER=${given} does not run: unset it or point it at a binary`)
    return { tag: "(LLAMA_SERVER)", sourceDir: "", binary: given, version, built: false, seconds: 0 }
  }
  const { tag, sourceDir } = await ensureSource()
  const binary = path.join(sourceDir, "build", "bin", "llama-server")
  const cached = readVersion(binary)
  if (cached !== undefined) {
    return { tag, sourceDir, binary, version: cached, built: false, seconds: elapsed(started) }
  }
  await run("cmake", [
    "-B",
    "build",
    "-DCMAKE_BUILD_TYPE=Release",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_APP=OFF",
    // The prebuilt web UI would be downloaded from a hub: off, and the server runs with --no-webui.
    "-DLLAMA_USE_PREBUILT_UI=OFF",
    "-DLLAMA_BUILD_UI=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_CURL=OFF",
    "-DGGML_NATIVE=ON"
  ], sourceDir)
  await run("cmake", ["--build", "build", "--target", "llama-server", "-j2"], sourceDir)
  const version = readVersion(binary)
  if (version === undefined) throw new Error(`the build finished but ${binary} does not run`)
  return { tag, sourceDir, binary, version, built: true, seconds: elapsed(started) }
}

const elapsed = (started: number): number => Math.round((performance.now() - started) / 100) / 10

if (import.meta.main) {
  const build = await ensureLlamaServer()
  log(`${build.built ? "built" : "reused"} ${build.binary} (${build.version}) in ${build.seconds} s`)
}
