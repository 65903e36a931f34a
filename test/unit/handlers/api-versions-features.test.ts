// ApiVersions v0–5 through the handler, encoded and decoded with the message codec: features per
// version (v3 leaves out those with a supported minimum of 0, v4+ lists them), the v3+/v5 request
// checks (INVALID_REQUEST) and KIP-1242's REBOOTSTRAP_REQUIRED.
import { testConn } from '../../helpers/local-broker.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import apiVersions from '../../../src/handlers/18-api-versions.js'
import type { RequestContext } from '../../../src/handlers/define.js'
import type { BrokerServices } from '../../../src/ports/broker-services.js'
import {
  FEATURES,
  type FeatureLevels,
  finalizedFeatures,
  finalizedFeaturesEpoch,
  supportedFeatures,
} from '../../../src/cluster/features.js'
import {
  ApiVersionsRequest,
  type ApiVersionsRequestData,
  ApiVersionsResponse,
  type ApiVersionsResponseData,
} from '../../../src/protocol/messages/18-api-versions.js'
import type { Encodable } from '../../../src/protocol/schema.js'
import { silentLogger } from '../../../src/util/logger.js'

const APIS = [
  { apiKey: 3, minVersion: 0, maxVersion: 12 },
  { apiKey: 18, minVersion: 0, maxVersion: 5 },
]

function context(apiVersion: number): RequestContext {
  const broker = { nodeId: 2, clusterId: 'MkU3OEVBNTcwNTJENDM2Qg', logger: silentLogger } as unknown as BrokerServices
  return {
    header: { apiKey: 18, apiVersion, correlationId: 1, clientId: 'cli', bodyOffset: 0 },
    apiVersion,
    conn: testConn({ remoteAddress: '10.0.0.1', remotePort: 5 }),
    broker,
    apis: APIS,
  }
}

async function call(version: number, req: Encodable<ApiVersionsRequestData>): Promise<ApiVersionsResponseData> {
  const decoded = ApiVersionsRequest.decode(version, ApiVersionsRequest.encode(version, req))
  const res = await apiVersions.handle(context(version), decoded)
  assert.ok(res !== null)
  return ApiVersionsResponse.decode(version, ApiVersionsResponse.encode(version, res))
}

const SOFTWARE = { clientSoftwareName: 'apache-kafka-java', clientSoftwareVersion: '4.4.0' }

describe('ApiVersions handler', () => {
  it('serves v0 to v5', () => {
    assert.equal(apiVersions.minVersion, 0)
    assert.equal(apiVersions.maxVersion, 5)
  })

  it('v0-v2 carry the API list only', async () => {
    for (const v of [0, 1, 2]) {
      const res = await call(v, {})
      assert.equal(res.errorCode, 0)
      assert.deepEqual(res.apiKeys, APIS)
    }
  })

  it('v3+ report metadata.version 7-21 finalized at 21, transaction.version 0-2 finalized at 2, group.version 0-1 finalized at 1 and share.version 0-2 finalized at 2 (v3 lists only the supported range with a minimum above 0), with an epoch ≥ 0', async () => {
    for (const v of [3, 4, 5]) {
      const res = await call(v, SOFTWARE)
      assert.equal(res.errorCode, 0)
      const supported = [{ name: 'metadata.version', minVersion: 7, maxVersion: 21 }]
      if (v >= 4)
        supported.push(
          { name: 'transaction.version', minVersion: 0, maxVersion: 2 },
          { name: 'group.version', minVersion: 0, maxVersion: 1 },
          { name: 'share.version', minVersion: 0, maxVersion: 2 },
        )
      assert.deepEqual(res.supportedFeatures, supported)
      assert.deepEqual(res.finalizedFeatures, [
        { name: 'metadata.version', minVersionLevel: 21, maxVersionLevel: 21 },
        { name: 'transaction.version', minVersionLevel: 2, maxVersionLevel: 2 },
        { name: 'group.version', minVersionLevel: 1, maxVersionLevel: 1 },
        { name: 'share.version', minVersionLevel: 2, maxVersionLevel: 2 },
      ])
      assert.ok(res.finalizedFeaturesEpoch >= 0, `epoch ${res.finalizedFeaturesEpoch}`)
    }
  })

  it('advertises no feature Tributary does not implement (max 0) and finalizes none above its maximum', () => {
    const names = supportedFeatures(5).map((f) => f.name)
    assert.deepEqual(names, ['metadata.version', 'transaction.version', 'group.version', 'share.version'])
    for (const f of FEATURES) assert.ok(f.finalizedLevel <= f.maxVersion, f.name)
    const tv = FEATURES.find((x) => x.name === 'transaction.version')
    assert.deepEqual(tv, { name: 'transaction.version', minVersion: 0, maxVersion: 2, finalizedLevel: 2 })
    // KIP-848 consumer groups (ConsumerGroupHeartbeat/Describe are served).
    assert.deepEqual(
      FEATURES.find((x) => x.name === 'group.version'),
      { name: 'group.version', minVersion: 0, maxVersion: 1, finalizedLevel: 1 },
    )
    // KIP-932 share groups, at Kafka 4.4's production level.
    assert.deepEqual(
      FEATURES.find((x) => x.name === 'share.version'),
      { name: 'share.version', minVersion: 0, maxVersion: 2, finalizedLevel: 2 },
    )
    for (const name of ['kraft.version', 'eligible.leader.replicas.version', 'streams.version']) {
      const f = FEATURES.find((x) => x.name === name)
      assert.ok(f, `${name} is in the table`)
      assert.equal(f.maxVersion, 0, name)
    }
  })

  it('below v4 a feature whose minimum is 0 is left out; from v4 it is listed (KAFKA-17011)', () => {
    const table: FeatureLevels[] = [
      { name: 'metadata.version', minVersion: 7, maxVersion: 21, finalizedLevel: 21 },
      { name: 'transaction.version', minVersion: 0, maxVersion: 2, finalizedLevel: 2 },
      { name: 'group.version', minVersion: 0, maxVersion: 1, finalizedLevel: 0 },
      { name: 'share.version', minVersion: 0, maxVersion: 0, finalizedLevel: 0 },
    ]
    assert.deepEqual(
      supportedFeatures(3, table).map((f) => f.name),
      ['metadata.version'],
    )
    assert.deepEqual(
      supportedFeatures(4, table).map((f) => f.name),
      ['metadata.version', 'transaction.version', 'group.version'],
    )
    assert.deepEqual(supportedFeatures(5, table)[1], { name: 'transaction.version', minVersion: 0, maxVersion: 2 })
    // Finalized at 0 is left out; finalized levels are reported as min = max = level.
    assert.deepEqual(finalizedFeatures(table), [
      { name: 'metadata.version', minVersionLevel: 21, maxVersionLevel: 21 },
      { name: 'transaction.version', minVersionLevel: 2, maxVersionLevel: 2 },
    ])
    // Raising a level raises the epoch.
    const raised = FEATURES.map((f) => (f.name === 'streams.version' ? { ...f, maxVersion: 1, finalizedLevel: 1 } : f))
    assert.ok(finalizedFeaturesEpoch(raised) > finalizedFeaturesEpoch(FEATURES))
  })

  it('v3+: a software name or version outside [a-zA-Z0-9.-] (alphanumeric at both ends) is INVALID_REQUEST', async () => {
    for (const bad of [
      { clientSoftwareName: '', clientSoftwareVersion: '1' },
      { clientSoftwareName: 'java', clientSoftwareVersion: '' },
      { clientSoftwareName: '-java', clientSoftwareVersion: '1' },
      { clientSoftwareName: 'java', clientSoftwareVersion: '1.0.' },
      { clientSoftwareName: 'my client', clientSoftwareVersion: '1' },
    ]) {
      for (const v of [3, 4, 5]) {
        const res = await call(v, bad)
        assert.equal(res.errorCode, 42, `${JSON.stringify(bad)} v${v}`)
        assert.deepEqual(res.apiKeys, [])
        assert.equal(res.finalizedFeaturesEpoch, -1)
      }
    }
    assert.equal((await call(3, { clientSoftwareName: 'a', clientSoftwareVersion: '1.2-rc1' })).errorCode, 0)
  })

  it('v5: a node id without a cluster id, or a cluster id without a node id, is INVALID_REQUEST', async () => {
    assert.equal((await call(5, { ...SOFTWARE, clusterId: null, nodeId: 0 })).errorCode, 42)
    assert.equal((await call(5, { ...SOFTWARE, clusterId: 'MkU3OEVBNTcwNTJENDM2Qg', nodeId: -1 })).errorCode, 42)
  })

  it('v5: naming this cluster and node is answered normally; any other is REBOOTSTRAP_REQUIRED (KIP-1242)', async () => {
    const ok = await call(5, { ...SOFTWARE, clusterId: 'MkU3OEVBNTcwNTJENDM2Qg', nodeId: 2 })
    assert.equal(ok.errorCode, 0)
    assert.deepEqual(ok.apiKeys, APIS)
    for (const wrong of [
      { clusterId: 'MkU3OEVBNTcwNTJENDM2Qg', nodeId: 1 },
      { clusterId: 'another-cluster', nodeId: 2 },
    ]) {
      const res = await call(5, { ...SOFTWARE, ...wrong })
      assert.equal(res.errorCode, 129, JSON.stringify(wrong))
      assert.deepEqual(res.apiKeys, [])
    }
    // Not named: no check.
    assert.equal((await call(5, SOFTWARE)).errorCode, 0)
  })
})
