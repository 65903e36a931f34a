// Where the transaction coordinator keeps its state: the port (TxnStateLog) and its broker
// implementation on the internal topic `__transaction_state` (record format: txn-records.ts).
//
// Contract: store() resolves only once the record is durable — appended with acks=-1, so once the
// in-sync replicas have it, and only while they number at least the topic's min.insync.replicas,
// within the write timeout — and rejects with the code Kafka's TransactionStateManager answers
// the client with (mapStoreError): a moved leader NOT_COORDINATOR, too few in-sync replicas or a
// timeout COORDINATOR_NOT_AVAILABLE. loadPartition() replays one partition in write order; the last
// record of an id wins and a tombstone (null) removes it.
//
// The topic is created on first use (FindCoordinator of key type 1 calls ensureTopic()) or adopted
// as it exists, as `__consumer_offsets` is (coordinator/group/offsets-topic.ts):
// transaction.state.log.num.partitions partitions, .replication.factor replicas, and Kafka's topic
// configs for it — cleanup.policy=compact, compression.type=uncompressed,
// unclean.leader.election.enable=false, min.insync.replicas=transaction.state.log.min.isr,
// segment.bytes=transaction.state.log.segment.bytes. An existing topic's partition count decides
// where an id lives: abs(javaHash(transactionalId)) % partitions, as for groups. Appends are issued
// in call order (one chain), so the log holds them in the order the coordinator made them.
import { TRANSACTION_STATE_TOPIC } from '../../cluster/topic-names.js'
import type { TopicRecord } from '../../ports/metadata-store.js'
import type { AppendPolicy, ReplicaService } from '../../ports/replicas.js'
import type { TopicService, TopicSpec } from '../../ports/topics.js'
import { KafkaError, type ErrorName } from '../../protocol/errors.js'
import type { BatchHeader } from '../../protocol/records/batch.js'
import { buildRecordBatch } from '../../protocol/records/builder.js'
import { iterateBatches, iterateRecords, type RecordView } from '../../protocol/records/iterator.js'
import type { Clock } from '../../util/clock.js'
import type { Logger } from '../../util/logger.js'
import { partitionForGroup } from '../group/persistence.js'
import { decodeTxnKey, decodeTxnValue, encodeTxnKey, encodeTxnValue, type TxnLogValue } from './txn-records.js'

export { TRANSACTION_STATE_TOPIC }
const LOAD_CHUNK_BYTES = 1 << 20
const MAX_SKIP_WARNINGS = 10

export interface TxnStateLog {
  /** The `__transaction_state` partition that holds the id. */
  partitionFor(transactionalId: string): number
  /** The topic exists once this resolves; COORDINATOR_NOT_AVAILABLE when it cannot be created. */
  ensureTopic(): Promise<void>
  /** Durably records the id's state (null: a tombstone). */
  store(transactionalId: string, value: TxnLogValue | null): Promise<void>
  /** Replays one partition this broker leads, in write order. */
  loadPartition(partition: number, sink: (transactionalId: string, value: TxnLogValue | null) => void): Promise<unknown>
}

/** abs(javaHash(id)) % partitions: the placement Kafka uses for transactional ids (and groups). */
export function partitionForTransactionalId(transactionalId: string, partitions: number): number {
  return partitionForGroup(transactionalId, partitions)
}

/** Kafka's TransactionStateManager mapping of append errors. */
export function mapStoreError(err: unknown): KafkaError {
  const message = err instanceof Error ? err.message : String(err)
  let name: ErrorName = 'UNKNOWN_SERVER_ERROR'
  if (err instanceof KafkaError) {
    switch (err.errorName) {
      case 'UNKNOWN_TOPIC_OR_PARTITION':
      case 'NOT_ENOUGH_REPLICAS':
      case 'NOT_ENOUGH_REPLICAS_AFTER_APPEND':
      case 'REQUEST_TIMED_OUT':
      case 'COORDINATOR_NOT_AVAILABLE':
        name = 'COORDINATOR_NOT_AVAILABLE'
        break
      case 'NOT_LEADER_OR_FOLLOWER':
      case 'KAFKA_STORAGE_ERROR':
      case 'NOT_COORDINATOR':
        name = 'NOT_COORDINATOR'
        break
      case 'MESSAGE_TOO_LARGE':
      case 'RECORD_LIST_TOO_LARGE':
        name = 'UNKNOWN_SERVER_ERROR'
        break
      default:
        name = err.errorName
    }
  }
  return new KafkaError(name, `storing transaction state failed: ${message}`)
}

export interface TransactionStateTopicOptions {
  topics: Pick<TopicService, 'get' | 'create' | 'effectiveConfig'>
  replicas: Pick<ReplicaService, 'require' | 'append'>
  /** transaction.state.log.num.partitions */
  numPartitions: number
  /** transaction.state.log.replication.factor */
  replicationFactor: number
  /** transaction.state.log.min.isr */
  minIsr: number
  /** transaction.state.log.segment.bytes */
  segmentBytes: number
  /** How long a write waits for the in-sync replicas (Kafka: request.timeout.ms). */
  writeTimeoutMs: number
  clock: Clock
  logger: Logger
  loadChunkBytes?: number
}

export class TransactionStateTopic implements TxnStateLog {
  private partitions: number
  private adopted: TopicRecord | undefined
  private creating: Promise<void> | undefined
  private issueTail: Promise<unknown> = Promise.resolve()

  constructor(private readonly opts: TransactionStateTopicOptions) {
    if (!Number.isInteger(opts.numPartitions) || opts.numPartitions < 1) {
      throw new RangeError(`transaction.state.log.num.partitions must be ≥ 1, not ${opts.numPartitions}`)
    }
    this.partitions = opts.numPartitions
  }

  partitionFor(transactionalId: string): number {
    if (!this.adopted) {
      const existing = this.opts.topics.get(TRANSACTION_STATE_TOPIC)
      if (existing) this.adopt(existing)
    }
    return partitionForTransactionalId(transactionalId, this.partitions)
  }

  ensureTopic(): Promise<void> {
    if (this.adopted) return Promise.resolve()
    const existing = this.opts.topics.get(TRANSACTION_STATE_TOPIC)
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
    const { numPartitions, replicationFactor, segmentBytes, minIsr } = this.opts
    const spec: TopicSpec = {
      name: TRANSACTION_STATE_TOPIC,
      numPartitions,
      replicationFactor,
      assignments: [],
      configs: [
        { name: 'cleanup.policy', value: 'compact' },
        { name: 'compression.type', value: 'uncompressed' },
        { name: 'unclean.leader.election.enable', value: 'false' },
        { name: 'min.insync.replicas', value: String(minIsr) },
        { name: 'segment.bytes', value: String(segmentBytes) },
      ],
    }
    try {
      this.adopt(await this.opts.topics.create(spec, false))
      this.opts.logger.info('created the transaction state topic', {
        topic: TRANSACTION_STATE_TOPIC,
        partitions: numPartitions,
        replicationFactor,
      })
    } catch (err) {
      const now = this.opts.topics.get(TRANSACTION_STATE_TOPIC)
      if (now) {
        this.adopt(now)
        return
      }
      this.opts.logger.warn('cannot create the transaction state topic', { error: err as Error })
      throw new KafkaError('COORDINATOR_NOT_AVAILABLE', `cannot create ${TRANSACTION_STATE_TOPIC}: ${(err as Error).message}`)
    }
  }

  private adopt(topic: TopicRecord): void {
    if (this.adopted) return
    this.adopted = topic
    this.partitions = topic.partitions
    if (topic.partitions !== this.opts.numPartitions) {
      this.opts.logger.warn('the transaction state topic exists with another partition count than configured; using its own', {
        partitions: topic.partitions,
        configured: this.opts.numPartitions,
      })
    }
  }

  store(transactionalId: string, value: TxnLogValue | null): Promise<void> {
    let batch: Buffer
    try {
      batch = buildRecordBatch({
        baseTimestamp: this.opts.clock.now(),
        records: [{ key: encodeTxnKey(transactionalId), value: value === null ? null : encodeTxnValue(value) }],
      })
    } catch (err) {
      return Promise.reject(mapStoreError(err))
    }
    const issued = this.issueTail
      .then(() => this.ensureTopic())
      .then(() => {
        const p = this.opts.replicas.require(TRANSACTION_STATE_TOPIC, this.partitionFor(transactionalId))
        return { done: this.opts.replicas.append(p, batch, Number.MAX_SAFE_INTEGER, this.appendPolicy()) }
      })
    this.issueTail = issued.catch(() => {})
    return issued
      .then((i) => i.done)
      .then(
        () => undefined,
        (err) => {
          const mapped = mapStoreError(err)
          this.opts.logger.warn('transaction state append failed', { transactionalId, error: err as Error, code: mapped.errorName })
          throw mapped
        },
      )
  }

  private appendPolicy(): AppendPolicy {
    const topic = this.opts.topics.get(TRANSACTION_STATE_TOPIC) ?? this.adopted
    return {
      logAppendTime: false,
      beforeMaxMs: Number.MAX_SAFE_INTEGER,
      afterMaxMs: Number.MAX_SAFE_INTEGER,
      acks: -1,
      minInsyncReplicas: topic ? this.opts.topics.effectiveConfig(topic)['min.insync.replicas'] : 1,
      timeoutMs: this.opts.writeTimeoutMs,
    }
  }

  /**
   * Replays the partition from its log start to its log end as of now (not the high watermark:
   * a new leader's log is the partition's from now on, as the group coordinator loads). Control
   * batches are skipped; an undecodable record is logged and skipped.
   */
  async loadPartition(partition: number, sink: (transactionalId: string, value: TxnLogValue | null) => void): Promise<number> {
    const p = this.opts.replicas.require(TRANSACTION_STATE_TOPIC, partition)
    const end = p.log.logEndOffset
    const chunk = Math.max(1, this.opts.loadChunkBytes ?? LOAD_CHUNK_BYTES)
    let offset = p.log.logStartOffset
    let loaded = 0
    let skipped = 0
    while (offset < end) {
      const { records } = await p.log.read(offset, chunk, end, true)
      let next = offset
      const batches = iterateBatches(records)
      for (;;) {
        let b: IteratorResult<BatchHeader>
        try {
          b = batches.next()
        } catch (err) {
          this.opts.logger.error('transaction state partition is unreadable from here; the rest is not loaded', {
            partition,
            offset: next,
            error: err as Error,
          })
          return loaded
        }
        if (b.done) break
        const batch = b.value
        if (batch.baseOffset >= end) break
        const batchEnd = batch.baseOffset + batch.lastOffsetDelta + 1
        if (batchEnd <= offset) continue
        next = batchEnd
        if (batch.isControl) continue
        const recs = iterateRecords(records, batch.position)
        for (;;) {
          let r: IteratorResult<RecordView>
          try {
            r = recs.next()
          } catch (err) {
            skipped++
            if (skipped <= MAX_SKIP_WARNINGS)
              this.opts.logger.warn('skipping an undecodable batch of the transaction state topic', {
                partition,
                offset: batch.baseOffset,
                error: err as Error,
              })
            break
          }
          if (r.done) break
          const { offset: at, key, value } = r.value
          if (at < offset || at >= end) continue
          let id: string
          let v: TxnLogValue | null
          try {
            id = decodeTxnKey(key)
            v = decodeTxnValue(value)
          } catch (err) {
            skipped++
            if (skipped <= MAX_SKIP_WARNINGS)
              this.opts.logger.warn('skipping an undecodable record of the transaction state topic', {
                partition,
                offset: at,
                error: err as Error,
              })
            continue
          }
          loaded++
          sink(id, v)
        }
      }
      if (next === offset) break
      offset = next
    }
    return loaded
  }
}
