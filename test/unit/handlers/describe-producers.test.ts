// DescribeProducers v0 through the handler over a real replica manager and logs on a temp dir:
// idempotent batches appended to one partition show up as that producer's epoch, last sequence and
// last timestamp (coordinator epoch and transaction start -1: no transactions), a partition without
// producers answers an empty list, and the two partition errors of Kafka's
// ReplicaManager.activeProducerState come back per partition with a null message.
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Controller } from '../../../src/cluster/controller.js'
import describeProducers from '../../../src/handlers/61-describe-producers.js'
import type { BrokerServices } from '../../../src/ports/broker-services.js'
import { ErrorCode } from '../../../src/protocol/errors.js'
import type { DescribeProducersRequestData, DescribeProducersResponseData } from '../../../src/protocol/messages/61-describe-producers.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import type { Encodable } from '../../../src/protocol/schema.js'
import type { ReplicaManager } from '../../../src/replication/replica-manager.js'
import type { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { callHandler, openLocalBroker } from '../../helpers/local-broker.js'

const PID = 4242

describe('DescribeProducers handler', () => {
  let dir: string
  let clock: ManualClock
  let replicas: ReplicaManager
  let controller: Controller
  let services: BrokerServices
  let closeCluster: () => Promise<void> // the whole core: cluster parts, replicas, store

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tributary-describe-producers-'))
    // 'elsewhere' stands for a topic whose partitions all live on other brokers.
    const core = await openLocalBroker(dir, { replicaOptions: { partitionExists: (t) => t === 'elsewhere' } })
    ;({ clock, replicas, controller } = core)
    const { configs } = core
    closeCluster = core.close
    services = { nodeId: 0, clock, logger: silentLogger, topics: controller, replicas, configs } as unknown as BrokerServices
    await controller.create({ name: 'idem', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }, false)
    const p = replicas.require('idem', 1)
    const batch = (baseSequence: number, count: number, timestamp: number) =>
      buildRecordBatch({
        producerId: PID,
        producerEpoch: 3,
        baseSequence,
        records: Array.from({ length: count }, (_, i) => ({ key: null, value: Buffer.from(`v${i}`), timestamp })),
      })
    await replicas.append(p, batch(0, 3, 1_000), 1 << 20)
    await replicas.append(p, batch(3, 2, 2_000), 1 << 20)
  })

  after(async () => {
    await closeCluster()
    await rm(dir, { recursive: true, force: true })
  })

  const call = (req: Encodable<DescribeProducersRequestData>): Promise<DescribeProducersResponseData> =>
    callHandler(services, describeProducers, 0, req)

  it('serves v0 only', () => {
    assert.equal(describeProducers.minVersion, 0)
    assert.equal(describeProducers.maxVersion, 0)
  })

  it("lists a partition's idempotent producer with its epoch, last sequence and last timestamp", async () => {
    const res = await call({ topics: [{ name: 'idem', partitionIndexes: [1, 0] }] })
    assert.equal(res.throttleTimeMs, 0)
    assert.deepEqual(res.topics, [
      {
        name: 'idem',
        partitions: [
          {
            partitionIndex: 1,
            errorCode: 0,
            errorMessage: null,
            activeProducers: [
              { producerId: PID, producerEpoch: 3, lastSequence: 4, lastTimestamp: 2_000, coordinatorEpoch: -1, currentTxnStartOffset: -1 },
            ],
          },
          { partitionIndex: 0, errorCode: 0, errorMessage: null, activeProducers: [] },
        ],
      },
    ])
  })

  it('answers UNKNOWN_TOPIC_OR_PARTITION and NOT_LEADER_OR_FOLLOWER per partition', async () => {
    const res = await call({
      topics: [
        { name: 'idem', partitionIndexes: [7] },
        { name: 'missing', partitionIndexes: [0] },
        { name: 'elsewhere', partitionIndexes: [0] },
      ],
    })
    const codes = res.topics.map((t) =>
      t.partitions.map((p) => [t.name, p.partitionIndex, p.errorCode, p.errorMessage, p.activeProducers.length]),
    )
    assert.deepEqual(codes, [
      [['idem', 7, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code, null, 0]],
      [['missing', 0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code, null, 0]],
      [['elsewhere', 0, ErrorCode.NOT_LEADER_OR_FOLLOWER.code, null, 0]],
    ])
  })
})
