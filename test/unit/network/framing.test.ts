import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { FrameDecoder, FrameSizeError } from '../../../src/network/framing.js'
import { frame, watchAllocations } from './helpers.js'

function drain(d: FrameDecoder): Buffer[] {
  const out: Buffer[] = []
  for (let f = d.next(); f !== undefined; f = d.next()) out.push(f)
  return out
}

describe('FrameDecoder', () => {
  it('decodes many frames pushed in one chunk, as views without copies', () => {
    const payloads = [Buffer.from('a'), Buffer.from('hello'), Buffer.alloc(300, 7)]
    const chunk = Buffer.concat(payloads.map(frame))
    const d = new FrameDecoder(1000)
    d.push(chunk)
    const frames = drain(d)
    assert.deepEqual(frames, payloads)
    assert.equal(frames[1]!.buffer, chunk.buffer, 'a frame inside one chunk is a view on it')
    assert.equal(d.bufferedBytes, 0)
    assert.equal(d.hasPartialFrame, false)
  })

  it('decodes frames (and size prefixes) split at every possible byte boundary', () => {
    const payloads = [Buffer.from('first'), Buffer.from('second frame'), Buffer.from('x')]
    const stream = Buffer.concat(payloads.map(frame))
    for (let cut1 = 0; cut1 <= stream.length; cut1++) {
      for (let cut2 = cut1; cut2 <= stream.length; cut2 += 3) {
        const d = new FrameDecoder(1000)
        const frames: Buffer[] = []
        for (const piece of [stream.subarray(0, cut1), stream.subarray(cut1, cut2), stream.subarray(cut2)]) {
          d.push(piece)
          frames.push(...drain(d))
        }
        assert.deepEqual(frames, payloads, `cuts at ${cut1}, ${cut2}`)
      }
    }
  })

  it('returns nothing until the whole frame has arrived, and allocates nothing for it before', () => {
    const d = new FrameDecoder(200 * 1024 * 1024)
    const head = Buffer.alloc(14)
    head.writeInt32BE(100_000_000, 0) // declares 100 MB, sends 10 bytes
    const allocations = watchAllocations()
    try {
      d.push(head)
      assert.equal(d.next(), undefined)
      d.push(Buffer.from('more'))
      assert.equal(d.next(), undefined)
    } finally {
      allocations.stop()
    }
    assert.ok(allocations.largest() < 1024, `allocated ${allocations.largest()} bytes`)
    assert.equal(d.bufferedBytes, 14)
    assert.equal(d.hasPartialFrame, true)
  })

  it('assembles a large frame from one-byte chunks in linear time', () => {
    const payload = Buffer.alloc(256 * 1024)
    for (let i = 0; i < payload.length; i++) payload[i] = i % 251
    const stream = frame(payload)
    const d = new FrameDecoder(1024 * 1024)
    const started = performance.now()
    let got: Buffer | undefined
    for (let i = 0; i < stream.length; i++) {
      d.push(stream.subarray(i, i + 1))
      got = d.next() ?? got
    }
    // O(n²) concatenation would copy ~34 GB here; the linear decoder takes milliseconds.
    assert.ok(performance.now() - started < 5_000)
    assert.ok(got?.equals(payload))
    assert.equal(d.bufferedBytes, 0)
  })

  for (const [label, size] of [
    ['negative', -1],
    ['int32 min', -2147483648],
    ['zero', 0],
    ['above the maximum', 1001],
  ] as const) {
    it(`rejects a ${label} size as soon as the prefix is complete`, () => {
      const d = new FrameDecoder(1000)
      const prefix = Buffer.alloc(4)
      prefix.writeInt32BE(size, 0)
      d.push(prefix.subarray(0, 3))
      assert.equal(d.next(), undefined)
      d.push(prefix.subarray(3))
      assert.throws(
        () => d.next(),
        (err: unknown) => err instanceof FrameSizeError && err.sizeBytes === size && err.maxBytes === 1000,
      )
    })
  }

  it('accepts a frame of exactly the maximum size', () => {
    const d = new FrameDecoder(1000)
    d.push(frame(Buffer.alloc(1000, 1)))
    assert.equal(d.next()?.length, 1000)
  })

  it('refuses a maximum outside 1..2^31-1', () => {
    assert.throws(() => new FrameDecoder(0), RangeError)
    assert.throws(() => new FrameDecoder(2 ** 31), RangeError)
  })
})
