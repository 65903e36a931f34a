// GroupPersistence on the internal topic `__consumer_offsets` (record format: offsets-records.ts;
// the topic's adoption, issue chain and load loop: ../internal-topic.ts, shared with
// `__transaction_state`).
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
// does not decode is logged and skipped, never fatal. The KIP-848 consumer groups' records (key
// types 3, 5–8; consumer/records.ts) are written by storeConsumerGroupRecords as one batch per
// change and handed to sink.consumerGroupRecord as bytes, in log order.
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
import type { AppendPolicy, ReplicaService } from '../../ports/replicas.js'
import type { TopicService } from '../../ports/topics.js'
import { KafkaError, type ErrorName } from '../../protocol/errors.js'
import { buildRecordBatch, type RecordInput } from '../../protocol/records/builder.js'
import { type BatchHeader, TRANSACTIONAL_MASK } from '../../protocol/records/batch.js'
import { type EndTxnMarker, readMarker } from '../../protocol/records/control-record.js'
import type { Clock } from '../../util/clock.js'
import type { Logger } from '../../util/logger.js'
import { InternalTopic, storeErrorName } from '../internal-topic.js'
import { CONSUMER_GROUP_RECORD_TYPES, decodeKey as decodeConsumerKey } from './consumer/records.js'
import {
  decodeRecord,
  groupMetadataRecord,
  keyVersionOf,
  type OffsetsRecord,
  OffsetsRecordError,
  offsetCommitRecord,
} from './offsets-records.js'
import { shareRecordGroup } from './share/records.js'
import {
  type GroupPersistence,
  type GroupSnapshot,
  type LoadSink,
  type OffsetEntry,
  partitionForGroup,
  type RawGroupRecord,
  type TxnProducer,
} from './persistence.js'

export const OFFSETS_TOPIC = '__consumer_offsets'
/** Default read size while loading. */
export const DEFAULT_LOAD_CHUNK_BYTES = 1 << 20
/** offsets.commit.required.acks and offsets.commit.timeout.ms: Kafka's defaults. */
export const DEFAULT_COMMIT_REQUIRED_ACKS = -1
export const DEFAULT_COMMIT_TIMEOUT_MS = 5000

export type { LoadSink } from './persistence.js'

/** A KIP-848 consumer-group record (key types 3, 5–8), handed to the sink as bytes. */
interface ConsumerGroupRawRecord {
  type: 'consumer'
  group: string
  record: RawGroupRecord
}

/**
 * The record when its key is one of the consumer protocol's (consumer/records.ts), else null.
 * Copies the bytes, which outlive the read buffer. Throws when such a key does not decode.
 */
function decodeConsumerGroupRecord(key: Buffer | null, value: Buffer | null): ConsumerGroupRawRecord | null {
  if (key === null || !(CONSUMER_GROUP_RECORD_TYPES as readonly number[]).includes(keyVersionOf(key))) return null
  let group: string
  try {
    group = decodeConsumerKey(key).group
  } catch (err) {
    throw new OffsetsRecordError(`consumer group record key: ${(err as Error).message}`)
  }
  return { type: 'consumer', group, record: { key: Buffer.from(key), value: value && Buffer.from(value) } }
}

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

/** A share group record as replayed (decoded later by share/records.ts). */
type ShareRecord = { type: 'share'; key: Buffer; value: Buffer | null }

/** A transactional write's refusals that concern the producer, answered to it as they are. */
const PRODUCER_ERRORS: ReadonlySet<ErrorName> = new Set<ErrorName>([
  'INVALID_PRODUCER_EPOCH',
  'PRODUCER_FENCED',
  'INVALID_PRODUCER_ID_MAPPING',
  'INVALID_TXN_STATE',
  'TRANSACTION_ABORTABLE',
  'TRANSACTION_COORDINATOR_FENCED',
])

/** Appends refused for their size. */
const TOO_LARGE: ReadonlySet<ErrorName> = new Set<ErrorName>(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE', 'INVALID_FETCH_SIZE'])

/**
 * Kafka's GroupMetadataManager mapping of append errors: the coordinator is unavailable or gone
 * (the client rediscovers it and retries; storeErrorName in ../internal-topic.ts), or the write
 * is too large — INVALID_COMMIT_OFFSET_SIZE for a commit, UNKNOWN_SERVER_ERROR for group metadata,
 * as Kafka answers; anything else UNKNOWN_SERVER_ERROR.
 */
export function mapStoreError(kind: StoreKind, err: unknown): KafkaError {
  const message = err instanceof Error ? err.message : String(err)
  if (err instanceof OffsetsRecordError) return new KafkaError('INVALID_REQUEST', message)
  let name: ErrorName = 'UNKNOWN_SERVER_ERROR'
  if (err instanceof KafkaError) {
    if (kind === 'txnOffsets' && PRODUCER_ERRORS.has(err.errorName)) return new KafkaError(err.errorName, message)
    const tooLarge = TOO_LARGE.has(err.errorName) && kind !== 'group'
    name = storeErrorName(err) ?? (tooLarge ? 'INVALID_COMMIT_OFFSET_SIZE' : 'UNKNOWN_SERVER_ERROR')
  }
  const what = kind === 'group' ? 'group metadata' : kind === 'offsets' ? 'offsets' : 'transactional offsets'
  return new KafkaError(name, `storing ${what} failed: ${message}`)
}

export class OffsetsTopicPersistence implements GroupPersistence {
  private readonly opts: OffsetsTopicOptions
  private readonly logger: Logger
  private readonly loadChunkBytes: number
  private readonly topic: InternalTopic
  private maxBatchBytes: number | undefined

  constructor(opts: OffsetsTopicOptions) {
    if (!Number.isInteger(opts.numPartitions) || opts.numPartitions < 1) {
      throw new RangeError(`offsets.topic.num.partitions must be ≥ 1, not ${opts.numPartitions}`)
    }
    this.opts = opts
    this.logger = opts.logger
    this.loadChunkBytes = Math.max(1, opts.loadChunkBytes ?? DEFAULT_LOAD_CHUNK_BYTES)
    this.maxBatchBytes = opts.maxBatchBytes
    this.topic = new InternalTopic({
      name: OFFSETS_TOPIC,
      label: 'offsets topic',
      topics: opts.topics,
      replicas: opts.replicas,
      numPartitions: opts.numPartitions,
      replicationFactor: opts.replicationFactor,
      configs: [
        { name: 'cleanup.policy', value: 'compact' },
        { name: 'segment.bytes', value: String(opts.segmentBytes) },
        { name: 'compression.type', value: 'producer' },
      ],
      logger: opts.logger,
      onAdopt: (topic) => this.adopted(topic),
    })
  }

  partitionFor(groupId: string): number {
    return partitionForGroup(groupId, this.topic.partitionCount())
  }

  /**
   * The topic exists once this resolves (created now if missing). Rejects with
   * COORDINATOR_NOT_AVAILABLE when it cannot be created (e.g. a replication factor above the
   * broker count), as Kafka's FindCoordinator answers; a later call tries again.
   */
  ensureTopic(): Promise<void> {
    return this.topic.ensureTopic()
  }

  /** The topic found or created: its max.message.bytes bounds a batch; it should be compacted. */
  private adopted(topic: TopicRecord): void {
    this.maxBatchBytes ??= this.opts.topics.effectiveConfig(topic)['max.message.bytes']
    if (!(topic.configs['cleanup.policy'] ?? '').split(',').includes('compact')) {
      this.logger.warn('the offsets topic is not compacted', { topic: OFFSETS_TOPIC, cleanupPolicy: topic.configs['cleanup.policy'] })
    }
  }

  /** A consumer-protocol group's records, one batch, refused as group metadata is (mapStoreError). */
  async storeConsumerGroupRecords(groupId: string, records: readonly RawGroupRecord[]): Promise<void> {
    if (records.length === 0) return
    await this.store('group', groupId, () => records.map((r) => ({ key: r.key, value: r.value })))
  }

  async storeGroup(groupId: string, snapshot: GroupSnapshot | null): Promise<void> {
    await this.store('group', groupId, () => [groupMetadataRecord(groupId, snapshot)])
  }

  /** Share group records (share/records.ts), one batch, as group metadata is written. */
  async storeShareGroupRecords(groupId: string, records: ReadonlyArray<{ key: Buffer; value: Buffer | null }>): Promise<void> {
    if (records.length === 0) return
    await this.store('group', groupId, () => records.map((r) => ({ key: r.key, value: r.value })))
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
    return this.topic
      .append(
        batch,
        () => this.partitionFor(groupId),
        () => this.maxBatchBytes ?? Number.MAX_SAFE_INTEGER,
        () => this.appendPolicy(producer ? 'coordinator' : 'client'),
      )
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
    return {
      origin,
      logAppendTime: false,
      beforeMaxMs: Number.MAX_SAFE_INTEGER,
      afterMaxMs: Number.MAX_SAFE_INTEGER,
      acks: this.opts.requiredAcks ?? DEFAULT_COMMIT_REQUIRED_ACKS,
      minInsyncReplicas: this.topic.minInsyncReplicas(),
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
    const partitions = this.topic.partitionCount()
    const startMs = this.opts.clock.monotonic()
    let records = 0
    let skipped = 0
    let loaded = 0
    for (let i = 0; i < partitions; i++) {
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
  loadPartition(partition: number, sink: LoadSink): Promise<PartitionLoadStats> {
    return this.topic.replayPartition(partition, this.loadChunkBytes, {
      decode: (key, value): OffsetsRecord | ConsumerGroupRawRecord | ShareRecord => {
        // Share group records (key types 10–15) go to their own replay (share/records.ts).
        if (key !== null && shareRecordGroup(key) !== null) return { type: 'share', key, value }
        return decodeConsumerGroupRecord(key, value) ?? decodeRecord(key, value)
      },
      apply: (decoded, at, batch) => {
        if (decoded.type === 'share') sink.shareGroupRecord?.(decoded.key, decoded.value)
        else if (decoded.type === 'consumer') sink.consumerGroupRecord?.(decoded.group, decoded.record)
        else if (decoded.type === 'group') sink.group(decoded.group, decoded.snapshot)
        else if (batch.isTransactional && decoded.value) {
          sink.txnOffset(batch.producerId, decoded.group, decoded.topic, decoded.partition, decoded.value, at)
        } else sink.offset(decoded.group, decoded.topic, decoded.partition, decoded.value, at)
      },
      control: (records, batch, skip) => this.replayControl(records, batch, sink, skip),
    })
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
}
