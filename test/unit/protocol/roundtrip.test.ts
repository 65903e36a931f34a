// Golden round trip: every declared message, at every version it declares, encodes a sample value
// with every field set and decodes back to the same value.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { apis } from '../../../src/protocol/messages/index.js'
import { sampleMessage } from '../../helpers/sample-values.js'

for (const { request, response } of apis) {
  describe(`${request.name} (key ${request.apiKey})`, () => {
    test('request and response agree on key, versions and flexible versions', () => {
      assert.equal(response.apiKey, request.apiKey)
      assert.deepEqual(response.versions, request.versions)
      assert.deepEqual(response.flexible, request.flexible)
    })
    for (const msg of [request, response]) {
      const kind = msg === request ? 'request' : 'response'
      for (let v = msg.versions.min; v <= msg.versions.max; v++) {
        test(`${kind} v${v} round-trips`, () => {
          const value = sampleMessage(msg, v, v * 7)
          const bytes = msg.encode(v, value)
          assert.deepEqual(msg.decode(v, bytes), value)
          // Re-encoding the decoded value yields the same bytes.
          assert.deepEqual(msg.encode(v, msg.decode(v, bytes)), bytes)
        })
        test(`${kind} v${v} refuses every truncation`, () => {
          const bytes = msg.encode(v, sampleMessage(msg, v, v * 7))
          for (let cut = 0; cut < bytes.length; cut++) {
            assert.throws(() => msg.decode(v, bytes.subarray(0, cut)), /DecodeError|need|trailing|exceeds|null/)
          }
        })
      }
    }
  })
}
