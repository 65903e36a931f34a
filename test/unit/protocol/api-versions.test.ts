// Hand-checked bytes for ApiVersions, the one API every client sends first.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ApiVersionsRequest, ApiVersionsResponse } from '../../../src/protocol/messages/18-api-versions.js'

const hex = (...parts: string[]) => Buffer.from(parts.join('').replace(/\s+/g, ''), 'hex')

test('ApiVersions v3 request: compact strings and an empty tag section', () => {
  const bytes = hex(
    '05 6b636174', // client_software_name: compact string, length 4 + 1, "kcat"
    '04 312e37', // client_software_version: "1.7"
    '00', // no tagged fields
  )
  const value = { clientSoftwareName: 'kcat', clientSoftwareVersion: '1.7' }
  assert.deepEqual(ApiVersionsRequest.decode(3, bytes), value)
  assert.deepEqual(ApiVersionsRequest.encode(3, value), bytes)
})

test('ApiVersions v0 request has an empty body', () => {
  assert.deepEqual(ApiVersionsRequest.encode(0, {}), Buffer.alloc(0))
})

test('ApiVersions v0 response: error code and an int32-counted array', () => {
  const bytes = hex(
    '0023', // error_code 35 UNSUPPORTED_VERSION
    '00000001', // api_keys: 1 entry
    '0012 0000 0004', // key 18, min 0, max 4
  )
  const value = { errorCode: 35, apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 4 }] }
  assert.deepEqual(ApiVersionsResponse.encode(0, value), bytes)
  const decoded = ApiVersionsResponse.decode(0, bytes)
  assert.equal(decoded.errorCode, 35)
  assert.deepEqual(decoded.apiKeys, value.apiKeys)
})

test('ApiVersions v3 response: compact array, per-entry tags, throttle, then tagged fields', () => {
  const bytes = hex(
    '0000', // error_code
    '02', // api_keys: compact array of 1
    '0000 0000 000b 00', // key 0 (Produce), min 0, max 11, no tags
    '00000000', // throttle_time_ms
    '00', // no tagged fields: features and epoch at their defaults are not sent
  )
  const value = { errorCode: 0, apiKeys: [{ apiKey: 0, minVersion: 0, maxVersion: 11 }], throttleTimeMs: 0 }
  assert.deepEqual(ApiVersionsResponse.encode(3, value), bytes)
  assert.equal(ApiVersionsResponse.decode(3, bytes).finalizedFeaturesEpoch, -1)
})
