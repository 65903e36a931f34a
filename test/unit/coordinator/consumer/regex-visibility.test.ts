// Unit tests of regex subscriptions under an authorizer (src/coordinator/group/consumer/
// consumer-groups.ts, ClientInfo.topicVisible): a regex resolves only to the topics the member's
// last heartbeat said it may see, a topic it may see later is assigned at the next heartbeat, and a
// member restored from the group's records resolves its regex to nothing until it heartbeats when
// an authorizer is on (to every topic when none is).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ConsumerGroups, type TopicInfo } from '../../../../src/coordinator/group/consumer/consumer-groups.js'
import type { ConsumerGroupHeartbeatRequestData } from '../../../../src/protocol/messages/68-consumer-group-heartbeat.js'
import { ManualClock } from '../../../../src/util/clock.js'

const table = new Map<string, TopicInfo>([
  ['rx-a', { id: 'id-a', partitions: 1 }],
  ['rx-b', { id: 'id-b', partitions: 1 }],
])
const config = { sessionTimeoutMs: 45_000, heartbeatIntervalMs: 5000, assignors: ['uniform'] }

const join: ConsumerGroupHeartbeatRequestData = {
  groupId: 'g',
  memberId: 'm1',
  instanceId: null,
  rackId: null,
  memberEpoch: 0,
  rebalanceTimeoutMs: 30_000,
  subscribedTopicNames: null,
  subscribedTopicRegex: 'rx-.*',
  serverAssignor: null,
  topicPartitions: [],
}
const assigned = (r: ReturnType<ConsumerGroups['heartbeat']>) => (r.assignment?.topicPartitions ?? []).map((t) => t.topicId).sort()

test('a regex resolves only to visible topics; a topic made visible is assigned at the next heartbeat', () => {
  const groups = new ConsumerGroups(new ManualClock(), () => table, config)
  let visible = new Set(['rx-a'])
  const client = { clientId: 'c', clientHost: '/h', topicVisible: (t: string) => visible.has(t) }
  const first = groups.heartbeat(join, 1, client)
  assert.equal(first.errorCode, 0)
  assert.deepEqual(assigned(first), ['id-a'])
  visible = new Set(['rx-a', 'rx-b'])
  const next = groups.heartbeat(
    {
      ...join,
      memberEpoch: first.memberEpoch,
      subscribedTopicRegex: null,
      rebalanceTimeoutMs: -1,
      topicPartitions: first.assignment!.topicPartitions,
    },
    1,
    client,
  )
  assert.deepEqual(assigned(next), ['id-a', 'id-b'])
})

for (const authorizing of [true, false]) {
  test(`a restored member's regex resolves to ${authorizing ? 'nothing (authorizer on)' : 'every topic (no authorizer)'} until it heartbeats`, () => {
    const source = new ConsumerGroups(new ManualClock(), () => table, config)
    source.heartbeat(join, 1, { clientId: 'c', clientHost: '/h' })
    const restored = new ConsumerGroups(new ManualClock(), () => table, { ...config, authorizing })
    restored.restore(source.image('g')!)
    assert.deepEqual([...(restored.subscribedTopicNames('g') ?? [])].sort(), authorizing ? [] : ['rx-a', 'rx-b'])
  })
}
