// REST Proxy's error codes for Kafka's errors (src/http/rest/errors.ts): 404 40403 for an unknown
// topic or partition, 400 40002 for what Kafka refused, 413 for a record too large, 401 / 403 /
// 503 for authentication, authorization and an unavailable broker, 500 50003 / 50002 for other
// errors by whether they are retriable; Fastify's own 4xx (bad JSON, body too large) kept.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ClientError } from '../../../src/client/errors.js'
import { fromKafka, type RestError, toRestError } from '../../../src/http/rest/errors.js'

const statusAndCode = (e: RestError) => [e.status, e.errorCode, e.kafkaError]

describe('REST errors', () => {
  it('maps Kafka errors to REST Proxy statuses and codes, naming the Kafka error', () => {
    assert.deepEqual(statusAndCode(fromKafka('UNKNOWN_TOPIC_OR_PARTITION', 'x')), [404, 40403, 'UNKNOWN_TOPIC_OR_PARTITION'])
    assert.equal(fromKafka('UNKNOWN_TOPIC_OR_PARTITION', 'x').message, 'This server does not host this topic-partition.')
    for (const name of [
      'TOPIC_ALREADY_EXISTS',
      'INVALID_CONFIG',
      'INVALID_REPLICATION_FACTOR',
      'POLICY_VIOLATION',
      'INVALID_TOPIC_EXCEPTION',
    ] as const) {
      assert.deepEqual(statusAndCode(fromKafka(name, 'm')), [400, 40002, name])
    }
    assert.deepEqual(statusAndCode(fromKafka('MESSAGE_TOO_LARGE', null)), [413, 413, 'MESSAGE_TOO_LARGE'])
    assert.deepEqual(statusAndCode(fromKafka('TOPIC_AUTHORIZATION_FAILED', null)), [403, 40301, 'TOPIC_AUTHORIZATION_FAILED'])
    assert.deepEqual(statusAndCode(fromKafka('SASL_AUTHENTICATION_FAILED', null)), [401, 40101, 'SASL_AUTHENTICATION_FAILED'])
    assert.deepEqual(statusAndCode(fromKafka('BROKER_NOT_AVAILABLE', null)), [503, 50302, 'BROKER_NOT_AVAILABLE'])
    assert.deepEqual(statusAndCode(toRestError(new ClientError('REQUEST_TIMED_OUT', 'slow'))), [500, 50003, 'REQUEST_TIMED_OUT'])
    assert.deepEqual(statusAndCode(toRestError(new ClientError('GROUP_MAX_SIZE_REACHED', 'full'))), [500, 50002, 'GROUP_MAX_SIZE_REACHED'])
  })

  it('keeps the message Kafka gave and writes REST Proxy body', () => {
    const e = fromKafka('INVALID_CONFIG', 'Invalid value soon for configuration retention.ms')
    assert.deepEqual(e.toJSON(), {
      error_code: 40002,
      message: 'Invalid value soon for configuration retention.ms',
      kafka_error: 'INVALID_CONFIG',
    })
  })

  it("keeps Fastify's client errors and turns anything else into 500", () => {
    const bad = Object.assign(new Error('Body is not valid JSON'), { statusCode: 400 })
    assert.deepEqual(toRestError(bad).toJSON(), { error_code: 400, message: 'Body is not valid JSON' })
    assert.deepEqual(statusAndCode(toRestError(Object.assign(new Error('too big'), { statusCode: 413 }))), [413, 413, null])
    assert.deepEqual(statusAndCode(toRestError(new TypeError('oops'))), [500, 500, null])
  })
})
