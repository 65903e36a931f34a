import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseListeners, parseSecurityProtocolMap } from '../../../src/network/listeners.js'

describe('parseListeners', () => {
  it('parses Kafka listener syntax: empty host, IPv6 in brackets, host names, spaces', () => {
    assert.deepEqual(
      parseListeners(
        ' PLAINTEXT://127.0.0.1:9092, internal://:9093,V6://[::1]:0 ,HOST://broker-1.example.com:19092,',
        'PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT,V6:PLAINTEXT,HOST:PLAINTEXT',
      ),
      [
        { name: 'PLAINTEXT', host: '127.0.0.1', port: 9092, securityProtocol: 'PLAINTEXT' },
        { name: 'INTERNAL', host: '0.0.0.0', port: 9093, securityProtocol: 'PLAINTEXT' },
        { name: 'V6', host: '::1', port: 0, securityProtocol: 'PLAINTEXT' },
        { name: 'HOST', host: 'broker-1.example.com', port: 19092, securityProtocol: 'PLAINTEXT' },
      ],
    )
  })

  it('defaults to the identity protocol map', () => {
    assert.deepEqual(parseListeners('PLAINTEXT://localhost:9092'), [
      { name: 'PLAINTEXT', host: 'localhost', port: 9092, securityProtocol: 'PLAINTEXT' },
    ])
    assert.throws(() => parseListeners('INTERNAL://:9093'), /no security protocol for listener INTERNAL/)
  })

  it('needs a security protocol map entry for custom names when a map is given', () => {
    assert.deepEqual(parseListeners('INTERNAL://:9093', 'internal:plaintext'), [
      { name: 'INTERNAL', host: '0.0.0.0', port: 9093, securityProtocol: 'PLAINTEXT' },
    ])
    // A given map replaces the default, as in Kafka.
    assert.throws(() => parseListeners('PLAINTEXT://:9092', 'INTERNAL:PLAINTEXT'), /PLAINTEXT:PLAINTEXT|no security protocol/)
  })

  it('serves the four security protocols', () => {
    assert.deepEqual(parseListeners('SSL://:9093'), [{ name: 'SSL', host: '0.0.0.0', port: 9093, securityProtocol: 'SSL' }])
    assert.equal(parseListeners('EXTERNAL://:9093', 'EXTERNAL:SASL_SSL')[0]!.securityProtocol, 'SASL_SSL')
    assert.equal(parseListeners('SASL_PLAINTEXT://:9094')[0]!.securityProtocol, 'SASL_PLAINTEXT')
  })

  const bad: Array<[string, RegExp]> = [
    ['', /no listener/],
    ['127.0.0.1:9092', /"127\.0\.0\.1:9092".*NAME:\/\/host:port/],
    ['PLAINTEXT://127.0.0.1', /missing ":port"/],
    ['PLAINTEXT://127.0.0.1:99999', /port "99999"/],
    ['PLAINTEXT://127.0.0.1:-1', /port "-1"/],
    ['PLAINTEXT://127.0.0.1:', /port ""/],
    ['PLAINTEXT://::1:9092', /brackets/],
    ['PLAINTEXT://[::1:9092', /missing "]"/],
    ['PLAINTEXT://[nothost]:9092', /not an IPv6 address/],
    ['PLAINTEXT://[::1]9092', /":port"/],
    ['PLAIN TEXT://:9092', /listener name/],
    ['PLAINTEXT://a b:9092', /not a valid host/],
    ['PLAINTEXT://:9092,plaintext://:9093', /PLAINTEXT appears more than once/],
  ]
  for (const [value, message] of bad) {
    it(`refuses ${JSON.stringify(value)}, naming the entry`, () => {
      assert.throws(() => parseListeners(value), message)
    })
  }
})

describe('parseSecurityProtocolMap', () => {
  it('defaults to the identity map of the four protocols', () => {
    assert.deepEqual(
      [...parseSecurityProtocolMap().entries()],
      [
        ['PLAINTEXT', 'PLAINTEXT'],
        ['SSL', 'SSL'],
        ['SASL_PLAINTEXT', 'SASL_PLAINTEXT'],
        ['SASL_SSL', 'SASL_SSL'],
      ],
    )
  })

  it('parses NAME:PROTOCOL pairs case-insensitively', () => {
    assert.deepEqual(
      [...parseSecurityProtocolMap('internal:plaintext, EXTERNAL:SSL').entries()],
      [
        ['INTERNAL', 'PLAINTEXT'],
        ['EXTERNAL', 'SSL'],
      ],
    )
  })

  it('refuses malformed entries, unknown protocols and duplicates', () => {
    assert.throws(() => parseSecurityProtocolMap('INTERNAL'), /"INTERNAL".*LISTENER_NAME:PROTOCOL/)
    assert.throws(() => parseSecurityProtocolMap('A:B:C'), /"A:B:C"/)
    assert.throws(() => parseSecurityProtocolMap('INTERNAL:TLS'), /unknown security protocol "TLS"/)
    assert.throws(() => parseSecurityProtocolMap('A:SSL,a:PLAINTEXT'), /more than once/)
  })
})
