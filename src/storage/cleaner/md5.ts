// MD5 (RFC 1321) of a byte range into four 32-bit words, without allocating: the cleaner's key map
// hashes every key twice per cleaning (once to map it, once to look it up), and node:crypto's
// one-shot hash() costs about 1.8 µs a call in argument handling alone — more than the whole
// digest of a short key here. Checked against node:crypto in the tests.

/** Per-round shift amounts. */
const S = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21]
/** floor(abs(sin(i + 1)) × 2^32), as signed 32-bit integers. */
const K = Int32Array.from({ length: 64 }, (_, i) => Math.floor(Math.abs(Math.sin(i + 1)) * 0x100000000) | 0)
const block = new Int32Array(16)
const tail = new Uint8Array(128)
const state = new Int32Array(4)

/** The digest of data[start, end) as four little-endian words (out[0] holds bytes 0-3 of the digest). */
export function md5Words(data: Uint8Array, start: number, end: number, out: Uint32Array): void {
  state[0] = 0x67452301
  state[1] = 0xefcdab89 | 0
  state[2] = 0x98badcfe | 0
  state[3] = 0x10325476
  const length = end - start
  let pos = start
  for (; pos + 64 <= end; pos += 64) {
    for (let i = 0; i < 16; i++) {
      const p = pos + i * 4
      block[i] = data[p]! | (data[p + 1]! << 8) | (data[p + 2]! << 16) | (data[p + 3]! << 24)
    }
    compress()
  }
  // Padding: 0x80, zeros, then the bit length as a 64-bit little-endian integer.
  const rest = end - pos
  const blocks = rest + 9 > 64 ? 2 : 1
  tail.fill(0, 0, blocks * 64)
  for (let i = 0; i < rest; i++) tail[i] = data[pos + i]!
  tail[rest] = 0x80
  const bits = length * 8
  const at = blocks * 64 - 8
  tail[at] = bits & 0xff
  tail[at + 1] = (bits >>> 8) & 0xff
  tail[at + 2] = (bits >>> 16) & 0xff
  tail[at + 3] = (bits >>> 24) & 0xff
  const high = Math.floor(bits / 0x100000000)
  tail[at + 4] = high & 0xff
  tail[at + 5] = (high >>> 8) & 0xff
  tail[at + 6] = (high >>> 16) & 0xff
  tail[at + 7] = (high >>> 24) & 0xff
  for (let b = 0; b < blocks; b++) {
    for (let i = 0; i < 16; i++) {
      const p = b * 64 + i * 4
      block[i] = tail[p]! | (tail[p + 1]! << 8) | (tail[p + 2]! << 16) | (tail[p + 3]! << 24)
    }
    compress()
  }
  out[0] = state[0]! >>> 0
  out[1] = state[1]! >>> 0
  out[2] = state[2]! >>> 0
  out[3] = state[3]! >>> 0
}

function compress(): void {
  let a = state[0]!
  let b = state[1]!
  let c = state[2]!
  let d = state[3]!
  for (let i = 0; i < 64; i++) {
    let f: number
    let g: number
    if (i < 16) {
      f = (b & c) | (~b & d)
      g = i
    } else if (i < 32) {
      f = (d & b) | (~d & c)
      g = (5 * i + 1) & 15
    } else if (i < 48) {
      f = b ^ c ^ d
      g = (3 * i + 5) & 15
    } else {
      f = c ^ (b | ~d)
      g = (7 * i) & 15
    }
    const s = S[((i >>> 4) << 2) | (i & 3)]!
    const x = (a + f + K[i]! + block[g]!) | 0
    a = d
    d = c
    c = b
    b = (b + ((x << s) | (x >>> (32 - s)))) | 0
  }
  state[0] = (state[0]! + a) | 0
  state[1] = (state[1]! + b) | 0
  state[2] = (state[2]! + c) | 0
  state[3] = (state[3]! + d) | 0
}
