// TLS listeners through kafkajs (ssl: {ca, cert, key}) and Node's own TLS client against an
// in-process broker: produce and consume over SSL; mTLS with ssl.client.auth=required (the
// client certificate works; none, or one from another CA, is refused); a TLS 1.1-only client is
// refused; the principal of an mTLS connection follows ssl.principal.mapping.rules (seen in the
// broker's debug log); and a broker certificate replaced on disk is what new connections see.
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect as tlsConnect, type PeerCertificate } from 'node:tls'
import { after, before, describe, test } from 'node:test'
import { Kafka, logLevel } from 'kafkajs'
import { type RunningBroker, startBroker } from '../../src/broker/start.js'
import { generateDevCerts } from '../../src/cli/dev-certs.js'
import { createLogger } from '../../src/util/logger.js'
import { makeCerts, sslSettings, type TestCerts } from '../helpers/certs.js'
import { waitFor } from '../helpers/clients.js'

const lines: string[] = []
const logger = createLogger('debug', 'tls-test', (line) => lines.push(line))

async function start(config: Record<string, string>): Promise<RunningBroker> {
  return startBroker({ storage: 'memory', config: { listeners: 'SSL://127.0.0.1:0', ...config }, logger })
}

function kafka(broker: RunningBroker, ssl: object): Kafka {
  return new Kafka({ clientId: 'tls-kafkajs', brokers: [broker.bootstrap], ssl, logLevel: logLevel.NOTHING, retry: { retries: 0 } })
}

async function roundTrip(k: Kafka, topic: string): Promise<string[]> {
  const admin = k.admin()
  await admin.connect()
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true })
  } finally {
    await admin.disconnect()
  }
  const producer = k.producer()
  await producer.connect()
  await producer.send({ topic, acks: -1, messages: [{ value: 'one' }, { value: 'two' }] })
  await producer.disconnect()
  const consumer = k.consumer({ groupId: `${topic}-group`, maxWaitTimeInMs: 100 })
  await consumer.connect()
  const seen: string[] = []
  try {
    await consumer.subscribe({ topic, fromBeginning: true })
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(message.value!.toString()) })
    await waitFor(() => seen.length >= 2, 'two records consumed', 20_000)
  } finally {
    await consumer.disconnect()
  }
  return seen
}

/** The certificate a new TLS connection to the broker is shown. */
function peerCertificate(broker: RunningBroker, ca: string): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const s = tlsConnect({ host: broker.host, port: broker.port, ca, servername: 'localhost' }, () => {
      const cert = s.getPeerCertificate()
      s.end()
      resolve(cert)
    })
    s.once('error', reject)
  })
}

describe('TLS listener with kafkajs', () => {
  let certs: TestCerts
  let other: TestCerts
  before(async () => {
    certs = await makeCerts()
    other = await makeCerts()
  })
  after(() => {
    certs?.remove()
    other?.remove()
  })

  describe('SSL without client authentication', () => {
    let broker: RunningBroker
    before(async () => {
      broker = await start(sslSettings(certs))
    })
    after(async () => broker?.close())

    test('produces and consumes over TLS, trusting the dev CA', async () => {
      assert.deepEqual(await roundTrip(kafka(broker, { ca: [certs.pem.ca] }), 'tls-plain'), ['one', 'two'])
    })

    test('a client that does not trust the broker certificate cannot connect', async () => {
      const admin = kafka(broker, { ca: [other.pem.ca] }).admin()
      await assert.rejects(admin.connect())
    })

    test('a TLS 1.1-only client is refused by the broker; the same client with TLS 1.2 gets in', async () => {
      const attempt = (maxVersion: 'TLSv1.1' | 'TLSv1.2') =>
        new Promise<string>((resolve) => {
          // SECLEVEL=0 lets this client's OpenSSL offer TLS 1.1 at all, so the refusal is the broker's.
          const s = tlsConnect({
            host: broker.host,
            port: broker.port,
            ca: certs.pem.ca,
            servername: 'localhost',
            minVersion: 'TLSv1',
            maxVersion,
            ciphers: 'DEFAULT@SECLEVEL=0',
          })
          s.once('secureConnect', () => {
            resolve(s.getProtocol() ?? '?')
            s.end()
          })
          s.once('error', (err: NodeJS.ErrnoException) => resolve(`error ${err.code ?? err.message}`))
        })
      assert.match(await attempt('TLSv1.1'), /^error /)
      await waitFor(() => lines.some((l) => l.includes('tls-handshake') && /protocol|version/i.test(l)), 'the refusal logged', 5_000)
      assert.equal(await attempt('TLSv1.2'), 'TLSv1.2')
    })
  })

  describe('mTLS (ssl.client.auth=required) and ssl.principal.mapping.rules', () => {
    let broker: RunningBroker
    before(async () => {
      broker = await start(
        sslSettings(certs, { 'ssl.client.auth': 'required', 'ssl.principal.mapping.rules': 'RULE:^CN=([a-z]+)$/$1-mapped/U,DEFAULT' }),
      )
    })
    after(async () => broker?.close())

    test('a client with a certificate from the trusted CA produces and consumes, as the mapped principal', async () => {
      const k = kafka(broker, { ca: [certs.pem.ca], cert: certs.pem.clientCert, key: certs.pem.clientKey })
      assert.deepEqual(await roundTrip(k, 'tls-mtls'), ['one', 'two'])
      assert.ok(
        lines.some((l) => l.includes('connection accepted') && l.includes('User:CLIENT-MAPPED')),
        'the broker logs the principal CN=client mapped to CLIENT-MAPPED',
      )
    })

    test('a client without a certificate is refused', async () => {
      const admin = kafka(broker, { ca: [certs.pem.ca] }).admin()
      await assert.rejects(admin.connect())
    })

    test('a client with a certificate from another CA is refused, and the log says why', async () => {
      const admin = kafka(broker, { ca: [certs.pem.ca], cert: other.pem.clientCert, key: other.pem.clientKey }).admin()
      await assert.rejects(admin.connect())
      await waitFor(
        () => lines.some((l) => l.includes('kind=tls-handshake') && l.includes('client certificate not trusted')),
        'the untrusted certificate named in the log',
        5_000,
      )
    })
  })

  describe('ssl.client.auth=requested', () => {
    let broker: RunningBroker
    before(async () => {
      broker = await start(sslSettings(certs, { 'ssl.client.auth': 'requested' }))
    })
    after(async () => broker?.close())

    test('a client without a certificate gets in as User:ANONYMOUS; one with a trusted certificate as its DN', async () => {
      assert.deepEqual(await roundTrip(kafka(broker, { ca: [certs.pem.ca] }), 'tls-requested-anon'), ['one', 'two'])
      assert.ok(lines.some((l) => l.includes('connection accepted') && l.includes(`listener=SSL`) && l.includes('User:ANONYMOUS')))
      const k = kafka(broker, { ca: [certs.pem.ca], cert: certs.pem.clientCert, key: certs.pem.clientKey })
      assert.deepEqual(await roundTrip(k, 'tls-requested-cert'), ['one', 'two'])
      assert.ok(lines.some((l) => l.includes('connection accepted') && l.includes('User:CN=client')))
    })

    test('a client with a certificate from another CA is refused', async () => {
      const admin = kafka(broker, { ca: [certs.pem.ca], cert: other.pem.clientCert, key: other.pem.clientKey }).admin()
      await assert.rejects(admin.connect())
    })
  })

  test('a broker certificate replaced on disk is what new connections see', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tributary-reload-'))
    const first = await generateDevCerts({ dir })
    const broker = await start(sslSettings(first))
    try {
      const ca = readFileSync(first.ca, 'utf8')
      const before = (await peerCertificate(broker, ca)).serialNumber
      await generateDevCerts({ dir }) // the same CA, a new broker certificate, renamed into place
      const after = await waitFor(
        async () => {
          const serial = (await peerCertificate(broker, ca)).serialNumber
          return serial !== before ? serial : undefined
        },
        'a new connection shown the new certificate',
        15_000,
      )
      assert.notEqual(after, before)
      assert.ok(lines.some((l) => l.includes('TLS material reloaded')))
      // A broken key store on disk is logged and the material in use kept.
      writeFileSync(first.brokerKeystore, 'not a key store\n')
      await waitFor(() => lines.some((l) => l.includes('keeping the previous')), 'the bad key store logged', 15_000)
      assert.equal((await peerCertificate(broker, ca)).serialNumber, after)
    } finally {
      await broker.close()
    }
  })
})
