// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of record batch v2: it covers
// the batch from the attributes field (byte 21) to the end (KIP-98). Pure JS, slicing-by-8: eight
// 256-entry tables let the inner loop fold 8 input bytes per iteration with 8 table lookups.

const POLY = 0x82f63b78

/** Table k (at k*256) gives the CRC contribution of a byte followed by k zero bytes. */
const T = new Uint32Array(8 * 256)
for (let n = 0; n < 256; n++) {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1
  T[n] = c
}
for (let n = 0; n < 256; n++) {
  let c = T[n]!
  for (let k = 1; k < 8; k++) {
    c = T[c & 0xff]! ^ (c >>> 8)
    T[k * 256 + n] = c
  }
}

/** CRC-32C of buf[start..end), as an unsigned 32-bit number. */
export function crc32c(buf: Uint8Array, start = 0, end: number = buf.length): number {
  if (start < 0 || end > buf.length || start > end) {
    throw new RangeError(`crc32c range [${start}, ${end}) outside buffer of ${buf.length} bytes`)
  }
  let crc = 0xffffffff
  let i = start
  const end8 = end - ((end - start) % 8)
  while (i < end8) {
    const a = crc ^ (buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24))
    crc =
      T[1792 + (a & 0xff)]! ^
      T[1536 + ((a >>> 8) & 0xff)]! ^
      T[1280 + ((a >>> 16) & 0xff)]! ^
      T[1024 + (a >>> 24)]! ^
      T[768 + buf[i + 4]!]! ^
      T[512 + buf[i + 5]!]! ^
      T[256 + buf[i + 6]!]! ^
      T[buf[i + 7]!]!
    i += 8
  }
  while (i < end) crc = T[(crc ^ buf[i++]!) & 0xff]! ^ (crc >>> 8)
  return (crc ^ 0xffffffff) >>> 0
}
