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
  // v5's cluster id and node id are absent: their defaults.
  assert.deepEqual(ApiVersionsRequest.decode(3, bytes), { ...value, clusterId: null, nodeId: -1 })
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

test('ApiVersions v5 request: the cluster and node the client means to reach (KIP-1242)', () => {
  const bytes = hex(
    '05 6a617661', // client_software_name "java"
    '06 342e342e30', // client_software_version "4.4.0"
    '04 616263', // cluster_id: compact nullable string "abc"
    '00000007', // node_id 7
    '00', // no tagged fields
  )
  const value = { clientSoftwareName: 'java', clientSoftwareVersion: '4.4.0', clusterId: 'abc', nodeId: 7 }
  assert.deepEqual(ApiVersionsRequest.decode(5, bytes), value)
  assert.deepEqual(ApiVersionsRequest.encode(5, value), bytes)
  // Unknown cluster: null id and node -1, the defaults.
  const unnamed = hex('05 6a617661', '06 342e342e30', '00', 'ffffffff', '00')
  assert.deepEqual(ApiVersionsRequest.decode(5, unnamed), {
    clientSoftwareName: 'java',
    clientSoftwareVersion: '4.4.0',
    clusterId: null,
    nodeId: -1,
  })
  assert.deepEqual(ApiVersionsRequest.encode(5, { clientSoftwareName: 'java', clientSoftwareVersion: '4.4.0' }), unnamed)
  // v4 carries neither field.
  assert.deepEqual(ApiVersionsRequest.encode(4, value), hex('05 6a617661', '06 342e342e30', '00'))
})

test('ApiVersions v4/v5 response: supported features, epoch and finalized features as tags 0, 1, 2', () => {
  const name = '11 6d657461646174612e76657273696f6e' // compact string "metadata.version"
  const bytes = hex(
    '0000', // error_code
    '02 0012 0000 0005 00', // api_keys: [ApiVersions 0-5]
    '00000000', // throttle_time_ms
    '03', // three tagged fields
    '00 17',
    `02 ${name} 0007 0015 00`, // tag 0, 23 bytes: supported [metadata.version 7-21]
    '01 08',
    '0000000000000015', // tag 1, 8 bytes: finalized features epoch 21
    '02 17',
    `02 ${name} 0015 0015 00`, // tag 2, 23 bytes: finalized [metadata.version max 21 min 21]
  )
  const value = {
    errorCode: 0,
    apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 5 }],
    throttleTimeMs: 0,
    supportedFeatures: [{ name: 'metadata.version', minVersion: 7, maxVersion: 21 }],
    finalizedFeaturesEpoch: 21,
    finalizedFeatures: [{ name: 'metadata.version', maxVersionLevel: 21, minVersionLevel: 21 }],
    zkMigrationReady: false,
  }
  for (const v of [4, 5]) {
    assert.deepEqual(ApiVersionsResponse.encode(v, value), bytes)
    assert.deepEqual(ApiVersionsResponse.decode(v, bytes), value)
  }
})
