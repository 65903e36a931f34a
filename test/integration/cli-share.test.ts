// `tributary consume --share-group` and `tributary group describe|list` for all three group types,
// run as subprocesses against a broker with share groups: Tributary by default, Apache Kafka 4.x
// with SHARE_TEST_BROKER=kafka (test/helpers/share-broker.ts).
//
// Share group: records printed and acknowledged with --ack (release → the next run gets them
// again with delivery count 2; accept → done; reject → never again), then described with its
// lag per partition and a member while one is subscribed. Classic group: made by
// `consume --group`. Consumer group (KIP-848): one member joined by a ConsumerGroupHeartbeat sent
// from the test. Ctrl-C ends a share consume cleanly. Options that make no sense with a share
// group are usage errors (exit 2).
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { after, before, describe, test } from 'node:test'
import { createTopics } from '../../src/client/admin.js'
import { findCoordinator } from '../../src/client/admin-groups.js'
import { KafkaClient } from '../../src/client/client.js'
import { throwIfError } from '../../src/client/errors.js'
import { ShareConsumer } from '../../src/client/share-consumer.js'
import { newMemberId } from '../../src/client/share-membership.js'
import { ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse } from '../../src/protocol/messages/68-consumer-group-heartbeat.js'
import { BROKER_MAIN } from '../helpers/broker-process.js'
import { type CliRun, tributary } from '../helpers/cli.js'
import { produceValues, setGroupConfigs, type ShareBroker, startShareBroker } from '../helpers/share-broker.js'

const show = (r: CliRun) => `exit ${r.code ?? r.signal}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`

interface JsonRecord {
  offset: number
  value: string
  deliveryCount: number
}

describe(`tributary share groups and group describe (${process.env.SHARE_TEST_BROKER === 'kafka' ? 'Apache Kafka' : 'Tributary'})`, {
  timeout: 600_000,
}, () => {
  let broker: ShareBroker
  let admin: KafkaClient
  const cli = (args: string[]) => tributary([...args, '--bootstrap-server', broker.bootstrap])
  const ok = async (args: string[]) => {
    const r = await cli(args)
    assert.equal(r.code, 0, show(r))
    return r
  }
  const records = (r: CliRun) =>
    r.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as JsonRecord)
  const topicWith = async (topic: string, values: string[], shareGroup?: string) => {
    const created = await createTopics(admin, [{ name: topic, numPartitions: 1, replicationFactor: 1 }])
    assert.deepEqual(
      created.map((c) => c.error),
      [null],
    )
    if (shareGroup) await setGroupConfigs(admin, shareGroup, { 'share.auto.offset.reset': 'earliest' })
    await produceValues(admin, topic, values)
  }

  before(async () => {
    broker = await startShareBroker()
    admin = await KafkaClient.connect({ bootstrap: [broker.bootstrap], clientId: 'it-cli-share' })
  })

  after(async () => {
    await admin?.close()
    await broker?.stop()
  })

  test('consume --share-group: release gives the records back, accept takes them; describe shows the share group', async () => {
    const values = ['a', 'b', 'c', 'd', 'e']
    await topicWith('jobs', values, 'workers')
    const released = await ok(['consume', 'jobs', '--share-group', 'workers', '--ack', 'release', '--max-messages', '5', '--json'])
    assert.deepEqual(
      records(released).map((r) => [r.offset, r.value, r.deliveryCount]),
      values.map((v, i) => [i, v, 1]),
    )
    assert.match(released.stderr, /Processed 5 messages/)
    const accepted = await ok(['consume', 'jobs', '--share-group', 'workers', '--max-messages', '5', '--json'])
    assert.deepEqual(
      records(accepted).map((r) => [r.offset, r.value, r.deliveryCount]),
      values.map((v, i) => [i, v, 2]),
    )

    const d = JSON.parse((await ok(['group', 'describe', 'workers', '--json'])).stdout)
    assert.equal(d.groupType, 'share')
    assert.equal(d.groupId, 'workers')
    assert.deepEqual(d.members, [])
    // The start offset as stored may trail what was acknowledged (Kafka moves it lazily); the lag does not.
    assert.deepEqual(
      d.partitions.map((p: Record<string, unknown>) => [p.topic, p.partition, p.lag, p.members]),
      [['jobs', 0, 0, []]],
    )
    assert.ok(d.partitions[0].startOffset >= 0 && d.partitions[0].startOffset <= 5, `start offset ${d.partitions[0].startOffset}`)
    assert.equal(d.totalLag, 0)

    // A member while one is subscribed; two more records are lag.
    await produceValues(admin, 'jobs', ['f', 'g'])
    const member = new ShareConsumer({ bootstrap: [broker.bootstrap], groupId: 'workers', clientId: 'describe-me' })
    try {
      await member.subscribe(['jobs'])
      for (let i = 0; i < 300 && member.assignment.length === 0; i++) await new Promise((r) => setTimeout(r, 100))
      const text = (await ok(['group', 'describe', 'workers'])).stdout
      assert.match(text, /^type:\s+share$/m)
      assert.match(text, new RegExp(`^${member.memberId}\\s+describe-me\\s+\\S+\\s+\\d+\\s+jobs:0$`, 'm'))
      assert.match(text, /^jobs\s+0\s+\d+\s+2\s+1$/m)
      assert.match(text, /^total lag: 2$/m)
    } finally {
      await member.close()
    }
    const listed = JSON.parse((await ok(['group', 'list', '--json'])).stdout) as Array<{ groupId: string; groupType: string }>
    assert.equal(listed.find((g) => g.groupId === 'workers')?.groupType, 'share')
    assert.match((await ok(['group', 'list'])).stdout, /^workers\s+share\s+\S+/m)
  })

  test('consume --share-group --ack reject: the records are never delivered again', async () => {
    await topicWith('poison', ['p0', 'p1'], 'rejecters')
    const rejected = await ok(['consume', 'poison', '--share-group', 'rejecters', '--ack', 'reject', '--max-messages', '2', '--json'])
    assert.deepEqual(
      records(rejected).map((r) => r.value),
      ['p0', 'p1'],
    )
    await produceValues(admin, 'poison', ['p2'])
    const next = await ok(['consume', 'poison', '--share-group', 'rejecters', '--max-messages', '1', '--json'])
    assert.deepEqual(
      records(next).map((r) => [r.offset, r.value, r.deliveryCount]),
      [[2, 'p2', 1]],
    )
    const d = JSON.parse((await ok(['group', 'describe', 'rejecters', '--json'])).stdout)
    assert.deepEqual(
      d.partitions.map((p: Record<string, unknown>) => [p.topic, p.partition, p.lag]),
      [['poison', 0, 0]],
    )
  })

  test('group alter-config: a queue set to start at the earliest record before its first consumer; bad keys refused', async () => {
    await topicWith('backlog', ['b0', 'b1', 'b2'])
    const altered = await ok(['group', 'alter-config', 'drainers', '--set', 'share.auto.offset.reset=earliest', '--json'])
    assert.deepEqual(JSON.parse(altered.stdout), {
      groupId: 'drainers',
      altered: true,
      changes: [{ name: 'share.auto.offset.reset', op: 'set', value: 'earliest' }],
    })
    const drained = await ok(['consume', 'backlog', '--share-group', 'drainers', '--max-messages', '3', '--json'])
    assert.deepEqual(
      records(drained).map((r) => r.value),
      ['b0', 'b1', 'b2'],
    )
    const bad = await cli(['group', 'alter-config', 'drainers', '--set', 'share.no.such.key=1'])
    assert.notEqual(bad.code, 0, show(bad))
    assert.match(bad.stderr, /invalid config change for group 'drainers'/)
    const none = await cli(['group', 'alter-config', 'drainers'])
    assert.equal(none.code, 2, show(none))
  })

  test('group describe: a classic group', async () => {
    await topicWith('ledger', ['l0', 'l1', 'l2'])
    await ok(['consume', 'ledger', '--group', 'classic-g', '--from-beginning', '--max-messages', '2', '-q'])
    const d = JSON.parse((await ok(['group', 'describe', 'classic-g', '--json'])).stdout)
    assert.equal(d.groupType, 'classic')
    assert.equal(d.state, 'Empty')
    assert.deepEqual(
      d.partitions.map((p: Record<string, unknown>) => [p.topic, p.partition, p.committedOffset, p.endOffset, p.lag]),
      [['ledger', 0, 2, 3, 1]],
    )
    assert.match((await ok(['group', 'list'])).stdout, /^classic-g\s+classic\s+Empty\s+consumer$/m)
  })

  test('group describe: a consumer group (KIP-848) with a member', async () => {
    await topicWith('stream', ['s0', 's1'])
    const memberId = newMemberId()
    const coordinator = await findCoordinator(admin, 'kip848-g')
    const join = await admin.request(
      ConsumerGroupHeartbeatRequest,
      ConsumerGroupHeartbeatResponse,
      {
        groupId: 'kip848-g',
        memberId,
        memberEpoch: 0,
        instanceId: null,
        rackId: null,
        rebalanceTimeoutMs: 60_000,
        subscribedTopicNames: ['stream'],
        subscribedTopicRegex: null,
        serverAssignor: null,
        topicPartitions: [],
      },
      { nodeId: coordinator },
    )
    throwIfError(join.errorCode, 'ConsumerGroupHeartbeat', join.errorMessage)
    try {
      const d = JSON.parse((await ok(['group', 'describe', 'kip848-g', '--json'])).stdout)
      assert.equal(d.groupType, 'consumer')
      assert.equal(d.members.length, 1)
      assert.equal(d.members[0].memberId, memberId)
      assert.deepEqual(d.members[0].subscribedTopics, ['stream'])
      assert.deepEqual(d.members[0].targetAssignment, [{ topic: 'stream', partitions: [0] }])
      assert.ok(d.groupEpoch >= 1)
      const text = (await ok(['group', 'describe', 'kip848-g'])).stdout
      assert.match(text, /^type:\s+consumer$/m)
      assert.match((await ok(['group', 'list'])).stdout, /^kip848-g\s+consumer\s+/m)
    } finally {
      await admin.request(
        ConsumerGroupHeartbeatRequest,
        ConsumerGroupHeartbeatResponse,
        { groupId: 'kip848-g', memberId, memberEpoch: -1, topicPartitions: null, subscribedTopicNames: null },
        { nodeId: coordinator },
      )
    }
  })

  test('Ctrl-C: the records printed are acknowledged, the group left, exit 0', async () => {
    await topicWith('tail', ['t0', 't1', 't2'], 'tailers')
    const child = spawn(
      process.execPath,
      [BROKER_MAIN, 'consume', 'tail', '--share-group', 'tailers', '--bootstrap-server', broker.bootstrap],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let stdout = ''
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t))
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no 3 lines within 60 s:\n${stdout}\n${stderr}`)), 60_000)
      child.stdout.setEncoding('utf8').on('data', (t: string) => {
        stdout += t
        if (stdout.split('\n').length > 3) {
          clearTimeout(timer)
          resolve()
        }
      })
    })
    child.kill('SIGINT')
    assert.equal(await exited, 0, stderr)
    assert.deepEqual(stdout.split('\n'), ['t0', 't1', 't2', ''])
    assert.match(stderr, /Processed 3 messages/)
    const d = JSON.parse((await ok(['group', 'describe', 'tailers', '--json'])).stdout)
    assert.deepEqual(d.members, [])
    assert.deepEqual(
      d.partitions.map((p: Record<string, unknown>) => p.lag),
      [0],
    )
  })

  test('options a share group does not take are usage errors', async () => {
    for (const extra of [['--from-beginning'], ['--group', 'x'], ['--partition', '0'], ['--exit-at-end'], ['--offset', '3']]) {
      const r = await cli(['consume', 'jobs', '--share-group', 'workers', ...extra])
      assert.equal(r.code, 2, show(r))
      assert.match(r.stderr, /--share-group cannot be used with/)
    }
    const r = await cli(['consume', 'jobs', '--ack', 'reject'])
    assert.equal(r.code, 2, show(r))
    const bad = await cli(['consume', 'jobs', '--share-group', 'workers', '--ack', 'maybe'])
    assert.equal(bad.code, 2, show(bad))
  })

  test('group describe of a group that does not exist', async () => {
    const r = await cli(['group', 'describe', 'nobody-here'])
    assert.equal(r.code, 1, show(r))
    assert.match(r.stderr, /does not exist/)
  })
})
