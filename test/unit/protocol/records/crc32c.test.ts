import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { crc32c, crc32cIsNative, crc32cJs } from '../../../../src/protocol/records/crc32c.js'

/** Bit-at-a-time reference implementation. */
function reference(buf: Uint8Array, start = 0, end = buf.length): number {
  let crc = 0xffffffff
  for (let i = start; i < end; i++) {
    crc ^= buf[i]!
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1
  }
  return (crc ^ 0xffffffff) >>> 0
}

test('crc32c known vectors (RFC 3720 B.4 and the check value)', () => {
  assert.equal(crc32c(Buffer.from('123456789')), 0xe3069283)
  assert.equal(crc32c(Buffer.alloc(0)), 0)
  assert.equal(crc32c(Buffer.alloc(32, 0)), 0x8a9136aa)
  assert.equal(crc32c(Buffer.alloc(32, 0xff)), 0x62a8ab43)
  assert.equal(crc32c(Buffer.from(Array.from({ length: 32 }, (_, i) => i))), 0x46dd794e)
  assert.equal(crc32c(Buffer.from(Array.from({ length: 32 }, (_, i) => 31 - i))), 0x113fdb5c)
})

test('crc32c slicing-by-16 matches the bitwise reference on random ranges', () => {
  const buf = randomBytes(4099)
  for (const [s, e] of [
    [0, 4099],
    [1, 4099],
    [3, 17],
    [7, 8],
    [5, 5],
    [100, 1203],
  ] as const) {
    assert.equal(crc32c(buf, s, e), reference(buf, s, e), `range ${s}..${e}`)
  }
})

test('crc32c reads views at any byte offset, and every length around the 16-byte stride', () => {
  const backing = randomBytes(300)
  for (let offset = 0; offset < 5; offset++) {
    const view = backing.subarray(offset, offset + 200)
    for (let len = 0; len <= 40; len++) assert.equal(crc32c(view, 0, len), reference(view, 0, len), `offset ${offset} len ${len}`)
    assert.equal(crc32c(view, 9, 200), reference(view, 9, 200), `offset ${offset} from 9`)
  }
})

test('crc32c rejects a range outside the buffer', () => {
  assert.throws(() => crc32c(Buffer.alloc(4), 0, 5), RangeError)
  assert.throws(() => crc32c(Buffer.alloc(4), 3, 2), RangeError)
})

test('the native implementation loads here, and both implementations agree with the reference at every size around the switch-over', () => {
  // @node-rs/crc32 ships a prebuilt binary for this platform: if it stopped loading, produce
  // validation would silently fall back to the 3× slower loop.
  assert.equal(crc32cIsNative, true)
  const backing = randomBytes(70_000)
  for (const [offset, len] of [
    [0, 511],
    [0, 512],
    [3, 513],
    [21, 1024],
    [5, 4099],
    [1, 65_536],
    [0, 70_000],
  ] as const) {
    const want = reference(backing, offset, offset + len)
    assert.equal(crc32c(backing, offset, offset + len), want, `dispatch, offset ${offset} len ${len}`)
    assert.equal(crc32cJs(backing, offset, offset + len), want, `js, offset ${offset} len ${len}`)
  }
  // A view into a larger buffer at an odd offset goes to the native code with the right range.
  const view = backing.subarray(777, 777 + 5000)
  assert.equal(crc32c(view, 100, 4000), reference(view, 100, 4000))
})
