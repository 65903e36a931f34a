// The OAUTHBEARER client initial response (RFC 7628 §3.1): what the parser accepts and returns,
// and that our client's builder writes what it reads.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  OAuthBearerMessageError,
  buildInitialResponse,
  jsonErrorResponse,
  parseInitialResponse,
} from '../../../src/protocol/sasl/oauthbearer-message.js'

const parse = (s: string) => parseInitialResponse(Buffer.from(s, 'latin1'))

describe('OAUTHBEARER client initial response', () => {
  it('reads the token, authzid and extensions', () => {
    const m = parse('n,a=us=3Der=2C1,\x01auth=Bearer abc.def-_~+/.ghi==\x01traceId=x y\x01\x01')
    assert.equal(m.token, 'abc.def-_~+/.ghi==')
    assert.equal(m.authzid, 'us=er,1')
    assert.deepEqual([...m.extensions], [['traceId', 'x y']])
  })

  it('accepts any case of the scheme and several spaces, as Kafka does', () => {
    assert.equal(parse('n,,\x01auth=bEaReR   tok\x01\x01').token, 'tok')
  })

  it('keeps the last value of a repeated key, as Kafka does', () => {
    assert.equal(parse('n,,\x01auth=Bearer one\x01auth=Bearer two\x01\x01').token, 'two')
  })

  it('refuses malformed messages with a message that never holds the token', () => {
    for (const s of [
      'p=tls-unique,,\x01auth=Bearer secret-token\x01\x01',
      'n,a=,\x01auth=Bearer secret-token\x01\x01',
      'n,,\x01auth=Bearer secret-token\x01=v\x01\x01',
      'n,,\x01auth=Bearer secret token\x01\x01',
      'n,,\x01auth=Bearer secret-token\x01\x01\x01',
      'n,,\x01auth=Bearer secret-token\x01ext=\xe9\x01\x01',
    ]) {
      assert.throws(
        () => parse(s),
        (err: Error) => err instanceof OAuthBearerMessageError && !err.message.includes('secret'),
        JSON.stringify(s),
      )
    }
  })

  it('builds what it parses, escaping the authzid', () => {
    const b = buildInitialResponse('t.o.k', 'a,b=c', { k: 'v' })
    assert.equal(b.toString('latin1'), 'n,a=a=2Cb=3Dc,\x01auth=Bearer t.o.k\x01k=v\x01\x01')
    const m = parseInitialResponse(b)
    assert.deepEqual([m.token, m.authzid, [...m.extensions]], ['t.o.k', 'a,b=c', [['k', 'v']]])
    assert.equal(buildInitialResponse('t').toString('latin1'), 'n,,\x01auth=Bearer t\x01\x01')
    assert.throws(() => buildInitialResponse('t', '', { auth: 'x' }), OAuthBearerMessageError)
  })

  it('writes the JSON error as Kafka does', () => {
    assert.equal(jsonErrorResponse('invalid_token'), '{"status":"invalid_token"}')
    assert.equal(jsonErrorResponse('invalid_token', 'a b', 'u'), '{"status":"invalid_token", "scope":"a b", "openid-configuration":"u"}')
  })
})
