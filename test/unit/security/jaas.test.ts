// Kafka's sasl.jaas.config syntax (security/sasl/jaas.ts): what Kafka's JaasConfig accepts parses
// the same way, what it refuses is refused, and no error message quotes an option value.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { JaasSyntaxError, parseJaasConfig, parseSaslJaasConfig } from '../../../src/security/sasl/jaas.js'

describe('JAAS config parsing', () => {
  test('a PlainLoginModule with quoted and bare values, comments and escapes', () => {
    const e = parseSaslJaasConfig(
      `org.apache.kafka.common.security.plain.PlainLoginModule REQUIRED /* users */ username=admin
       password="admin-secret" user_admin="admin-secret" // the broker itself
       user_alice='a\\"b\\\\c\\101';`,
    )
    assert.equal(e.loginModule, 'org.apache.kafka.common.security.plain.PlainLoginModule')
    assert.equal(e.controlFlag, 'required')
    assert.deepEqual(Object.fromEntries(e.options), {
      username: 'admin',
      password: 'admin-secret',
      user_admin: 'admin-secret',
      user_alice: 'a"b\\cA',
    })
  })

  test('several modules parse; a SASL mechanism takes exactly one', () => {
    const text = 'a.B required; c.D optional x="1";'
    assert.equal(parseJaasConfig(text).length, 2)
    assert.throws(() => parseSaslJaasConfig(text), /contains 2 login modules, should be 1/)
  })

  for (const [what, text, why] of [
    ['no module', '  /* nothing */ ', /Login module not specified/],
    ['no control flag', 'a.B', /control flag not specified/],
    ['a bad control flag', 'a.B mandatory;', /Invalid login module control flag/],
    ['no semicolon', 'a.B required password="p"', /not terminated by semi-colon/],
    ['a missing value', 'a.B required password=;', /Value not specified for key 'password'/],
    ['a bare number as value', 'a.B required iterations=4096;', /Value not specified for key 'iterations'/],
    ['no "="', 'a.B required password "p";', /Value not specified for key 'password'/],
  ] as const) {
    test(`refused: ${what}`, () => {
      assert.throws(
        () => parseJaasConfig(text),
        (err: Error) => err instanceof JaasSyntaxError && why.test(err.message),
      )
    })
  }

  test('errors never quote a value', () => {
    assert.throws(
      () => parseJaasConfig('a.B required password="sup3r-secret" user_x "sup3r-secret";'),
      (err: Error) => !err.message.includes('sup3r-secret'),
    )
  })
})
