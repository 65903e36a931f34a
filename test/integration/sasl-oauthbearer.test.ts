// SASL/OAUTHBEARER through real clients against a broker process whose SASL_PLAINTEXT listener
// validates tokens against a JWKS file (listener.name.sasl_plaintext.oauthbearer.sasl.oauthbearer.*):
// kafkajs (oauthBearerProvider), confluent-kafka for Python (librdkafka 2.16, oauth_cb with a
// pre-made token, test/interop/python/oauthbearer.py) and the Java 4.4 client (Kafka's own login
// callback handler reading the token from a file: test/interop/java OAuthBearer) produce and read
// back with a valid token; expired or wrongly addressed tokens are refused with
// SASL_AUTHENTICATION_FAILED and Kafka's {"status":"invalid_token"}. Our own Connection speaks the
// exchange step by step to show the RFC 7628 error then %x01, and KIP-368: the session lifetime the
// broker gives follows the token's exp, and the connection is closed once it has passed. A broker
// with OAUTHBEARER enabled and no JWKS URL does not start, naming the key. A broker whose JWKS is
// served over HTTP fetches it at start-up and again when a token names a new kid. Missing python3,
// confluent_kafka, java or mvn fails this file; it never skips.
import assert from 'node:assert/strict'
import { readFile, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { Kafka, logLevel } from 'kafkajs'
import { KafkaClient } from '../../src/client/client.js'
import { Connection } from '../../src/client/connection.js'
import { ClientError } from '../../src/client/errors.js'
import { oauthBearerInitialResponse, oauthBearerReply } from '../../src/client/sasl-oauthbearer.js'
import { ErrorCode } from '../../src/protocol/errors.js'
import { SaslAuthenticateRequest, SaslAuthenticateResponse } from '../../src/protocol/messages/36-sasl-authenticate.js'
import { SaslHandshakeRequest, SaslHandshakeResponse } from '../../src/protocol/messages/17-sasl-handshake.js'
import { type BrokerProcess, makeTempDir, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { AUDIENCE, ISSUER, type SigningKey, jwksFile, jwksOf, signingKey, tokenFor as makeToken } from '../helpers/oauth.js'
import { tributary, tributaryOk } from '../helpers/cli.js'
import { kafkajsRoundTrip, waitFor } from '../helpers/clients.js'
import { javaCommand, runProcess, show } from '../helpers/run-process.js'
import { saslBrokerOverrides } from '../helpers/sasl.js'
import { buildJavaPrograms, type JavaPrograms } from '../interop/txn-broker.js'

const SCRIPT = fileURLToPath(new URL('../../../test/interop/python/oauthbearer.py', import.meta.url))
const PY_HINT = 'install Python 3, then: pip install confluent-kafka==2.16.1'
const JAVA_HINT = 'this test needs Java 17+ and Maven'
const INVALID_TOKEN = '{"status":"invalid_token"}'
const now = () => Math.floor(Date.now() / 1000)
/** Every token the tests make, to check that none is logged. */
const issued: string[] = []
const tokenFor = async (...args: Parameters<typeof makeToken>) => {
  const t = await makeToken(...args)
  issued.push(t)
  return t
}

describe('SASL/OAUTHBEARER with real clients', () => {
  let broker: BrokerProcess
  let key: SigningKey
  let jwks: { dir: string; url: string }
  const tmp = makeTempDir('oauth-it-')
  let java: JavaPrograms | undefined

  before(async () => {
    key = await signingKey('it-key', 'RS256')
    jwks = await jwksFile(jwksOf(key))
    broker = await startBrokerProcess({
      overrides: saslBrokerOverrides(['PLAIN', 'OAUTHBEARER'], {
        'listener.name.sasl_plaintext.oauthbearer.sasl.oauthbearer.jwks.endpoint.url': jwks.url,
        'listener.name.sasl_plaintext.oauthbearer.sasl.oauthbearer.expected.audience': AUDIENCE,
        'sasl.oauthbearer.expected.issuer': ISSUER,
      }),
    })
  })
  after(async () => {
    java?.remove()
    tmp.remove()
    await stopAndCheck(broker)
  })

  const kafkajs = (token: string) =>
    new Kafka({
      clientId: 'it-oauth',
      brokers: [broker.bootstrap],
      sasl: { mechanism: 'oauthbearer', oauthBearerProvider: async () => ({ value: token }) },
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
    })

  test('kafkajs: a valid token creates a topic, produces and consumes', async () => {
    const kafka = kafkajs(await tokenFor(key, { sub: 'kafkajs-user' }))
    assert.deepEqual(await kafkajsRoundTrip(kafka, 'it-oauth-kafkajs', ['one', 'two'], 'it-oauth-group'), ['one', 'two'])
  })

  test('kafkajs: an expired token cannot connect', async () => {
    // kafkajs takes the server's JSON error for success and sends its next request, which the broker
    // refuses (the exchange is not over) by closing the connection, as Kafka does.
    const admin = kafkajs(await tokenFor(key, { iat: now() - 7200, exp: now() - 3600 })).admin()
    await assert.rejects(
      async () => {
        await admin.connect()
        await admin.listTopics()
      },
      (err: Error) => err.name === 'KafkaJSConnectionClosedError',
    )
    await admin.disconnect()
    // The broker logged why it closed the connection (the log reaches us through its stderr pipe).
    await waitFor(
      () => /kind=unauthenticated clientId=it-oauth .*during SASL authentication/.test(broker.stderr()),
      'the close in the broker log',
    )
  })

  test("Tributary's client: security.sasl.token (a function, asked per connection) authenticates; an expired one is refused", async () => {
    let asked = 0
    const client = await KafkaClient.connect({
      bootstrap: [broker.bootstrap],
      clientId: 'it-oauth-tributary',
      security: {
        protocol: 'SASL_PLAINTEXT',
        sasl: {
          mechanism: 'OAUTHBEARER',
          token: () => {
            asked++
            return tokenFor(key, { sub: 'ours' })
          },
        },
      },
    })
    try {
      const md = await client.metadata(['it-oauth-kafkajs'])
      assert.equal(md.topics.get('it-oauth-kafkajs')?.partitions.length, 1)
      assert.ok(asked >= 1)
    } finally {
      await client.close()
    }
    const expired = await tokenFor(key, { iat: now() - 7200, exp: now() - 3600 })
    await assert.rejects(
      KafkaClient.connect({
        bootstrap: [broker.bootstrap],
        clientId: 'it-oauth-tributary',
        security: { protocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'OAUTHBEARER', token: expired } },
      }).then((c) => c.metadata(null).finally(() => c.close())),
      (err: ClientError) => err instanceof ClientError && err.code === 'SASL_AUTHENTICATION_FAILED' && err.message.includes(INVALID_TOKEN),
    )
  })

  /** Handshake and the first SaslAuthenticate v2 on a fresh connection, as our client sends them. */
  async function exchange(token: string) {
    const conn = await Connection.connect({ host: broker.host, port: broker.port, clientId: 'it-oauth-raw' })
    const hs = await conn.request(SaslHandshakeRequest, SaslHandshakeResponse, 1, { mechanism: 'OAUTHBEARER' })
    assert.equal(hs.errorCode, 0)
    const sasl = { mechanism: 'OAUTHBEARER', token }
    const first = await conn.request(SaslAuthenticateRequest, SaslAuthenticateResponse, 2, {
      authBytes: await oauthBearerInitialResponse(sasl),
    })
    return { conn, first }
  }

  test('step by step: JSON error, %x01, SASL_AUTHENTICATION_FAILED for an expired token', async () => {
    const { conn, first } = await exchange(await tokenFor(key, { iat: now() - 7200, exp: now() - 3600 }))
    assert.equal(first.errorCode, 0)
    assert.equal(first.authBytes.toString(), INVALID_TOKEN)
    const reply = oauthBearerReply(first.authBytes)
    assert.deepEqual(reply, Buffer.from([1]))
    const second = await conn.request(SaslAuthenticateRequest, SaslAuthenticateResponse, 2, { authBytes: reply! })
    assert.equal(second.errorCode, ErrorCode.SASL_AUTHENTICATION_FAILED.code)
    assert.equal(second.errorMessage, INVALID_TOKEN)
    conn.close()
  })

  test('KIP-368: the session lifetime follows exp; past it the connection is closed', async () => {
    const exp = now() + 4
    const { conn, first } = await exchange(await tokenFor(key, { exp }))
    assert.equal(first.errorCode, 0)
    assert.equal(first.authBytes.length, 0)
    const expMs = exp * 1000
    assert.ok(first.sessionLifetimeMs > 0 && first.sessionLifetimeMs <= expMs - Date.now() + 1000, `lifetime ${first.sessionLifetimeMs}`)
    const closed = new Promise<void>((resolve) => conn.onClose(() => resolve()))
    // A request once the session has ended closes the connection.
    while (Date.now() < expMs + 500) await new Promise((r) => setTimeout(r, 250))
    await assert.rejects(conn.request(SaslHandshakeRequest, SaslHandshakeResponse, 1, { mechanism: 'OAUTHBEARER' }))
    await closed
    assert.equal(conn.isOpen, false)
  })

  const python = async (token: string, mode: 'ok' | 'refused', topic = 'it-oauth-python') => {
    const file = join(tmp.path, `py-${mode}.jwt`)
    await writeFile(file, token)
    const r = await runProcess('python3', [SCRIPT, broker.bootstrap, topic, file, mode], { timeoutMs: 90_000, installHint: PY_HINT })
    assert.equal(r.code, 0, show(r))
    return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as {
      librdkafka: string
      produced: number
      consumed: string[]
      errors: Array<{ code: number; name: string; message: string }>
    }
  }

  test('confluent-kafka (librdkafka): a valid token produces and consumes', async () => {
    const admin = kafkajs(await tokenFor(key)).admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic: 'it-oauth-python', numPartitions: 1 }], waitForLeaders: true })
    await admin.disconnect()
    const out = await python(await tokenFor(key, { sub: 'py-user' }), 'ok')
    assert.deepEqual([out.produced, out.consumed], [3, ['v0', 'v1', 'v2']], JSON.stringify(out))
  })

  test('confluent-kafka (librdkafka): a token for another audience is refused', async () => {
    const out = await python(await tokenFor(key, { aud: 'another-cluster' }), 'refused')
    const auth = out.errors.find((e) => e.name === '_AUTHENTICATION')
    assert.ok(auth, JSON.stringify(out))
    assert.match(auth.message, /invalid_token/)
  })

  const runJava = async (token: string, mode: 'ok' | 'refused', topic: string) => {
    const file = join(tmp.path, `java-${mode}.jwt`)
    await writeFile(file, token)
    const fileUrl = `file://${file}`
    const r = await runProcess(
      javaCommand(),
      [
        `-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=${fileUrl}`,
        `-Dorg.apache.kafka.sasl.oauthbearer.allowed.files=${file}`,
        '-cp',
        (java ??= await buildJavaPrograms()).classpath,
        'io.tributary.interop.OAuthBearer',
        broker.bootstrap,
        topic,
        file,
        mode,
      ],
      { timeoutMs: 120_000, installHint: JAVA_HINT },
    )
    return { r, context: () => `${show(r)}\nbroker stderr tail:\n${broker.stderr().slice(-3000)}` }
  }

  test('Java 4.4 client: a token from a file produces and consumes', { timeout: 300_000 }, async () => {
    const { r, context } = await runJava(await tokenFor(key, { sub: 'java-user' }), 'ok', 'it-oauth-java')
    assert.equal(r.code, 0, context())
    assert.match(r.stdout, /OAUTHBEARER OK 3/, context())
  })

  test('Java 4.4 client: a token for another audience is refused with invalid_token', { timeout: 300_000 }, async () => {
    const { r, context } = await runJava(await tokenFor(key, { aud: 'another-cluster' }), 'refused', 'unused')
    assert.equal(r.code, 0, context())
    assert.ok(r.stdout.includes(`OAUTHBEARER REFUSED ${INVALID_TOKEN}`), context())
  })

  test('tributary CLI: --command-config with a token file; an expired token fails the command', async () => {
    const tokenFile = join(tmp.path, 'cli.jwt')
    const config = join(tmp.path, 'oauth.properties')
    await writeFile(
      config,
      ['security.protocol=SASL_PLAINTEXT', 'sasl.mechanism=OAUTHBEARER', `sasl.oauthbearer.token.endpoint.url=file://${tokenFile}`].join(
        '\n',
      ),
    )
    const env = { TRIBUTARY_BOOTSTRAP: broker.bootstrap }
    const cc = ['--command-config', config]
    await writeFile(tokenFile, `${await tokenFor(key, { sub: 'cli-user' })}\n`)
    await tributaryOk(['topic', 'create', 'it-oauth-cli', '--partitions', '1', ...cc], { env })
    await tributaryOk(['produce', 'it-oauth-cli', ...cc], { env, input: 'a\nb\n' })
    const out = await tributaryOk(['consume', 'it-oauth-cli', '--from-beginning', '--exit-at-end', '--format', '%v\n', ...cc], { env })
    assert.deepEqual(out.stdout.trim().split('\n'), ['a', 'b'])
    // The file is read again for each connection: an expired token in it is refused.
    await writeFile(tokenFile, await tokenFor(key, { iat: now() - 7200, exp: now() - 3600 }))
    const r = await tributary(['topic', 'list', ...cc], { env, timeoutMs: 30_000 })
    assert.equal(r.code, 1, r.stderr)
    assert.match(r.stderr, /SASL_AUTHENTICATION_FAILED/)
    assert.ok(!r.stderr.includes((await readFile(tokenFile, 'utf8')).split('.')[2]!), 'the token is in the error')
  })

  test('no token, nor its signature, appears in the broker log', () => {
    const log = broker.stderr()
    assert.ok(issued.length >= 8, `${issued.length} tokens`)
    for (const t of issued) assert.ok(!log.includes(t.split('.')[2]!), 'a token signature is in the broker log')
  })

  test('a broker with OAUTHBEARER enabled and no JWKS URL does not start, naming the key', async () => {
    await assert.rejects(startBrokerProcess({ overrides: saslBrokerOverrides(['PLAIN', 'OAUTHBEARER']) }), (err: Error) => {
      assert.match(
        err.message,
        /listener\.name\.sasl_plaintext\.oauthbearer\.sasl\.oauthbearer\.jwks\.endpoint\.url|sasl\.oauthbearer\.jwks\.endpoint\.url/,
      )
      return true
    })
  })
})

describe('SASL/OAUTHBEARER with a JWKS over HTTP', () => {
  test('a broker process fetches the JWKS at start-up and again for a new kid', async () => {
    const first = await signingKey('http-1', 'ES256')
    const rotated = await signingKey('http-2', 'RS256')
    let doc = jwksOf(first)
    let hits = 0
    const idp = createServer((_req, res) => {
      hits++
      res.writeHead(200, { 'content-type': 'application/json' }).end(doc)
    })
    await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(idp.address() as AddressInfo).port}/jwks.json`
    const broker = await startBrokerProcess({
      overrides: saslBrokerOverrides(['PLAIN', 'OAUTHBEARER'], {
        'sasl.oauthbearer.jwks.endpoint.url': url,
        'tributary.sasl.oauthbearer.allowed.urls': url,
        'sasl.oauthbearer.expected.audience': AUDIENCE,
        'sasl.oauthbearer.expected.issuer': ISSUER,
      }),
    })
    try {
      const connectWith = async (token: string) => {
        const client = await KafkaClient.connect({
          bootstrap: [broker.bootstrap],
          clientId: 'it-oauth-http',
          security: { protocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'OAUTHBEARER', token } },
        })
        try {
          return (await client.metadata(null)).brokers.size
        } finally {
          await client.close()
        }
      }
      assert.equal(await connectWith(await makeToken(first)), 1)
      assert.equal(hits, 1)
      doc = jwksOf(first, rotated)
      assert.equal(await connectWith(await makeToken(rotated)), 1)
      assert.equal(hits, 2)
    } finally {
      await stopAndCheck(broker)
      idp.close()
    }
  })
})
