// GroupPersistence on the internal topic `__consumer_offsets` (record format: offsets-records.ts).
//
// The topic is created on first use, as Kafka creates it on the first FindCoordinator (call
// ensureTopic() there; the store calls do too), or adopted if it exists:
// `offsets.topic.num.partitions` partitions, `offsets.topic.replication.factor` replicas, and
// Kafka's topic configs for it: cleanup.policy=compact, segment.bytes=`offsets.topic.segment.bytes`,
// compression.type=producer. An existing topic is used as it is — its own partition count decides
// where a group lives (Kafka reads the count from the topic too), so the mapping never moves.
//
// Writes: each storeGroup / storeOffsets call is one record batch (all offsets of one commit in one
// batch, so a commit is all-or-nothing), stamped with the Clock's time and appended through the
// ReplicaManager to the group's partition, abs(javaHash(groupId)) % partitions, which this broker
// must lead. The call resolves when the append is acknowledged: as Kafka's coordinator appends,
// with `offsets.commit.required.acks` (-1: once the in-sync replicas have it, and only while they
// number at least the topic's min.insync.replicas) within `offsets.commit.timeout.ms`. On a single
// node the ISR is this broker, so that is as soon as the leader's log has it. Appends are issued in
// call order (one issue chain for all partitions), so the log holds them in the order the
// coordinator made them; they complete concurrently. Failures map to the codes Kafka's
// GroupMetadataManager answers with, which clients know how to handle (see mapStoreError): a
// moved leader is NOT_COORDINATOR, too few in-sync replicas or a timeout COORDINATOR_NOT_AVAILABLE.
//
// Reads: loadPartition() replays one partition this broker leads from its log start to its log
// end (as of the start of the load), in offset order, in chunks of loadChunkBytes (whole batches;
// at least one), so memory stays bounded whatever the log size. To the log end, not the high
// watermark, as Kafka's coordinator loads: a replica just elected leader may not have heard yet
// that the old leader's high watermark passed its last records — records the old coordinator
// acknowledged — and its log is the partition's from now on. load() replays every partition led
// here (a single node: all of them). Compressed batches are decoded like any other; a record that
// does not decode is logged and skipped, never fatal.
//
// Transactions (as Kafka's group coordinator): storeTxnOffsets writes a TxnOffsetCommit's offsets
// as one transactional batch of the producer (its id and epoch, base sequence -1) with the
// append origin 'coordinator' — the log tracks it as the producer's open transaction without
// checking sequences. The transaction coordinator then writes the marker (a control batch) to the
// same partition itself (ReplicaService.writeTxnMarker). On load, the offset records of a
// transactional batch go to sink.txnOffset (tombstones, never written so, to sink.offset); a
// control batch that is a transaction marker (protocol/records/control-record.ts: its record's
// key type 0 ABORT, 1 COMMIT) goes to sink.txnMarker for the batch's producer; other control
// records (and batches the cleaner emptied) are skipped. A
// transaction without its marker by the end of the load stays pending: its marker comes later.
// Append errors of a transactional write that are the producer's (INVALID_PRODUCER_EPOCH,
// PRODUCER_FENCED, INVALID_TXN_STATE, …) are answered as they are, as Kafka's coordinator does.
import type { TopicRecord } from '../../ports/metadata-store.js'
import type { ReplicaService } from '../../ports/replicas.js'
import type { TopicService, TopicSpec } from '../../ports/topics.js'
import type { AppendPolicy } from '../../ports/replicas.js'
import { KafkaError, type ErrorName } from '../../protocol/errors.js'
import { buildRecordBatch, type RecordInput } from '../../protocol/records/builder.js'
import { type BatchHeader, TRANSACTIONAL_MASK } from '../../protocol/records/batch.js'
import { type EndTxnMarker, readMarker } from '../../protocol/records/control-record.js'
import { iterateBatches, iterateRecords, type RecordView } from '../../protocol/records/iterator.js'
import type { Clock } from '../../util/clock.js'
import type { Logger } from '../../util/logger.js'
import { decodeRecord, groupMetadataRecord, type OffsetsRecord, OffsetsRecordError, offsetCommitRecord } from './offsets-records.js'
import {
  type GroupPersistence,
  type GroupSnapshot,
  type LoadSink,
  type OffsetEntry,
  partitionForGroup,
  type TxnProducer,
} from './persistence.js'

export const OFFSETS_TOPIC = '__consumer_offsets'
/** Default read size while loading. */
export const DEFAULT_LOAD_CHUNK_BYTES = 1 << 20
/** offsets.commit.required.acks and offsets.commit.timeout.ms: Kafka's defaults. */
export const DEFAULT_COMMIT_REQUIRED_ACKS = -1
export const DEFAULT_COMMIT_TIMEOUT_MS = 5000
/** How many undecodable records of one partition are logged one by one before only counting. */
const MAX_SKIP_WARNINGS = 10

export type { LoadSink } from './persistence.js'

export interface OffsetsTopicOptions {
  topics: Pick<TopicService, 'get' | 'create' | 'effectiveConfig'>
  /** Appends go to, and loads read, partitions this broker leads (require). */
  replicas: Pick<ReplicaService, 'require' | 'append'>
  /** offsets.topic.num.partitions (Kafka: 50), used when the topic is created. */
  numPartitions: number
  /** offsets.topic.replication.factor */
  replicationFactor: number
  /** offsets.topic.segment.bytes (Kafka: 104857600) */
  segmentBytes: number
  clock: Clock
  logger: Logger
  /** Bytes read per step of the load (default 1 MiB). */
  loadChunkBytes?: number
  /** Largest batch one store call may write; default the topic's max.message.bytes. */
  maxBatchBytes?: number
  /** offsets.commit.required.acks (default -1: the in-sync replicas). */
  requiredAcks?: number
  /** offsets.commit.timeout.ms (default 5000). */
  commitTimeoutMs?: number
}

export interface PartitionLoadStats {
  records: number
  skipped: number
}

type StoreKind = 'group' | 'offsets' | 'txnOffsets'

/** A transactional write's refusals that concern the producer, answered to it as they are. */
const PRODUCER_ERRORS: ReadonlySet<ErrorName> = new Set<ErrorName>([
  'INVALID_PRODUCER_EPOCH',
  'PRODUCER_FENCED',
  'INVALID_PRODUCER_ID_MAPPING',
  'INVALID_TXN_STATE',
  'TRANSACTION_ABORTABLE',
  'TRANSACTION_COORDINATOR_FENCED',
])

/**
 * Kafka's GroupMetadataManager mapping of append errors: the coordinator is unavailable or gone
 * (the client rediscovers it and retries), or the write is too large — INVALID_COMMIT_OFFSET_SIZE
 * for a commit, UNKNOWN_SERVER_ERROR for group metadata, as Kafka answers.
 */
export function mapStoreError(kind: StoreKind, err: unknown): KafkaError {
  const message = err instanceof Error ? err.message : String(err)
  if (err instanceof OffsetsRecordError) return new KafkaError('INVALID_REQUEST', message)
  let name: ErrorName = 'UNKNOWN_SERVER_ERROR'
  if (err instanceof KafkaError) {
    if (kind === 'txnOffsets' && PRODUCER_ERRORS.has(err.errorName)) return new KafkaError(err.errorName, message)
    switch (err.errorName) {
      case 'COORDINATOR_NOT_AVAILABLE':
      case 'UNKNOWN_TOPIC_OR_PARTITION':
      case 'NOT_ENOUGH_REPLICAS':
      case 'NOT_ENOUGH_REPLICAS_AFTER_APPEND':
      case 'REQUEST_TIMED_OUT':
        name = 'COORDINATOR_NOT_AVAILABLE'
        break
      case 'NOT_COORDINATOR':
      case 'NOT_LEADER_OR_FOLLOWER':
      case 'KAFKA_STORAGE_ERROR':
        name = 'NOT_COORDINATOR'
        break
      case 'MESSAGE_TOO_LARGE':
      case 'RECORD_LIST_TOO_LARGE':
      case 'INVALID_FETCH_SIZE':
        name = kind === 'group' ? 'UNKNOWN_SERVER_ERROR' : 'INVALID_COMMIT_OFFSET_SIZE'
        break
    }
  }
  const what = kind === 'group' ? 'group metadata' : kind === 'offsets' ? 'offsets' : 'transactional offsets'
  return new KafkaError(name, `storing ${what} failed: ${message}`)
}

export class OffsetsTopicPersistence implements GroupPersistence {
  private readonly opts: OffsetsTopicOptions
  private readonly logger: Logger
  private readonly loadChunkBytes: number
  /** The partition count of the topic once found or created; until then the configured one. */
  private partitions: number
  private maxBatchBytes: number | undefined
  private adopted: TopicRecord | undefined
  private creating: Promise<void> | undefined
  /** Resolves once every append asked for so far has been issued to the log (call order). */
  private issueTail: Promise<unknown> = Promise.resolve()

  constructor(opts: OffsetsTopicOptions) {
    if (!Number.isInteger(opts.numPartitions) || opts.numPartitions < 1) {
      throw new RangeError(`offsets.topic.num.partitions must be ≥ 1, not ${opts.numPartitions}`)
    }
    this.opts = opts
    this.logger = opts.logger
    this.loadChunkBytes = Math.max(1, opts.loadChunkBytes ?? DEFAULT_LOAD_CHUNK_BYTES)
    this.partitions = opts.numPartitions
    this.maxBatchBytes = opts.maxBatchBytes
  }

  partitionFor(groupId: string): number {
    if (!this.adopted) {
      const existing = this.opts.topics.get(OFFSETS_TOPIC)
      if (existing) this.adopt(existing)
    }
    return partitionForGroup(groupId, this.partitions)
  }

  /**
   * The topic exists once this resolves (created now if missing). Rejects with
   * COORDINATOR_NOT_AVAILABLE when it cannot be created (e.g. a replication factor above the
   * broker count), as Kafka's FindCoordinator answers; a later call tries again.
   */
  ensureTopic(): Promise<void> {
    if (this.adopted) return Promise.resolve()
    const existing = this.opts.topics.get(OFFSETS_TOPIC)
    if (existing) {
      this.adopt(existing)
      return Promise.resolve()
    }
    this.creating ??= this.createTopic().finally(() => {
      this.creating = undefined
    })
    return this.creating
  }

  private async createTopic(): Promise<void> {
    const { numPartitions, replicationFactor, segmentBytes } = this.opts
    const spec: TopicSpec = {
      name: OFFSETS_TOPIC,
      numPartitions,
      replicationFactor,
      assignments: [],
      configs: [
        { name: 'cleanup.policy', value: 'compact' },
        { name: 'segment.bytes', value: String(segmentBytes) },
        { name: 'compression.type', value: 'producer' },
      ],
    }
    try {
      this.adopt(await this.opts.topics.create(spec, false))
      this.logger.info('created the offsets topic', { topic: OFFSETS_TOPIC, partitions: numPartitions, replicationFactor })
    } catch (err) {
      // Lost a race with another creation: that topic is the one.
      const now = this.opts.topics.get(OFFSETS_TOPIC)
      if (now) {
        this.adopt(now)
        return
      }
      this.logger.warn('cannot create the offsets topic', { topic: OFFSETS_TOPIC, error: err as Error })
      throw new KafkaError('COORDINATOR_NOT_AVAILABLE', `cannot create ${OFFSETS_TOPIC}: ${(err as Error).message}`)
    }
  }

  private adopt(topic: TopicRecord): void {
    if (this.adopted) return
    this.adopted = topic
    this.partitions = topic.partitions
    this.maxBatchBytes ??= this.opts.topics.effectiveConfig(topic)['max.message.bytes']
    if (topic.partitions !== this.opts.numPartitions) {
      this.logger.warn('the offsets topic exists with another partition count than configured; using its own', {
        partitions: topic.partitions,
        configured: this.opts.numPartitions,
      })
    }
    if (!(topic.configs['cleanup.policy'] ?? '').split(',').includes('compact')) {
      this.logger.warn('the offsets topic is not compacted', { topic: OFFSETS_TOPIC, cleanupPolicy: topic.configs['cleanup.policy'] })
    }
  }

  async storeGroup(groupId: string, snapshot: GroupSnapshot | null): Promise<void> {
    await this.store('group', groupId, () => [groupMetadataRecord(groupId, snapshot)])
  }

  storeOffsets(groupId: string, entries: OffsetEntry[]): Promise<number> {
    if (entries.length === 0) return Promise.resolve(-1)
    return this.store('offsets', groupId, () => entries.map((e) => offsetCommitRecord(groupId, e.topic, e.partition, e.value)))
  }

  storeTxnOffsets(groupId: string, producer: TxnProducer, entries: OffsetEntry[]): Promise<number> {
    if (entries.length === 0) return Promise.resolve(-1)
    const records = () => entries.map((e) => offsetCommitRecord(groupId, e.topic, e.partition, e.value))
    return this.store('txnOffsets', groupId, records, producer)
  }

  /** Resolves with the batch's base offset once the append is acknowledged. */
  private store(kind: StoreKind, groupId: string, records: () => RecordInput[], producer?: TxnProducer): Promise<number> {
    let batch: Buffer
    try {
      batch = buildRecordBatch({
        baseTimestamp: this.opts.clock.now(),
        records: records(),
        ...(producer && {
          producerId: producer.producerId,
          producerEpoch: producer.producerEpoch,
          baseSequence: -1,
          attributes: TRANSACTIONAL_MASK,
        }),
      })
    } catch (err) {
      return Promise.reject(mapStoreError(kind, err))
    }
    // Each link issues its append synchronously (the log queues it), after the links before it.
    const issued = this.issueTail
      .then(() => this.ensureTopic())
      .then(() => {
        const p = this.opts.replicas.require(OFFSETS_TOPIC, partitionForGroup(groupId, this.partitions))
        const policy = this.appendPolicy(producer ? 'coordinator' : 'client')
        return { done: this.opts.replicas.append(p, batch, this.maxBatchBytes ?? Number.MAX_SAFE_INTEGER, policy) }
      })
    this.issueTail = issued.catch(() => {})
    return issued
      .then((i) => i.done)
      .then(
        (r) => r.baseOffset,
        (err) => {
          const mapped = mapStoreError(kind, err)
          this.logger.warn('offsets topic append failed', { group: groupId, kind, error: err as Error, code: mapped.errorName })
          throw mapped
        },
      )
  }

  /** Kafka's appendForGroup: the coordinator's acks and timeout, the topic's min.insync.replicas. */
  private appendPolicy(origin: 'client' | 'coordinator'): AppendPolicy {
    const topic = this.opts.topics.get(OFFSETS_TOPIC) ?? this.adopted
    return {
      origin,
      logAppendTime: false,
      beforeMaxMs: Number.MAX_SAFE_INTEGER,
      afterMaxMs: Number.MAX_SAFE_INTEGER,
      acks: this.opts.requiredAcks ?? DEFAULT_COMMIT_REQUIRED_ACKS,
      minInsyncReplicas: topic ? this.opts.topics.effectiveConfig(topic)['min.insync.replicas'] : 1,
      timeoutMs: this.opts.commitTimeoutMs ?? DEFAULT_COMMIT_TIMEOUT_MS,
    }
  }

  /**
   * Replays every partition of the topic led here (nothing if the topic does not exist yet), in
   * offset order. Partitions led elsewhere are left to their leaders' coordinators.
   */
  async load(sink: LoadSink): Promise<void> {
    const topic = this.opts.topics.get(OFFSETS_TOPIC)
    if (!topic) return
    this.adopt(topic)
    const startMs = this.opts.clock.monotonic()
    let records = 0
    let skipped = 0
    let loaded = 0
    for (let i = 0; i < this.partitions; i++) {
      if (!this.leads(i)) continue
      const stats = await this.loadPartition(i, sink)
      records += stats.records
      skipped += stats.skipped
      loaded++
    }
    this.logger.info('loaded the offsets topic', {
      partitions: loaded,
      records,
      skipped,
      ms: Math.round(this.opts.clock.monotonic() - startMs),
    })
  }

  private leads(partition: number): boolean {
    try {
      this.opts.replicas.require(OFFSETS_TOPIC, partition)
      return true
    } catch (err) {
      // A missing partition is not skipped: the state would be unknown.
      if (err instanceof KafkaError && err.errorName === 'NOT_LEADER_OR_FOLLOWER') return false
      throw err
    }
  }

  /**
   * Replays one partition led here from its log start to its current log end (see the header).
   * Rejects when this broker does not lead it (NOT_LEADER_OR_FOLLOWER) or the log cannot be read
   * (the state would be unknown); undecodable records are skipped.
   */
  async loadPartition(partition: number, sink: LoadSink): Promise<PartitionLoadStats> {
    const p = this.opts.replicas.require(OFFSETS_TOPIC, partition)
    const start = p.log.logStartOffset
    const end = p.log.logEndOffset
    const stats: PartitionLoadStats = { records: 0, skipped: 0 }
    const skip = (offset: number, reason: string) => {
      stats.skipped++
      if (stats.skipped <= MAX_SKIP_WARNINGS) {
        this.logger.warn('skipping an undecodable record of the offsets topic', { partition, offset, reason })
      }
    }
    let offset = start
    while (offset < end) {
      const { records } = await p.log.read(offset, this.loadChunkBytes, end, true)
      let next = offset
      // The iterators are stepped by hand so that only their failures count as bad records: an
      // error thrown by the sink is the caller's and propagates.
      const batches = iterateBatches(records)
      for (;;) {
        let b: IteratorResult<BatchHeader>
        try {
          b = batches.next()
        } catch (err) {
          // Batch headers that do not parse: where the next batch starts is unknown.
          this.logger.error('offsets topic partition is unreadable from here; the rest is not loaded', {
            partition,
            offset: next,
            error: err as Error,
          })
          return this.finishLoad(partition, stats)
        }
        if (b.done) break
        const batch = b.value
        if (batch.baseOffset >= end) break
        const batchEnd = batch.baseOffset + batch.lastOffsetDelta + 1
        if (batchEnd <= offset) continue
        next = batchEnd
        if (batch.isControl) {
          this.replayControl(records, batch, sink, skip)
          continue
        }
        const recs = iterateRecords(records, batch.position)
        for (;;) {
          let r: IteratorResult<RecordView>
          try {
            r = recs.next()
          } catch (err) {
            skip(batch.baseOffset, `batch [${batch.baseOffset}, ${batchEnd}): ${(err as Error).message}`)
            break
          }
          if (r.done) break
          const { offset: at, key, value } = r.value
          if (at < offset || at >= end) continue
          let decoded: OffsetsRecord
          try {
            decoded = decodeRecord(key, value)
          } catch (err) {
            skip(at, (err as Error).message)
            continue
          }
          stats.records++
          if (decoded.type === 'group') sink.group(decoded.group, decoded.snapshot)
          else if (batch.isTransactional && decoded.value) {
            sink.txnOffset(batch.producerId, decoded.group, decoded.topic, decoded.partition, decoded.value, at)
          } else sink.offset(decoded.group, decoded.topic, decoded.partition, decoded.value, at)
        }
      }
      if (next === offset) break // nothing more below the end
      offset = next
    }
    return this.finishLoad(partition, stats)
  }

  /** A control batch: a transaction marker ends its producer's transaction (see the header). */
  private replayControl(records: Buffer, batch: BatchHeader, sink: LoadSink, skip: (offset: number, reason: string) => void): void {
    let marker: EndTxnMarker | null
    try {
      marker = readMarker(records, batch)
    } catch (err) {
      skip(batch.baseOffset, `control batch: ${(err as Error).message}`)
      return
    }
    if (marker) sink.txnMarker(batch.producerId, marker.commit)
  }

  private finishLoad(partition: number, stats: PartitionLoadStats): PartitionLoadStats {
    if (stats.skipped > MAX_SKIP_WARNINGS) {
      this.logger.warn('skipped undecodable records of the offsets topic', { partition, skipped: stats.skipped })
    }
    return stats
  }
}
