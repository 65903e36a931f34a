// What a TLS listener does with clients that do not speak TLS properly: bytes that are not a
// TLS handshake (a plaintext Kafka request, or a megabyte of junk) close the connection at once,
// logged with the remote address; the broker keeps serving TLS clients.
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { type RunningBroker, startBroker } from '../../src/broker/start.js'
import { KafkaClient } from '../../src/client/client.js'
import { createLogger } from '../../src/util/logger.js'
import { makeCerts, sslSettings, type TestCerts } from '../helpers/certs.js'
import { waitFor } from '../helpers/clients.js'

const lines: string[] = []
const logger = createLogger('info', 'tls-bad-input', (line) => lines.push(line))

/** Sends `bytes` on a raw TCP connection; resolves with how many bytes came back once the broker closed it. */
function sendRaw(broker: RunningBroker, bytes: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const s = connect({ host: broker.host, port: broker.port })
    let got = 0
    s.on('data', (d: Buffer) => (got += d.length))
    s.on('error', () => {})
    s.on('close', () => resolve(got))
    s.write(bytes, () => {})
  })
}

describe('TLS listener and clients that do not speak TLS', () => {
  let certs: TestCerts
  let broker: RunningBroker
  before(async () => {
    certs = await makeCerts()
    broker = await startBroker({ storage: 'memory', config: { listeners: 'SSL://127.0.0.1:0', ...sslSettings(certs) }, logger })
  })
  after(async () => {
    await broker?.close()
    certs?.remove()
  })

  test('a plaintext ApiVersions request is closed and logged with the remote address', async () => {
    const apiVersions = Buffer.from('0000001100120003000000010007636c69656e7400', 'hex')
    const answered = await sendRaw(broker, apiVersions)
    assert.ok(answered < 64, `at most a TLS alert comes back, got ${answered} bytes`)
    await waitFor(
      () => lines.some((l) => l.includes('tls-handshake') && l.includes('127.0.0.1:')),
      'the close logged with the remote address',
      5000,
    )
  })

  test('a megabyte of junk is closed without being buffered, and TLS clients are still served', async () => {
    const before = lines.filter((l) => l.includes('tls-handshake')).length
    await sendRaw(broker, Buffer.alloc(1 << 20, 0x16))
    await waitFor(() => lines.filter((l) => l.includes('tls-handshake')).length > before, 'the junk connection logged', 5000)
    const client = await KafkaClient.connect({ bootstrap: [broker.bootstrap], security: { protocol: 'SSL', tls: { ca: certs.pem.ca } } })
    try {
      const md = await client.metadata([], { refresh: true })
      assert.equal(md.brokers.size, 1)
    } finally {
      await client.close()
    }
  })
})
