/**
 * A compact, pure, synchronous SHA-256 (FIPS 180-4) of a string's UTF-8 bytes. The governor hashes full-read
 * results whose tool reports no digest; a platform crypto module would make the package Node-only or async.
 *
 * @internal
 */

const K = new Uint32Array([
  0x428a2f98,
  0x71374491,
  0xb5c0fbcf,
  0xe9b5dba5,
  0x3956c25b,
  0x59f111f1,
  0x923f82a4,
  0xab1c5ed5,
  0xd807aa98,
  0x12835b01,
  0x243185be,
  0x550c7dc3,
  0x72be5d74,
  0x80deb1fe,
  0x9bdc06a7,
  0xc19bf174,
  0xe49b69c1,
  0xefbe4786,
  0x0fc19dc6,
  0x240ca1cc,
  0x2de92c6f,
  0x4a7484aa,
  0x5cb0a9dc,
  0x76f988da,
  0x983e5152,
  0xa831c66d,
  0xb00327c8,
  0xbf597fc7,
  0xc6e00bf3,
  0xd5a79147,
  0x06ca6351,
  0x14292967,
  0x27b70a85,
  0x2e1b2138,
  0x4d2c6dfc,
  0x53380d13,
  0x650a7354,
  0x766a0abb,
  0x81c2c92e,
  0x92722c85,
  0xa2bfe8a1,
  0xa81a664b,
  0xc24b8b70,
  0xc76c51a3,
  0xd192e819,
  0xd6990624,
  0xf40e3585,
  0x106aa070,
  0x19a4c116,
  0x1e376c08,
  0x2748774c,
  0x34b0bcb5,
  0x391c0cb3,
  0x4ed8aa4a,
  0x5b9cca4f,
  0x682e6ff3,
  0x748f82ee,
  0x78a5636f,
  0x84c87814,
  0x8cc70208,
  0x90befffa,
  0xa4506ceb,
  0xbef9a3f7,
  0xc67178f2
])

/** The number of bytes of `text` in UTF-8 (a lone surrogate counts as U+FFFD, 3 bytes, as encoders write it). */
export const utf8Length = (text: string): number => {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) bytes += 1
    else if (c < 0x800) bytes += 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4
        i++
      } else bytes += 3
    } else bytes += 3
  }
  return bytes
}

/** `text` as UTF-8 bytes, followed by the SHA-256 padding (0x80, zeros, 64-bit big-endian bit length). */
const padded = (text: string): Uint8Array => {
  const length = utf8Length(text)
  const total = Math.ceil((length + 9) / 64) * 64
  const out = new Uint8Array(total)
  let p = 0
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdfff) {
      const d = i + 1 < text.length ? text.charCodeAt(i + 1) : 0
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00)
        i++
      } else c = 0xfffd
    }
    if (c < 0x80) out[p++] = c
    else if (c < 0x800) {
      out[p++] = 0xc0 | (c >> 6)
      out[p++] = 0x80 | (c & 63)
    } else if (c < 0x10000) {
      out[p++] = 0xe0 | (c >> 12)
      out[p++] = 0x80 | ((c >> 6) & 63)
      out[p++] = 0x80 | (c & 63)
    } else {
      out[p++] = 0xf0 | (c >> 18)
      out[p++] = 0x80 | ((c >> 12) & 63)
      out[p++] = 0x80 | ((c >> 6) & 63)
      out[p++] = 0x80 | (c & 63)
    }
  }
  out[p] = 0x80
  // The bit length, big-endian, in the last 8 bytes (split: bitwise operators only see 32 bits).
  const bits = length * 8
  const high = Math.floor(bits / 0x100000000)
  const low = bits >>> 0
  for (let k = 0; k < 4; k++) {
    out[total - 1 - k] = (low >>> (8 * k)) & 0xff
    out[total - 5 - k] = (high >>> (8 * k)) & 0xff
  }
  return out
}

const hex = (n: number): string => (n >>> 0).toString(16).padStart(8, "0")

/**
 * The SHA-256 digest of `text` (encoded as UTF-8), as 64 lowercase hex digits: for `"abc"`,
 * `ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad` (FIPS 180-4's first test vector, checked
 * against `node:crypto` in `test/Sha256.test.ts`).
 */
export const sha256Hex = (text: string): string => {
  const bytes = padded(text)
  const w = new Uint32Array(64)
  let h0 = 0x6a09e667, h1 = 0xbb67ae85, h2 = 0x3c6ef372, h3 = 0xa54ff53a
  let h4 = 0x510e527f, h5 = 0x9b05688c, h6 = 0x1f83d9ab, h7 = 0x5be0cd19
  for (let block = 0; block < bytes.length; block += 64) {
    for (let t = 0; t < 16; t++) {
      const j = block + t * 4
      // `bytes` has a multiple of 64 bytes, so every index read here exists.
      w[t] = ((bytes[j]! << 24) | (bytes[j + 1]! << 16) | (bytes[j + 2]! << 8) | bytes[j + 3]!) >>> 0
    }
    // 16 <= t < 64: every w index read below is in [0, 64).
    for (let t = 16; t < 64; t++) {
      const a = w[t - 15]!
      const b = w[t - 2]!
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3)
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10)
      w[t] = (w[t - 16]! + s0 + w[t - 7]! + s1) >>> 0
    }
    let a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7
    for (let t = 0; t < 64; t++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))
      const ch = (e & f) ^ (~e & g)
      // `t` < 64 = K.length = w.length.
      const t1 = (h + S1 + ch + K[t]! + w[t]!) >>> 0
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))
      const maj = (a & b) ^ (a & c) ^ (b & c)
      const t2 = (S0 + maj) >>> 0
      h = g
      g = f
      f = e
      e = (d + t1) >>> 0
      d = c
      c = b
      b = a
      a = (t1 + t2) >>> 0
    }
    h0 = (h0 + a) >>> 0
    h1 = (h1 + b) >>> 0
    h2 = (h2 + c) >>> 0
    h3 = (h3 + d) >>> 0
    h4 = (h4 + e) >>> 0
    h5 = (h5 + f) >>> 0
    h6 = (h6 + g) >>> 0
    h7 = (h7 + h) >>> 0
  }
  return hex(h0) + hex(h1) + hex(h2) + hex(h3) + hex(h4) + hex(h5) + hex(h6) + hex(h7)
}
