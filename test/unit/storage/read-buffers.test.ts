// The pool of segment read buffers: large reads reuse buffers given back, views of them are
// accepted, anything else (small reads, foreign buffers, a second release) changes nothing, and
// the free bytes stay under the cap.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ReadBufferPool } from '../../../src/storage/read-buffers.js'

describe('ReadBufferPool', () => {
  it('hands a released buffer out again for a read of the same size class', () => {
    const pool = new ReadBufferPool()
    const a = pool.acquire(1_000_000)
    assert.equal(a.length, 1_000_000)
    a.fill(7)
    pool.release(a.subarray(10, 20)) // a view names its buffer
    assert.equal(pool.pooled, 1 << 20)
    const b = pool.acquire(900_000)
    assert.equal(b.buffer, a.buffer, 'the same memory, reused')
    assert.equal(b.length, 900_000)
    assert.equal(pool.pooled, 0)
  })

  it('ignores a second release, small reads and buffers it did not hand out', () => {
    const pool = new ReadBufferPool()
    const a = pool.acquire(100_000)
    pool.release(a)
    pool.release(a)
    assert.equal(pool.pooled, 128 * 1024, 'counted once')
    const small = pool.acquire(1000)
    pool.release(small)
    pool.release(Buffer.alloc(200_000))
    assert.equal(pool.pooled, 128 * 1024)
    // After the double release, the buffer is handed out once, not twice.
    const x = pool.acquire(100_000)
    const y = pool.acquire(100_000)
    assert.notEqual(x.buffer, y.buffer)
  })

  it('keeps no more free bytes than its cap', () => {
    const pool = new ReadBufferPool(3 * 65_536)
    const bufs = Array.from({ length: 5 }, () => pool.acquire(65_536))
    for (const b of bufs) pool.release(b)
    assert.equal(pool.pooled, 3 * 65_536)
  })
})
