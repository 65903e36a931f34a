// `tributary cluster info` run as a subprocess against a real broker process, checked against
// kafkajs's describeCluster and listTopics and against a raw ApiVersions answer (independent
// readers of the same broker).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type Admin, Kafka, logLevel } from 'kafkajs'
import { ApiVersionsRequest, ApiVersionsResponse } from '../../src/protocol/messages/18-api-versions.js'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { type CliRun, tributary } from '../helpers/cli.js'
import { RawClient } from '../helpers/clients.js'

interface InfoJson {
  clusterId: string
  controllerId: number
  source: string
  brokers: Array<{ id: number; host: string; port: number; rack: string | null }>
  topicCount: number
  internalTopicCount: number
  partitionCount: number
  apis?: { brokerId: number; versions: Array<{ apiKey: number; name: string; minVersion: number; maxVersion: number }> }
}

function show(r: CliRun): string {
  return `exit ${r.code ?? r.signal}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`
}

describe('tributary cluster info', () => {
  let broker: BrokerProcess
  let admin: Admin
  const bs = () => ['--bootstrap-server', broker.bootstrap]

  before(async () => {
    broker = await startBrokerProcess({ overrides: { 'broker.rack': 'rack-a' } })
    const kafka = new Kafka({ clientId: 'it-cli-cluster', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING })
    admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({
      topics: [
        { topic: 'a', numPartitions: 3 },
        { topic: 'b', numPartitions: 2 },
      ],
    })
  })

  after(async () => {
    await admin?.disconnect().catch(() => {})
    await stopAndCheck(broker)
  })

  test('the summary and the broker table agree with kafkajs', async () => {
    const kc = await admin.describeCluster()
    const r = await tributary(['cluster', 'info', ...bs()])
    assert.equal(r.code, 0, show(r))
    assert.match(r.stdout, new RegExp(`^Cluster id: +${kc.clusterId}$`, 'm'))
    assert.match(r.stdout, /^Controller: +0$/m)
    assert.match(r.stdout, /^Brokers: +1$/m)
    assert.match(r.stdout, /^Topics: +2$/m)
    assert.match(r.stdout, /^Partitions: +5$/m)
    assert.match(r.stdout, /^Source: +DescribeCluster$/m)
    assert.match(r.stdout, /^BROKER +HOST +PORT +RACK$/m)
    assert.match(r.stdout, new RegExp(`^ +0 +${broker.host} +${broker.port} +rack-a$`, 'm'))
    assert.doesNotMatch(r.stdout, /API versions/, 'the API table only with --apis')
  })

  test('--json: cluster id, controller, brokers with rack, topic and partition counts (internal ones counted apart)', async () => {
    // FindCoordinator (kafkajs fetchOffsets) creates __consumer_offsets (50 partitions).
    await admin.fetchOffsets({ groupId: 'it-cli-cluster-group', topics: ['a'] })
    const kc = await admin.describeCluster()
    const r = await tributary(['cluster', 'info', '--json', ...bs()])
    assert.equal(r.code, 0, show(r))
    const j = JSON.parse(r.stdout) as InfoJson
    assert.deepEqual(j, {
      clusterId: kc.clusterId,
      controllerId: kc.controller,
      source: 'DescribeCluster',
      brokers: kc.brokers.map((b) => ({ id: b.nodeId, host: b.host, port: b.port, rack: 'rack-a' })),
      topicCount: 3,
      internalTopicCount: 1,
      partitionCount: 55,
    })
  })

  test('--apis: the version ranges the broker advertises, as a raw ApiVersions request sees them', async () => {
    const c = await RawClient.connect(broker.host, broker.port)
    let raw: Array<[number, number, number]>
    try {
      const res = await c.request(ApiVersionsRequest, ApiVersionsResponse, 3, { clientSoftwareName: 'it', clientSoftwareVersion: '1' })
      raw = res.apiKeys.map((k) => [k.apiKey, k.minVersion, k.maxVersion] as [number, number, number]).sort((x, y) => x[0] - y[0])
    } finally {
      c.close()
    }
    const j = JSON.parse((await tributary(['cluster', 'info', '--apis', '--json', ...bs()])).stdout) as InfoJson
    assert.equal(j.apis?.brokerId, 0)
    assert.deepEqual(
      j.apis!.versions.map((v) => [v.apiKey, v.minVersion, v.maxVersion]),
      raw,
    )
    const byKey = new Map(j.apis!.versions.map((v) => [v.apiKey, v]))
    assert.equal(byKey.get(35)?.name, 'DescribeLogDirs')
    assert.deepEqual([byKey.get(35)?.minVersion, byKey.get(35)?.maxVersion], [1, 5])
    assert.equal(byKey.get(18)?.name, 'ApiVersions')

    const human = await tributary(['cluster', 'info', '--apis', ...bs()])
    assert.equal(human.code, 0, show(human))
    assert.match(human.stdout, /^API versions served by broker 0:$/m)
    assert.match(human.stdout, /^KEY +API +MIN +MAX$/m)
    assert.match(human.stdout, /^ +35 +DescribeLogDirs +1 +5$/m)
    assert.match(human.stdout, /^ +60 +DescribeCluster +\d+ +\d+$/m)
  })

  test('TRIBUTARY_BOOTSTRAP, an unreachable broker (exit 1 with a hint), --help and usage errors (exit 2)', async () => {
    const viaEnv = await tributary(['cluster', 'info', '--json'], { env: { TRIBUTARY_BOOTSTRAP: broker.bootstrap } })
    assert.equal(viaEnv.code, 0, show(viaEnv))
    assert.equal((JSON.parse(viaEnv.stdout) as InfoJson).brokers[0]!.port, broker.port)

    const dead = await tributary(['cluster', 'info', '--bootstrap-server', '127.0.0.1:1'])
    assert.equal(dead.code, 1, show(dead))
    assert.match(dead.stderr, /^tributary cluster info: .*no broker reachable/m)
    assert.match(dead.stderr, /is a broker running there\?/)
    assert.equal(dead.stdout, '')

    const help = await tributary(['cluster', 'info', '--help'])
    assert.equal(help.code, 0, show(help))
    assert.match(help.stdout, /--apis/)
    assert.match(help.stdout, /JSON output \(--json\):/)
    assert.match(help.stdout, /Examples:\n\s+\$ tributary cluster info/)
    const top = await tributary(['cluster', '--help'])
    assert.match(top.stdout, /Examples:/)

    for (const args of [['cluster'], ['cluster', 'info', '--bogus'], ['cluster', 'info', '--request-timeout-ms', 'soon']]) {
      const r = await tributary([...args, ...bs()])
      assert.equal(r.code, 2, `${args.join(' ')}\n${show(r)}`)
    }
  })
})
