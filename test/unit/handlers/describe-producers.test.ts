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
import { BrokerConfigService } from '../../../src/broker/config-service.js'
import { type Controller, logConfigOf } from '../../../src/cluster/controller.js'
import { LocalMetadataStore } from '../../../src/cluster/local-store.js'
import { defaultBrokerConfig } from '../../../src/config/config.js'
import { topicDefaults } from '../../../src/config/topic-config.js'
import describeProducers from '../../../src/handlers/61-describe-producers.js'
import type { RequestContext } from '../../../src/handlers/define.js'
import type { BrokerServices } from '../../../src/ports/broker-services.js'
import { ErrorCode } from '../../../src/protocol/errors.js'
import type { DescribeProducersRequestData, DescribeProducersResponseData } from '../../../src/protocol/messages/61-describe-producers.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import type { Encodable } from '../../../src/protocol/schema.js'
import { ReplicaManager } from '../../../src/replication/replica-manager.js'
import { nodeFs } from '../../../src/storage/fs.js'
import { LogManager } from '../../../src/storage/log-manager.js'
import { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { followLocalCluster } from '../../helpers/local-cluster.js'

const PID = 4242

describe('DescribeProducers handler', () => {
  let dir: string
  let clock: ManualClock
  let store: LocalMetadataStore
  let replicas: ReplicaManager
  let controller: Controller
  let services: BrokerServices
  let closeCluster: () => Promise<void>

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tributary-describe-producers-'))
    clock = new ManualClock()
    store = await LocalMetadataStore.open({ fs: nodeFs, dataDir: dir, clock })
    const configs = new BrokerConfigService(defaultBrokerConfig(), store, silentLogger)
    const logs = await LogManager.open({
      fs: nodeFs,
      clock,
      logDir: dir,
      config: logConfigOf(topicDefaults(configs.config)),
      logger: silentLogger,
    })
    // 'elsewhere' stands for a topic whose partitions all live on other brokers.
    replicas = new ReplicaManager(logs, clock, silentLogger, { partitionExists: (t) => t === 'elsewhere' })
    replicas.loadExisting()
    const cluster = await followLocalCluster(store, replicas, configs.config, clock)
    controller = cluster.controller
    closeCluster = cluster.close
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
    await replicas.close()
    await store.close()
    await rm(dir, { recursive: true, force: true })
  })

  async function call(req: Encodable<DescribeProducersRequestData>): Promise<DescribeProducersResponseData> {
    const ctx: RequestContext = {
      header: { apiKey: 61, apiVersion: 0, correlationId: 1, clientId: 't', bodyOffset: 0 },
      apiVersion: 0,
      conn: { id: 1, remoteAddress: '127.0.0.1', remotePort: 1, listenerName: 'PLAINTEXT', closed: new AbortController().signal },
      broker: services,
      apis: [],
    }
    const res = await describeProducers.handle(ctx, describeProducers.request.decode(0, describeProducers.request.encode(0, req)))
    assert.ok(res !== null)
    return describeProducers.response.decode(0, describeProducers.response.encode(0, res))
  }

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
