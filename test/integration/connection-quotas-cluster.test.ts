// Dynamic connection quotas in a cluster of two brokers on etcd (test/helpers/cluster.ts): the
// cluster-wide default max.connection.creation.rate set through broker 1 (IncrementalAlterConfigs
// on the BROKER resource "") reaches broker 2 through the metadata store — its DescribeConfigs
// shows it as DYNAMIC_DEFAULT_BROKER_CONFIG and its acceptor makes new connections wait (counted in
// its /metrics) — and deleted through broker 2 it is gone on broker 1, whose acceptor then makes
// none wait.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { ConfigSource } from '../../src/config/config-values.js'
import { DescribeConfigsRequest, DescribeConfigsResponse } from '../../src/protocol/messages/32-describe-configs.js'
import { ApiVersionsRequest, ApiVersionsResponse } from '../../src/protocol/messages/18-api-versions.js'
import {
  ConfigOperation,
  IncrementalAlterConfigsRequest,
  IncrementalAlterConfigsResponse,
} from '../../src/protocol/messages/44-incremental-alter-configs.js'
import { RawClient, waitFor } from '../helpers/clients.js'
import { type Cluster, startCluster } from '../helpers/cluster.js'

const BROKER = 4
const KEY = 'max.connection.creation.rate'
const THROTTLED = 'kafka_network_acceptor_throttled_connections_total{listener="PLAINTEXT"}'

function counterValue(exposition: string, series: string): number {
  const line = exposition.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? 0 : Number(line.slice(series.length + 1))
}

describe('dynamic connection quotas across brokers', () => {
  let cluster: Cluster

  before(async () => {
    cluster = await startCluster({ brokers: 2, overrides: { 'quota.window.num': '2' } })
  })
  after(async () => {
    await cluster?.close()
  })

  const withClient = async <T>(id: number, f: (c: RawClient) => Promise<T>): Promise<T> => {
    const b = cluster.broker(id)
    const c = await RawClient.connect(b.host, b.port)
    try {
      return await f(c)
    } finally {
      c.close()
    }
  }
  const alterDefault = (id: number, op: number, value: string | null) =>
    withClient(id, async (c) => {
      const res = await c.request(IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse, 1, {
        resources: [{ resourceType: BROKER, resourceName: '', configs: [{ name: KEY, configOperation: op, value }] }],
        validateOnly: false,
      })
      assert.equal(res.responses[0]!.errorCode, 0, res.responses[0]!.errorMessage ?? '')
    })
  const described = (id: number) =>
    withClient(id, async (c) => {
      const res = await c.request(DescribeConfigsRequest, DescribeConfigsResponse, 4, {
        resources: [{ resourceType: BROKER, resourceName: String(id), configurationKeys: [KEY] }],
        includeSynonyms: false,
        includeDocumentation: false,
      })
      const entry = res.results[0]!.configs.find((e) => e.name === KEY)!
      return { value: entry.value, source: entry.configSource }
    })
  const throttled = async (id: number) => counterValue(await (await fetch(`${cluster.broker(id).http}/metrics`)).text(), THROTTLED)
  /** Opens n connections to a broker at once; each must be answered (the acceptor waits, closes none). */
  const burst = async (id: number, n: number) => {
    const b = cluster.broker(id)
    const clients = await Promise.all(Array.from({ length: n }, () => RawClient.connect(b.host, b.port)))
    try {
      await Promise.all(
        clients.map(async (c) => {
          const res = await c.request(ApiVersionsRequest, ApiVersionsResponse, 3, { clientSoftwareName: 'it', clientSoftwareVersion: '1' })
          assert.equal(res.errorCode, 0)
        }),
      )
    } finally {
      for (const c of clients) c.close()
    }
  }

  test('set through broker 1, applied by broker 2; deleted through broker 2, gone on broker 1', { timeout: 180_000 }, async () => {
    await alterDefault(1, ConfigOperation.SET, '1')
    await waitFor(
      async () => {
        const d = await described(2)
        return d.value === '1' && d.source === ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG
      },
      'broker 2 describes the default set through broker 1',
      30_000,
    )
    const before2 = await throttled(2)
    await burst(2, 6)
    assert.ok((await throttled(2)) > before2, "broker 2's acceptor waited under the rate set through broker 1")

    await alterDefault(2, ConfigOperation.DELETE, null)
    await waitFor(
      async () => (await described(1)).source === ConfigSource.DEFAULT_CONFIG,
      'broker 1 no longer has the default deleted through broker 2',
      30_000,
    )
    assert.deepEqual(await described(1), { value: '2147483647', source: ConfigSource.DEFAULT_CONFIG })
    const before1 = await throttled(1)
    await burst(1, 6)
    assert.equal(await throttled(1), before1, "broker 1's acceptor makes no connection wait any more")
  })
})
