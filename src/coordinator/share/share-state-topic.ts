// Where the share coordinator keeps share-partition state: the port (ShareStateLog) and its broker
// implementation on the internal topic `__share_group_state` (record format: share-records.ts),
// as Kafka's share coordinator keeps it (KIP-932, ShareCoordinatorConfig).
//
// Contract: append() resolves only once the records are durable — appended with acks=-1, so once
// the in-sync replicas have them, and only while they number at least the topic's
// min.insync.replicas, within share.coordinator.write.timeout.ms — with the offset of the first
// record, and rejects with the code Kafka's share coordinator answers a write with
// (mapShareStoreError): a moved leader NOT_COORDINATOR, too few in-sync replicas or a timeout
// COORDINATOR_NOT_AVAILABLE, a write too large UNKNOWN_SERVER_ERROR. Appends to one partition in
// the same tick go as one batch (up to 500 records; Kafka's coordinator runtime batches its writes
// so too), each caller answered with the offset of its own first record, all with the batch's
// fate. loadPartition() replays one partition in write order with each record's offset.
// deleteRecordsBelow() moves the partition's log start up (Kafka's share coordinator prunes so,
// with DeleteRecords, the records no share-partition needs any more).
//
// The topic is created on first use (FindCoordinator of key type 2, or the first write) or adopted
// as it exists, through coordinator/internal-topic.ts: share.coordinator.state.topic.num.partitions
// partitions, .replication.factor replicas, and Kafka's topic configs for it —
// cleanup.policy=delete (state is pruned, not compacted), retention.ms=-1 (never by time),
// compression.type=producer, min.insync.replicas=share.coordinator.state.topic.min.isr,
// segment.bytes=share.coordinator.state.topic.segment.bytes. A key "group:topicId:partition" lives
// in partition abs(javaHash(key)) % the topic's partition count, as Kafka places it.
import { SHARE_GROUP_STATE_TOPIC } from '../../cluster/topic-names.js'
import type { AppendPolicy, ReplicaService } from '../../ports/replicas.js'
import { type SharePartitionKey, sharePartitionKeyString } from '../../ports/shares.js'
import type { TopicService } from '../../ports/topics.js'
import { type ErrorName, KafkaError } from '../../protocol/errors.js'
import { buildRecordBatch } from '../../protocol/records/builder.js'
import type { Clock } from '../../util/clock.js'
import type { Logger } from '../../util/logger.js'
import { partitionForGroup } from '../group/persistence.js'
import { InternalTopic, storeErrorName } from '../internal-topic.js'
import { decodeShareRecord, encodeShareRecord, type ShareRecord } from './share-records.js'

export { SHARE_GROUP_STATE_TOPIC }
const LOAD_CHUNK_BYTES = 1 << 20
/** Records of one tick put in one batch at most (more start the next). */
const MAX_RECORDS_PER_BATCH = 500
/** How long pruned segments stay on disk before their files go (Kafka: file.delete.delay.ms). */
const PRUNE_FILE_DELETE_DELAY_MS = 60_000

export interface ShareStateLog {
  /** The `__share_group_state` partition that holds the key. */
  partitionFor(key: SharePartitionKey): number
  /** The topic exists once this resolves; COORDINATOR_NOT_AVAILABLE when it cannot be created. */
  ensureTopic(): Promise<void>
  /** Durably appends the records (all of one partition's keys) as one batch; resolves with the first one's offset. */
  append(partition: number, records: ShareRecord[]): Promise<number>
  /** Replays one partition this broker leads, in write order. */
  loadPartition(partition: number, sink: (record: ShareRecord, offset: number) => void): Promise<unknown>
  /** The partition's records below `offset` are no longer needed (never above its high watermark). */
  deleteRecordsBelow(partition: number, offset: number): Promise<void>
}

/** abs(javaHash("group:topicId:partition")) % partitions: Kafka's placement of a share-partition's state. */
export function partitionForShareKey(key: SharePartitionKey, partitions: number): number {
  return partitionForGroup(sharePartitionKeyString(key), partitions)
}

const TOO_LARGE: ReadonlySet<ErrorName> = new Set<ErrorName>(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE'])

/** Kafka's share coordinator mapping of append errors (storeErrorName in ../internal-topic.ts; too large: UNKNOWN_SERVER_ERROR). */
export function mapShareStoreError(err: unknown): KafkaError {
  const message = err instanceof Error ? err.message : String(err)
  let name: ErrorName = 'UNKNOWN_SERVER_ERROR'
  if (err instanceof KafkaError) name = storeErrorName(err) ?? (TOO_LARGE.has(err.errorName) ? 'UNKNOWN_SERVER_ERROR' : err.errorName)
  return new KafkaError(name, `storing share-partition state failed: ${message}`)
}

export interface ShareStateTopicOptions {
  topics: Pick<TopicService, 'get' | 'create' | 'effectiveConfig'>
  replicas: Pick<ReplicaService, 'require' | 'append' | 'deleteRecords'>
  /** share.coordinator.state.topic.num.partitions */
  numPartitions: number
  /** share.coordinator.state.topic.replication.factor */
  replicationFactor: number
  /** share.coordinator.state.topic.min.isr */
  minIsr: number
  /** share.coordinator.state.topic.segment.bytes */
  segmentBytes: number
  /** share.coordinator.write.timeout.ms */
  writeTimeoutMs: number
  /** share.coordinator.load.buffer.size */
  loadChunkBytes?: number
  clock: Clock
  logger: Logger
}

interface PendingBatch {
  records: ShareRecord[]
  waiters: Array<{ at: number; resolve: (offset: number) => void; reject: (err: KafkaError) => void }>
}

export class ShareStateTopic implements ShareStateLog {
  private readonly topic: InternalTopic
  /** Per partition, the batch being filled this tick. */
  private readonly pending = new Map<number, PendingBatch>()

  constructor(private readonly opts: ShareStateTopicOptions) {
    if (!Number.isInteger(opts.numPartitions) || opts.numPartitions < 1) {
      throw new RangeError(`share.coordinator.state.topic.num.partitions must be ≥ 1, not ${opts.numPartitions}`)
    }
    this.topic = new InternalTopic({
      name: SHARE_GROUP_STATE_TOPIC,
      label: 'share group state topic',
      topics: opts.topics,
      replicas: opts.replicas,
      numPartitions: opts.numPartitions,
      replicationFactor: opts.replicationFactor,
      configs: [
        { name: 'cleanup.policy', value: 'delete' },
        { name: 'compression.type', value: 'producer' },
        { name: 'min.insync.replicas', value: String(opts.minIsr) },
        { name: 'segment.bytes', value: String(opts.segmentBytes) },
        // Never by time: only the coordinator's pruning removes state.
        { name: 'retention.ms', value: '-1' },
      ],
      logger: opts.logger,
    })
  }

  partitionFor(key: SharePartitionKey): number {
    return partitionForShareKey(key, this.topic.partitionCount())
  }

  ensureTopic(): Promise<void> {
    return this.topic.ensureTopic()
  }

  append(partition: number, records: ShareRecord[]): Promise<number> {
    let open = this.pending.get(partition)
    if (!open || open.records.length + records.length > MAX_RECORDS_PER_BATCH) {
      const b: PendingBatch = { records: [], waiters: [] }
      open = b
      this.pending.set(partition, b)
      queueMicrotask(() => {
        if (this.pending.get(partition) === b) this.pending.delete(partition)
        this.flush(partition, b)
      })
    }
    const at = open.records.length
    open.records.push(...records)
    return new Promise((resolve, reject) => open.waiters.push({ at, resolve, reject }))
  }

  /** One batch of everything asked in a tick for the partition; each caller gets its first record's offset. */
  private flush(partition: number, b: PendingBatch): void {
    const fail = (err: KafkaError) => {
      for (const w of b.waiters) w.reject(err)
    }
    let batch: Buffer
    try {
      batch = buildRecordBatch({ baseTimestamp: this.opts.clock.now(), records: b.records.map(encodeShareRecord) })
    } catch (err) {
      fail(mapShareStoreError(err))
      return
    }
    this.topic
      .append(
        batch,
        () => partition,
        () => Number.MAX_SAFE_INTEGER,
        () => this.appendPolicy(),
      )
      .then(
        (r) => {
          for (const w of b.waiters) w.resolve(r.baseOffset + w.at)
        },
        (err) => {
          const mapped = mapShareStoreError(err)
          this.opts.logger.warn('share group state append failed', { partition, error: err as Error, code: mapped.errorName })
          fail(mapped)
        },
      )
  }

  private appendPolicy(): AppendPolicy {
    return {
      logAppendTime: false,
      beforeMaxMs: Number.MAX_SAFE_INTEGER,
      afterMaxMs: Number.MAX_SAFE_INTEGER,
      acks: -1,
      minInsyncReplicas: this.topic.minInsyncReplicas(),
      timeoutMs: this.opts.writeTimeoutMs,
    }
  }

  async loadPartition(partition: number, sink: (record: ShareRecord, offset: number) => void): Promise<number> {
    const stats = await this.topic.replayPartition(partition, this.opts.loadChunkBytes ?? LOAD_CHUNK_BYTES, {
      decode: (key, value) => decodeShareRecord(key, value),
      apply: (r, offset) => sink(r, offset),
    })
    return stats.records
  }

  async deleteRecordsBelow(partition: number, offset: number): Promise<void> {
    const p = this.opts.replicas.require(SHARE_GROUP_STATE_TOPIC, partition)
    const upTo = Math.min(offset, p.log.highWatermark)
    if (upTo <= p.log.logStartOffset) return
    await this.opts.replicas.deleteRecords(p, upTo, PRUNE_FILE_DELETE_DELAY_MS)
  }
}
