/**
 * A tiny random-weight Llama model with a real tokenizer, for the server tests: the `tokenizer.*` entries of one of
 * llama.cpp's vocabulary-only GGUFs (`models/ggml-vocab-<name>.gguf`, default `llama-bpe`, the Llama 3 vocabulary
 * that `@ctxkit/budget/llama3` counts with), a Llama 3 chat template, and one transformer block of F32 weights
 * drawn from a seeded generator. Its answers are noise; its token counts are the real tokenizer's.
 *
 * The file is written next to the build (`<cache>/<tag>/models/`) and reused; the same seed gives the same bytes.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { type GgufTensor, type GgufValue, readGguf, writeGguf } from "./gguf.ts"

/** The Llama 3 chat template, written out as Jinja without trimming so counts stay exact. */
export const LLAMA3_CHAT_TEMPLATE = "{{ bos_token }}{% for message in messages %}"
  + "{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + message['content'] + '<|eot_id|>' }}"
  + "{% endfor %}{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}"

/** How the tiny model is made. */
export interface TinyModelOptions {
  /** The llama.cpp checkout (its `models/` holds the vocabularies). */
  readonly sourceDir: string
  /** Where to write the model. */
  readonly outDir: string
  /** The vocabulary: `models/ggml-vocab-<vocab>.gguf`. Default `llama-bpe`. */
  readonly vocab?: string
  /** The generator's seed. Default 1618. */
  readonly seed?: number
  /** The trained window the model claims (`llama.context_length`). Default 4096. */
  readonly contextLength?: number
}

/** mulberry32: a small seeded generator, so the weights are the same on every machine. */
const generator = (seed: number) => {
  let state = seed >>> 0
  return (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The GGUF bytes of the tiny model. */
export const tinyModelBytes = (vocabFile: Uint8Array, seed: number, contextLength: number): Uint8Array => {
  const vocab = readGguf(vocabFile)
  const tokenizer = vocab.entries.filter((e) => e.key.startsWith("tokenizer.") && e.key !== "tokenizer.chat_template")
  const tokens = tokenizer.find((e) => e.key === "tokenizer.ggml.tokens")?.length
  if (tokens === undefined) throw new Error("the vocabulary GGUF has no tokenizer.ggml.tokens")
  const embd = 16
  const heads = 2
  const ff = 32
  const random = generator(seed)
  const matrix = (name: string, dims: ReadonlyArray<number>): GgufTensor => {
    const data = new Float32Array(dims.reduce((a, b) => a * b, 1))
    for (let i = 0; i < data.length; i++) data[i] = (random() - 0.5) * 0.04
    return { name, dims, data }
  }
  const ones = (name: string): GgufTensor => ({ name, dims: [embd], data: new Float32Array(embd).fill(1) })
  const values: ReadonlyArray<GgufValue> = [
    { key: "general.architecture", type: "string", value: "llama" },
    { key: "general.name", type: "string", value: "ctxkit-tiny" },
    { key: "general.alignment", type: "u32", value: 32 },
    { key: "general.file_type", type: "u32", value: 0 },
    { key: "llama.block_count", type: "u32", value: 1 },
    { key: "llama.context_length", type: "u32", value: contextLength },
    { key: "llama.embedding_length", type: "u32", value: embd },
    { key: "llama.feed_forward_length", type: "u32", value: ff },
    { key: "llama.attention.head_count", type: "u32", value: heads },
    { key: "llama.attention.head_count_kv", type: "u32", value: heads },
    { key: "llama.rope.dimension_count", type: "u32", value: embd / heads },
    { key: "llama.rope.freq_base", type: "f32", value: 500000 },
    { key: "llama.attention.layer_norm_rms_epsilon", type: "f32", value: 1e-5 },
    { key: "llama.vocab_size", type: "u32", value: tokens },
    ...tokenizer.map((copy) => ({ copy })),
    { key: "tokenizer.chat_template", type: "string", value: LLAMA3_CHAT_TEMPLATE }
  ]
  // No output.weight: llama.cpp ties the output projection to token_embd.
  const tensors: ReadonlyArray<GgufTensor> = [
    matrix("token_embd.weight", [embd, tokens]),
    ones("output_norm.weight"),
    ones("blk.0.attn_norm.weight"),
    matrix("blk.0.attn_q.weight", [embd, embd]),
    matrix("blk.0.attn_k.weight", [embd, embd]),
    matrix("blk.0.attn_v.weight", [embd, embd]),
    matrix("blk.0.attn_output.weight", [embd, embd]),
    ones("blk.0.ffn_norm.weight"),
    matrix("blk.0.ffn_gate.weight", [embd, ff]),
    matrix("blk.0.ffn_up.weight", [embd, ff]),
    matrix("blk.0.ffn_down.weight", [ff, embd])
  ]
  return writeGguf(values, tensors)
}

/** Writes the tiny model once (same options, same file) and returns its path. */
export const ensureTinyModel = (options: TinyModelOptions): string => {
  const vocab = options.vocab ?? "llama-bpe"
  const seed = options.seed ?? 1618
  const contextLength = options.contextLength ?? 4096
  const file = path.join(options.outDir, `tiny-${vocab}-s${seed}-c${contextLength}.gguf`)
  if (fs.existsSync(file)) return file
  const vocabFile = path.join(options.sourceDir, "models", `ggml-vocab-${vocab}.gguf`)
  if (!fs.existsSync(vocabFile)) {
    throw new Error(`${vocabFile} does not exist: pick a vocabulary from ${path.join(options.sourceDir, "models")}`)
  }
  fs.mkdirSync(options.outDir, { recursive: true })
  const temporary = `${file}.${process.pid}.tmp`
  fs.writeFileSync(temporary, tinyModelBytes(fs.readFileSync(vocabFile), seed, contextLength))
  fs.renameSync(temporary, file)
  return file
}
