// DescribeTopicPartitions v0 through the handler over fake topics, with every answer encoded and
// decoded: topic order, the cursor across topics and partitions, the partition limit and its cap,
// missing topics, and the INVALID_REQUEST cases, as Kafka's DescribeTopicPartitionsRequestHandler.
import { testConn } from '../../helpers/local-broker.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import describeTopicPartitions from '../../../src/handlers/75-describe-topic-partitions.js'
import type { RequestContext } from '../../../src/handlers/define.js'
import type { BrokerServices } from '../../../src/ports/broker-services.js'
import type {
  DescribeTopicPartitionsRequestData,
  DescribeTopicPartitionsResponseData,
} from '../../../src/protocol/messages/75-describe-topic-partitions.js'
import type { Encodable } from '../../../src/protocol/schema.js'
import { silentLogger } from '../../../src/util/logger.js'

// Deliberately not in name order; 'big' has more partitions than one answer may carry.
const TOPICS: Record<string, number> = { c: 1, a: 3, __consumer_offsets: 2, b: 2, big: 2500 }

function context(): RequestContext {
  const topic = (name: string) =>
    name in TOPICS ? { name, topicId: `${name.padEnd(21, 'x').slice(0, 21)}A`, partitions: TOPICS[name]! } : undefined
  const broker = {
    nodeId: 0,
    clusterId: 'c',
    logger: silentLogger,
    brokers: () => [{ nodeId: 0, host: 'h', port: 1, rack: null }],
    topics: {
      get: topic,
      list: () => Object.keys(TOPICS).map((n) => topic(n)!),
      // Partition 1 of 'a' has its leader on broker 5, which is not live; 'b' has no state at all.
      partitionState: (t: string, p: number) =>
        t === 'b'
          ? undefined
          : t === 'a' && p === 1
            ? { leader: 5, leaderEpoch: 3, replicas: [5, 0], isr: [5] }
            : { leader: 0, leaderEpoch: 1, replicas: [0], isr: [0] },
    },
  } as unknown as BrokerServices
  return {
    header: { apiKey: 75, apiVersion: 0, correlationId: 1, clientId: 'cli', bodyOffset: 0 },
    apiVersion: 0,
    conn: testConn({ remoteAddress: '10.0.0.1', remotePort: 5 }),
    broker,
    apis: [],
  }
}

async function call(req: Encodable<DescribeTopicPartitionsRequestData>): Promise<DescribeTopicPartitionsResponseData> {
  const decoded = describeTopicPartitions.request.decode(0, describeTopicPartitions.request.encode(0, req))
  const res = await describeTopicPartitions.handle(context(), decoded)
  assert.ok(res !== null)
  return describeTopicPartitions.response.decode(0, describeTopicPartitions.response.encode(0, res))
}

/** topic:partition,partition… per topic, and the next cursor. */
const shape = (r: DescribeTopicPartitionsResponseData) => ({
  topics: r.topics.map((t) => `${t.name}:${t.errorCode}:${t.partitions.map((p) => p.partitionIndex).join(',')}`),
  next: r.nextCursor ? `${r.nextCursor.topicName}/${r.nextCursor.partitionIndex}` : null,
})

describe('DescribeTopicPartitions handler', () => {
  it('names given: sorted, deduplicated, each partition described as Metadata does', async () => {
    const res = await call({ topics: [{ name: 'b' }, { name: 'a' }, { name: 'b' }] })
    assert.deepEqual(shape(res), { topics: ['a:0:0,1,2', 'b:0:0,1'], next: null })
    const a = res.topics[0]!
    assert.equal(a.topicId, 'axxxxxxxxxxxxxxxxxxxxA')
    assert.equal(a.isInternal, false)
    assert.equal(a.topicAuthorizedOperations, 3576)
    assert.deepEqual(a.partitions[0], {
      errorCode: 0,
      partitionIndex: 0,
      leaderId: 0,
      leaderEpoch: 1,
      replicaNodes: [0],
      isrNodes: [0],
      eligibleLeaderReplicas: [],
      lastKnownElr: [],
      offlineReplicas: [],
    })
    // Leader on a broker that is not live: leader -1, still no partition error (as Kafka).
    assert.deepEqual(
      { ...a.partitions[1]!, eligibleLeaderReplicas: null },
      {
        errorCode: 0,
        partitionIndex: 1,
        leaderId: -1,
        leaderEpoch: 3,
        replicaNodes: [5, 0],
        isrNodes: [5],
        eligibleLeaderReplicas: null,
        lastKnownElr: [],
        offlineReplicas: [5],
      },
    )
  })

  it('an empty list means every topic, in name order, internal ones flagged', async () => {
    const res = await call({ topics: [], responsePartitionLimit: 100 })
    assert.deepEqual(shape(res), {
      topics: ['__consumer_offsets:0:0,1', 'a:0:0,1,2', 'b:0:0,1', `big:0:${[...Array(93).keys()].join(',')}`],
      next: 'big/93',
    })
    assert.equal(res.topics[0]!.isInternal, true)
  })

  it('pages across topics and partitions with the cursor until NextCursor is null', async () => {
    const pages: string[][] = []
    let cursor: { topicName: string; partitionIndex: number } | null = null
    const names = [{ name: 'c' }, { name: 'a' }, { name: 'b' }]
    for (let i = 0; i < 10; i++) {
      const res = await call({ topics: names, responsePartitionLimit: 2, cursor })
      pages.push(shape(res).topics)
      cursor = res.nextCursor
      if (!cursor) break
    }
    // 6 partitions, 2 per page; a page goes on into the next topic when one ends early.
    assert.deepEqual(pages, [['a:0:0,1'], ['a:0:2', 'b:0:0'], ['b:0:1', 'c:0:0']])
  })

  it('the limit used up exactly at the end of a topic: NextCursor is the next topic at 0', async () => {
    const res = await call({ topics: [{ name: 'a' }, { name: 'b' }], responsePartitionLimit: 3 })
    assert.deepEqual(shape(res), { topics: ['a:0:0,1,2'], next: 'b/0' })
    const last = await call({ topics: [{ name: 'a' }, { name: 'b' }], responsePartitionLimit: 3, cursor: res.nextCursor })
    assert.deepEqual(shape(last), { topics: ['b:0:0,1'], next: null })
  })

  it('the limit is capped at 2000 (max.request.partition.size.limit) and raised to at least 1', async () => {
    const big = await call({ topics: [{ name: 'big' }], responsePartitionLimit: 1_000_000 })
    assert.equal(big.topics[0]!.partitions.length, 2000)
    assert.deepEqual(big.nextCursor, { topicName: 'big', partitionIndex: 2000 })
    const rest = await call({ topics: [{ name: 'big' }], cursor: big.nextCursor })
    assert.equal(rest.topics[0]!.partitions[0]!.partitionIndex, 2000)
    assert.equal(rest.topics[0]!.partitions.length, 500)
    assert.equal(rest.nextCursor, null)
    for (const limit of [0, -5]) {
      assert.deepEqual(shape(await call({ topics: [{ name: 'a' }], responsePartitionLimit: limit })), { topics: ['a:0:0'], next: 'a/1' })
    }
  })

  it('a missing topic is UNKNOWN_TOPIC_OR_PARTITION (INVALID_TOPIC_EXCEPTION if illegal) and uses none of the limit', async () => {
    const res = await call({ topics: [{ name: 'nope' }, { name: 'a' }, { name: 'bad name' }], responsePartitionLimit: 4 })
    assert.deepEqual(shape(res), { topics: ['a:0:0,1,2', 'bad name:17:', 'nope:3:'], next: null })
    assert.equal(res.topics[2]!.topicId, 'AAAAAAAAAAAAAAAAAAAAAA')
  })

  it('topics before the cursor are skipped; the cursor partition applies to its topic only', async () => {
    const res = await call({ topics: [], cursor: { topicName: 'b', partitionIndex: 1 } })
    assert.deepEqual(shape(res).topics.slice(0, 2), ['b:0:1', `big:0:${[...Array(1999).keys()].join(',')}`])
    // A cursor past a topic's end yields the topic with no partitions.
    const past = await call({ topics: [{ name: 'a' }, { name: 'b' }], cursor: { topicName: 'a', partitionIndex: 9 } })
    assert.deepEqual(shape(past), { topics: ['a:0:', 'b:0:0,1'], next: null })
  })

  it('INVALID_REQUEST for every topic asked: cursor topic not among the names, or a negative cursor partition', async () => {
    const notListed = await call({ topics: [{ name: 'a' }, { name: 'c' }], cursor: { topicName: 'b', partitionIndex: 0 } })
    assert.deepEqual(shape(notListed), { topics: ['a:42:', 'c:42:'], next: null })
    const negative = await call({ topics: [{ name: 'a' }], cursor: { topicName: 'a', partitionIndex: -1 } })
    assert.deepEqual(shape(negative), { topics: ['a:42:'], next: null })
    const negativeAll = await call({ topics: [], cursor: { topicName: 'a', partitionIndex: -1 } })
    assert.deepEqual(shape(negativeAll), { topics: [], next: null })
  })
})
