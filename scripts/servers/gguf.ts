/**
 * A small GGUF (version 3) reader and writer, enough to build a tiny model for the server tests: read the
 * key/value header of a vocabulary-only GGUF (llama.cpp's `models/ggml-vocab-*.gguf`), copy its `tokenizer.*`
 * entries byte for byte, add the architecture's hyperparameters and write F32 tensors.
 *
 * Layout (little-endian): `GGUF`, version u32, tensor count u64, key/value count u64; each key/value is a string
 * key, a u32 type and the value; each tensor info is a string name, u32 dimension count, u64 dimensions, u32 ggml
 * type and a u64 offset into the data section, which starts at the next multiple of `general.alignment` (32).
 */

/** GGUF value types, by their numbers in the format. */
export const GgufType = {
  u8: 0,
  i8: 1,
  u16: 2,
  i16: 3,
  u32: 4,
  i32: 5,
  f32: 6,
  bool: 7,
  string: 8,
  array: 9,
  u64: 10,
  i64: 11,
  f64: 12
} as const

const SCALAR_SIZE: Readonly<Record<number, number>> = {
  0: 1,
  1: 1,
  2: 2,
  3: 2,
  4: 4,
  5: 4,
  6: 4,
  7: 1,
  10: 8,
  11: 8,
  12: 8
}

const ALIGNMENT = 32
const MAGIC = 0x46554747 // "GGUF" read as a little-endian u32

/** One key/value entry of a file, with the exact bytes it occupies (key included) so it can be copied. */
export interface GgufEntry {
  readonly key: string
  readonly type: number
  /** The value, for scalars and strings; arrays are only measured (`length`). */
  readonly value: string | number | bigint | boolean | undefined
  readonly length: number | undefined
  readonly bytes: Uint8Array
}

/** What {@link readGguf} finds: the version, the tensor count and every key/value entry in order. */
export interface GgufHeader {
  readonly version: number
  readonly tensorCount: bigint
  readonly entries: ReadonlyArray<GgufEntry>
}

/** Reads the header and the key/value entries of a GGUF file (the tensors are not read). */
export const readGguf = (file: Uint8Array): GgufHeader => {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength)
  let at = 0
  const u32 = () => {
    const v = view.getUint32(at, true)
    at += 4
    return v
  }
  const u64 = () => {
    const v = view.getBigUint64(at, true)
    at += 8
    return v
  }
  const string = () => {
    const n = Number(u64())
    const text = new TextDecoder().decode(file.subarray(at, at + n))
    at += n
    return text
  }
  const skip = (type: number): void => {
    if (type === GgufType.string) {
      at += Number(view.getBigUint64(at, true)) + 8
    } else if (type === GgufType.array) {
      const inner = u32()
      const n = Number(u64())
      const size = SCALAR_SIZE[inner]
      if (size !== undefined) at += size * n
      else for (let i = 0; i < n; i++) skip(inner)
    } else {
      const size = SCALAR_SIZE[type]
      if (size === undefined) throw new Error(`GGUF: unknown value type ${type} at byte ${at}`)
      at += size
    }
  }
  const scalar = (type: number): string | number | bigint | boolean => {
    switch (type) {
      case GgufType.u8:
        return view.getUint8(at)
      case GgufType.i8:
        return view.getInt8(at)
      case GgufType.u16:
        return view.getUint16(at, true)
      case GgufType.i16:
        return view.getInt16(at, true)
      case GgufType.u32:
        return view.getUint32(at, true)
      case GgufType.i32:
        return view.getInt32(at, true)
      case GgufType.f32:
        return view.getFloat32(at, true)
      case GgufType.bool:
        return view.getUint8(at) !== 0
      case GgufType.u64:
        return view.getBigUint64(at, true)
      case GgufType.i64:
        return view.getBigInt64(at, true)
      case GgufType.f64:
        return view.getFloat64(at, true)
      default:
        throw new Error(`GGUF: ${type} is not a scalar type`)
    }
  }

  if (u32() !== MAGIC) throw new Error("not a GGUF file (no GGUF magic)")
  const version = u32()
  if (version !== 3) throw new Error(`GGUF version ${version}: only version 3 is read here`)
  const tensorCount = u64()
  const count = Number(u64())
  const entries: Array<GgufEntry> = []
  for (let i = 0; i < count; i++) {
    const start = at
    const key = string()
    const type = u32()
    let value: GgufEntry["value"]
    let length: number | undefined
    if (type === GgufType.string) {
      const save = at
      value = string()
      at = save
    } else if (type === GgufType.array) {
      length = Number(view.getBigUint64(at + 4, true))
    } else {
      value = scalar(type)
    }
    skip(type)
    entries.push({ key, type, value, length, bytes: file.slice(start, at) })
  }
  return { version, tensorCount, entries }
}

/** A key/value to write: a scalar or string with its type, or an entry copied from another file. */
export type GgufValue =
  | { readonly key: string; readonly type: "u32" | "i32" | "f32" | "u64" | "bool"; readonly value: number | boolean }
  | { readonly key: string; readonly type: "string"; readonly value: string }
  | { readonly copy: GgufEntry }

/** An F32 tensor: its name, its dimensions innermost first (ggml's `ne`), and its values. */
export interface GgufTensor {
  readonly name: string
  readonly dims: ReadonlyArray<number>
  readonly data: Float32Array
}

class Bytes {
  private chunks: Array<Uint8Array> = []
  size = 0
  push(chunk: Uint8Array): void {
    this.chunks.push(chunk)
    this.size += chunk.byteLength
  }
  number(kind: "u32" | "i32" | "f32" | "u64" | "u8", value: number | bigint): void {
    const size = kind === "u64" ? 8 : kind === "u8" ? 1 : 4
    const chunk = new Uint8Array(size)
    const view = new DataView(chunk.buffer)
    if (kind === "u32") view.setUint32(0, Number(value), true)
    else if (kind === "i32") view.setInt32(0, Number(value), true)
    else if (kind === "f32") view.setFloat32(0, Number(value), true)
    else if (kind === "u8") view.setUint8(0, Number(value))
    else view.setBigUint64(0, BigInt(value), true)
    this.push(chunk)
  }
  string(text: string): void {
    const encoded = new TextEncoder().encode(text)
    this.number("u64", encoded.byteLength)
    this.push(encoded)
  }
  pad(): void {
    const rest = this.size % ALIGNMENT
    if (rest !== 0) this.push(new Uint8Array(ALIGNMENT - rest))
  }
  concat(): Uint8Array {
    const out = new Uint8Array(this.size)
    let at = 0
    for (const chunk of this.chunks) {
      out.set(chunk, at)
      at += chunk.byteLength
    }
    return out
  }
}

/** Writes a GGUF version 3 file: the key/values in order, then the F32 tensors, 32-byte aligned. */
export const writeGguf = (values: ReadonlyArray<GgufValue>, tensors: ReadonlyArray<GgufTensor>): Uint8Array => {
  const out = new Bytes()
  out.number("u32", MAGIC)
  out.number("u32", 3)
  out.number("u64", tensors.length)
  out.number("u64", values.length)
  for (const entry of values) {
    if ("copy" in entry) {
      out.push(entry.copy.bytes)
      continue
    }
    out.string(entry.key)
    out.number("u32", GgufType[entry.type])
    if (entry.type === "string") out.string(entry.value)
    else if (entry.type === "bool") out.number("u8", entry.value === true ? 1 : 0)
    else out.number(entry.type, Number(entry.value))
  }
  let offset = 0
  const offsets: Array<number> = []
  for (const tensor of tensors) {
    const expected = tensor.dims.reduce((a, b) => a * b, 1)
    if (expected !== tensor.data.length) {
      throw new Error(
        `tensor ${tensor.name}: dims ${tensor.dims.join("x")} need ${expected} values, got ${tensor.data.length}`
      )
    }
    offsets.push(offset)
    offset += Math.ceil(tensor.data.byteLength / ALIGNMENT) * ALIGNMENT
  }
  tensors.forEach((tensor, i) => {
    out.string(tensor.name)
    out.number("u32", tensor.dims.length)
    for (const dim of tensor.dims) out.number("u64", dim)
    out.number("u32", 0) // GGML_TYPE_F32
    out.number("u64", offsets[i] ?? 0)
  })
  out.pad()
  for (const tensor of tensors) {
    out.push(new Uint8Array(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength))
    out.pad()
  }
  return out.concat()
}
