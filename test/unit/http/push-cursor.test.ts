// Cursors and record events of the push streams (src/http/push/cursor.ts): a cursor round-trips
// for any positions, anything else is refused with a 400, and record bytes come out as text only
// when all of them are UTF-8.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { decodeCursor, encodeCursor, PushError, Positions, recordEvent } from '../../../src/http/push/cursor.js'
import { parseFrom } from '../../../src/http/push/plan.js'

describe('push cursors', () => {
  it('round-trip any partition → next offset map', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.nat(10_000).map(String), fc.maxSafeNat(), { minKeys: 1 }), (obj) => {
        const m = new Map(Object.entries(obj).map(([k, v]) => [Number(k), v] as const))
        assert.deepEqual(decodeCursor(encodeCursor(m)), m)
      }),
    )
  })

  it('refuse what is not a cursor with a 400', () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64url')
    for (const bad of [
      '',
      '!!',
      b64('[]'),
      b64('{}'),
      b64('{"a":1}'),
      b64('{"0":-1}'),
      b64('{"0":1.5}'),
      b64('{"01":1}'),
      b64('null'),
      b64('{'),
    ]) {
      assert.throws(
        () => decodeCursor(bad),
        (e: unknown) => e instanceof PushError && e.status === 400,
        bad,
      )
    }
  })

  it('positions never move backwards', () => {
    const p = new Positions([[0, 5]])
    p.advance(0, 3)
    p.advance(1, 2)
    assert.deepEqual(
      [...p.next],
      [
        [0, 5],
        [1, 2],
      ],
    )
  })

  it('says text when key, value and headers are UTF-8, else base64 for all', () => {
    const base = { topic: 't', partition: 0, offset: 1, timestamp: 2 }
    const text = recordEvent({ ...base, key: Buffer.from('k'), value: Buffer.from('é'), headers: [{ key: 'h', value: Buffer.from('v') }] })
    assert.deepEqual([text.encoding, text.key, text.value, text.headers[0]!.value], ['text', 'k', 'é', 'v'])
    const bin = recordEvent({ ...base, key: Buffer.from('k'), value: Buffer.from([0xff, 0xfe]), headers: [] })
    assert.deepEqual([bin.encoding, bin.key, bin.value], ['base64', 'aw==', '//4='])
  })

  it('parses from= as earliest, latest or an ISO-8601 time', () => {
    assert.equal(parseFrom(undefined), -1)
    assert.equal(parseFrom('earliest'), -2)
    assert.equal(parseFrom('2026-01-02T03:04:05Z'), Date.parse('2026-01-02T03:04:05Z'))
    for (const bad of ['yesterday', '12345', '2026-13-45T99:99Z', '']) assert.throws(() => parseFrom(bad), PushError, bad)
  })
})
