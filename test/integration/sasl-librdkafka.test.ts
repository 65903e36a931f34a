// librdkafka 2.16 (confluent-kafka for Python) over SASL_PLAINTEXT with PLAIN and SCRAM-SHA-512:
// allowed users produce and consume in a group; a wrong password and an unknown user get no
// metadata and librdkafka reports an authentication error (the broker's SASL_AUTHENTICATION_FAILED).
// test/interop/python/sasl.py runs the client. Missing python3 or confluent_kafka fails this file
// (`pip install confluent-kafka==2.16.1`); it never skips.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { lastJsonLine, runProcess, show } from '../helpers/run-process.js'
import { createScramUsers, PLAIN_USERS, saslBrokerOverrides } from '../helpers/sasl.js'

const SCRIPT = fileURLToPath(new URL('../../../test/interop/python/sasl.py', import.meta.url))
const INSTALL_HINT = 'install Python 3, then: pip install confluent-kafka==2.16.1'

interface Refused {
  listed: string[] | null
  authentication_errors: Array<{ name: string; message: string }>
}

interface Outcome {
  librdkafka: string
  delivered: number
  consumed: string[]
  errors: unknown[]
  wrong_password: Refused
  unknown_user: Refused
}

describe('librdkafka over SASL_PLAINTEXT', () => {
  let broker: BrokerProcess

  before(async () => {
    broker = await startBrokerProcess({ overrides: saslBrokerOverrides(['PLAIN', 'SCRAM-SHA-512']) })
    await createScramUsers(broker.bootstrap, { erin: 'erin-secret' }, ['SCRAM-SHA-512'])
  })
  after(async () => {
    await stopAndCheck(broker)
  })

  for (const [mechanism, user, password] of [
    ['PLAIN', 'alice', PLAIN_USERS.alice],
    ['SCRAM-SHA-512', 'erin', 'erin-secret'],
  ] as const) {
    test(`${mechanism}: produce and consume; wrong password and unknown user refused`, { timeout: 120_000 }, async () => {
      const topic = `it-rdk-sasl-${mechanism.toLowerCase()}`
      const r = await runProcess('python3', [SCRIPT, broker.bootstrap, topic, mechanism, user, password, 'wrong-password'], {
        timeoutMs: 100_000,
        installHint: INSTALL_HINT,
      })
      assert.equal(r.code, 0, `sasl.py failed: ${show(r)}`)
      const o = lastJsonLine<Outcome>(r, 'sasl.py')
      assert.equal(o.delivered, 5)
      assert.deepEqual(o.consumed, ['r0', 'r1', 'r2', 'r3', 'r4'])
      assert.deepEqual(o.errors, [])
      for (const [what, refused] of [
        ['wrong password', o.wrong_password],
        ['unknown user', o.unknown_user],
      ] as const) {
        assert.equal(refused.listed, null, `${what}: no metadata`)
        assert.ok(refused.authentication_errors.length > 0, `${what}: librdkafka reports an authentication error`)
        assert.match(refused.authentication_errors[0]!.message, /Authentication failed|SASL authentication error/)
      }
    })
  }
})
