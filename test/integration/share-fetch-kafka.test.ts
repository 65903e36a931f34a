// ShareFetch and ShareAcknowledge side by side with Apache Kafka 4.4 (its jars from Maven Central,
// test/helpers/apache-kafka.ts): one script of requests — sessions, both acquire modes, ordered and
// overlapping acknowledgement batches, another member's records, GAP and RELEASE, a lock renewal,
// an empty incremental answer, the records a closed connection held going to another member, the
// final epoch — is sent to Kafka and to Tributary, and the answers (error codes, acquired ranges
// with delivery counts, record bytes) must be the same. Kafka delivers records only to members of
// an initialized share group, so there the members join with ShareGroupHeartbeat first; on a
// broker without that API the script goes straight to the partition leader, which does not check
// membership.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { createTopics } from '../../src/client/admin.js'
import { connectNegotiated } from '../../src/client/api-versions.js'
import { KafkaClient } from '../../src/client/client.js'
import type { Connection } from '../../src/client/connection.js'
import { Producer } from '../../src/client/producer.js'
import { type RunningBroker, startBroker } from '../../src/index.js'
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../../src/protocol/messages/10-find-coordinator.js'
import { ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse } from '../../src/protocol/messages/76-share-group-heartbeat.js'
import {
  ShareAcknowledgeRequest,
  ShareAcknowledgeResponse,
  type ShareAcknowledgeResponseData,
} from '../../src/protocol/messages/79-share-acknowledge.js'
import {
  ShareFetchRequest,
  type ShareFetchRequestData,
  ShareFetchResponse,
  type ShareFetchResponseData,
} from '../../src/protocol/messages/78-share-fetch.js'
import type { Encodable } from '../../src/protocol/schema.js'
import { type ApacheKafka, startApacheKafka } from '../helpers/apache-kafka.js'

type Answer = { errorCode: number; parts: Array<Record<string, unknown>> } | string

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function summarize(r: ShareFetchResponseData | ShareAcknowledgeResponseData): Answer {
  return {
    errorCode: r.errorCode,
    parts: r.responses.flatMap((t) =>
      t.partitions.map((p) => ({
        p: p.partitionIndex,
        e: p.errorCode,
        ...('acknowledgeErrorCode' in p
          ? {
              ae: p.acknowledgeErrorCode,
              acq: p.acquiredRecords.map((a) => [a.firstOffset, a.lastOffset, a.deliveryCount]),
              bytes: p.records?.length ?? 0,
            }
          : {}),
      })),
    ),
  }
}

/** The script; returns the answers in order. */
async function script(bootstrap: string): Promise<Array<[string, Answer]>> {
  const [host, port] = [bootstrap.split(':')[0]!, Number(bootstrap.split(':')[1])]
  const client = await KafkaClient.connect({ bootstrap: [bootstrap] })
  const conns: Connection[] = []
  const conn = async () => {
    const c = await connectNegotiated({ host, port })
    conns.push(c)
    return c
  }
  try {
    const topic = `share-side-${randomBytes(3).toString('hex')}`
    const group = `share-side-${randomBytes(3).toString('hex')}`
    const [created] = await createTopics(client, [{ name: topic, numPartitions: 1, replicationFactor: 1 }])
    assert.equal(created!.error, null)
    let topicId = ''
    for (let i = 0; i < 50 && !topicId; i++, await sleep(100)) topicId = (await client.metadata([topic])).topics.get(topic)?.topicId ?? ''
    const uuid = () => randomBytes(16).toString('base64url')
    const out: Array<[string, Answer]> = []
    const ack = (firstOffset: number, lastOffset: number, ...acknowledgeTypes: number[]) => ({ firstOffset, lastOffset, acknowledgeTypes })
    const on = (acknowledgementBatches: ReturnType<typeof ack>[]) => [
      { topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches }] },
    ]
    const fetchReq = (
      memberId: string,
      epoch: number,
      extra: Partial<Encodable<ShareFetchRequestData>> = {},
    ): Encodable<ShareFetchRequestData> => ({
      groupId: group,
      memberId,
      shareSessionEpoch: epoch,
      maxWaitMs: 0,
      minBytes: 1,
      maxBytes: 1 << 20,
      maxRecords: 500,
      batchSize: 500,
      topics: on([]),
      forgottenTopicsData: [],
      ...extra,
    })
    const sf = async (name: string, c: Connection, req: Encodable<ShareFetchRequestData>) => {
      out.push([name, summarize(await c.request(ShareFetchRequest, ShareFetchResponse, 2, req, { timeoutMs: 20_000 }))])
    }
    const sa = async (name: string, c: Connection, memberId: string, epoch: number, batches: ReturnType<typeof ack>[]) => {
      const req = { groupId: group, memberId, shareSessionEpoch: epoch, topics: on(batches) }
      out.push([name, summarize(await c.request(ShareAcknowledgeRequest, ShareAcknowledgeResponse, 2, req, { timeoutMs: 20_000 }))])
    }

    const M1 = uuid()
    const M2 = uuid()
    const hb = await conn()
    if (hb.versions!.brokerRange(76) !== undefined) {
      // The group coordinator (this broker) must be ready before members join.
      for (let i = 0; i < 60; i++, await sleep(500)) {
        const r = await hb.request(FindCoordinatorRequest, FindCoordinatorResponse, 4, { keyType: 0, coordinatorKeys: [group] })
        if (r.coordinators[0]!.errorCode === 0) break
      }
      for (const memberId of [M1, M2]) {
        let epoch = 0
        let assigned = false
        for (let i = 0; i < 60 && !assigned; i++, await sleep(300)) {
          const r = await hb.request(ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse, 1, {
            groupId: group,
            memberId,
            memberEpoch: epoch,
            rackId: null,
            subscribedTopicNames: epoch === 0 ? [topic] : null,
          })
          if (r.errorCode === 0) epoch = r.memberEpoch
          assigned ||= (r.assignment?.topicPartitions.length ?? 0) > 0
        }
      }
    }

    const a = await conn()
    const b = await conn()
    await sf('open M1 before any record (latest)', a, fetchReq(M1, 0, { maxWaitMs: 500 }))
    const producer = await Producer.create(client, { topic, acks: -1, lingerMs: 0 })
    for (let batch = 0; batch < 2; batch++) {
      for (let i = 0; i < 5; i++) producer.send({ key: null, value: Buffer.from(`v${batch}-${i}`), partition: 0 })
      await producer.flush()
    }
    producer.close()
    await sf('M1 batch-optimized maxRecords 3: the whole first batch', a, fetchReq(M1, 1, { maxRecords: 3, batchSize: 2, maxWaitMs: 5000 }))
    await sf(
      'M2 record-limit maxRecords 2: exactly two',
      b,
      fetchReq(M2, 0, { maxRecords: 2, batchSize: 2, shareAcquireMode: 1, maxWaitMs: 5000 }),
    )
    await sa('overlapping batches', a, M1, 2, [ack(0, 2, 1), ack(2, 3, 1)])
    await sa('batches out of order', a, M1, 3, [ack(3, 3, 1), ack(0, 0, 1)])
    await sa('M2 acknowledges M1’s record', b, M2, 1, [ack(1, 1, 1)])
    await sa('M1 GAP and RELEASE', a, M1, 4, [ack(1, 2, 0, 2)])
    await sf('M2 gets the released record and the rest', b, fetchReq(M2, 2, { topics: [], maxWaitMs: 2000 }))
    const renew = { isRenewAck: true, maxBytes: 0, minBytes: 0, maxRecords: 0, maxWaitMs: 0, topics: on([ack(4, 4, 4)]) }
    await sf('M1 renews a lock', a, fetchReq(M1, 5, renew))
    await sf('M1 incremental, nothing new', a, fetchReq(M1, 6, { topics: [] }))
    a.close()
    await sleep(1500)
    await sf('M2 gets what M1’s closed connection held', b, fetchReq(M2, 3, { topics: [], maxWaitMs: 3000 }))
    const more = await Producer.create(client, { topic, acks: -1, lingerMs: 0 })
    for (let batch = 0; batch < 2; batch++) {
      for (let i = 0; i < 5; i++) more.send({ key: null, value: Buffer.from(`w${batch}-${i}`), partition: 0 })
      await more.flush()
    }
    more.close()
    await sf('M2 new records of two batches', b, fetchReq(M2, 4, { topics: [], maxWaitMs: 3000 }))
    await sf('M2 final epoch with an ack', b, fetchReq(M2, -1, { topics: on([ack(0, 0, 1)]) }))
    await sf('M2 after its final epoch', b, fetchReq(M2, 5, { topics: [] }))
    return out
  } finally {
    for (const c of conns) c.close()
    await client.close()
  }
}

describe('ShareFetch / ShareAcknowledge: the same answers as Apache Kafka 4.4', { timeout: 600_000 }, () => {
  let kafka: ApacheKafka | undefined
  let broker: RunningBroker | undefined
  let fromKafka: Array<[string, Answer]>

  before(async () => {
    kafka = await startApacheKafka()
    fromKafka = await script(kafka.bootstrap)
    await kafka.stop()
    kafka = undefined
    broker = await startBroker({ storage: 'memory' })
  })

  after(async () => {
    await kafka?.stop()
    await broker?.close()
  })

  it('Kafka answers the script as described', () => {
    const byName = new Map(fromKafka)
    const first = byName.get('M1 batch-optimized maxRecords 3: the whole first batch') as Exclude<Answer, string>
    assert.deepEqual(first.parts[0]!.acq, [[0, 4, 1]])
    const later = byName.get('M2 gets what M1’s closed connection held') as Exclude<Answer, string>
    assert.deepEqual(later.parts[0]!.acq, [
      [0, 0, 2],
      [3, 4, 2],
    ])
    assert.equal((byName.get('M2 after its final epoch') as Exclude<Answer, string>).errorCode, 122)
  })

  it('Tributary answers every request of the script as Kafka did', async () => {
    const fromTributary = await script(broker!.bootstrap)
    assert.deepEqual(fromTributary, fromKafka)
  })
})
