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
// as it exists, as `__consumer_offsets` is (both through coordinator/internal-topic.ts):
// transaction.state.log.num.partitions partitions, .replication.factor replicas, and Kafka's topic
// configs for it — cleanup.policy=compact, compression.type=uncompressed,
// unclean.leader.election.enable=false, min.insync.replicas=transaction.state.log.min.isr,
// segment.bytes=transaction.state.log.segment.bytes. An existing topic's partition count decides
// where an id lives: abs(javaHash(transactionalId)) % partitions, as for groups. Appends are issued
// in call order (one chain), so the log holds them in the order the coordinator made them.
import { TRANSACTION_STATE_TOPIC } from '../../cluster/topic-names.js'
import type { AppendPolicy, ReplicaService } from '../../ports/replicas.js'
import type { TopicService } from '../../ports/topics.js'
import { KafkaError, type ErrorName } from '../../protocol/errors.js'
import { buildRecordBatch } from '../../protocol/records/builder.js'
import type { Clock } from '../../util/clock.js'
import type { Logger } from '../../util/logger.js'
import { partitionForGroup } from '../group/persistence.js'
import { InternalTopic, storeErrorName } from '../internal-topic.js'
import { decodeTxnKey, decodeTxnValue, encodeTxnKey, encodeTxnValue, type TxnLogValue } from './txn-records.js'

export { TRANSACTION_STATE_TOPIC }
const LOAD_CHUNK_BYTES = 1 << 20

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

/** Appends refused for their size. */
const TOO_LARGE: ReadonlySet<ErrorName> = new Set<ErrorName>(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE'])

/**
 * Kafka's TransactionStateManager mapping of append errors: the coordinator unavailable or gone
 * (storeErrorName in ../internal-topic.ts), a write too large UNKNOWN_SERVER_ERROR, any other
 * error as it is.
 */
export function mapStoreError(err: unknown): KafkaError {
  const message = err instanceof Error ? err.message : String(err)
  let name: ErrorName = 'UNKNOWN_SERVER_ERROR'
  if (err instanceof KafkaError) name = storeErrorName(err) ?? (TOO_LARGE.has(err.errorName) ? 'UNKNOWN_SERVER_ERROR' : err.errorName)
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
  private readonly topic: InternalTopic

  constructor(private readonly opts: TransactionStateTopicOptions) {
    if (!Number.isInteger(opts.numPartitions) || opts.numPartitions < 1) {
      throw new RangeError(`transaction.state.log.num.partitions must be ≥ 1, not ${opts.numPartitions}`)
    }
    this.topic = new InternalTopic({
      name: TRANSACTION_STATE_TOPIC,
      label: 'transaction state topic',
      topics: opts.topics,
      replicas: opts.replicas,
      numPartitions: opts.numPartitions,
      replicationFactor: opts.replicationFactor,
      configs: [
        { name: 'cleanup.policy', value: 'compact' },
        { name: 'compression.type', value: 'uncompressed' },
        { name: 'unclean.leader.election.enable', value: 'false' },
        { name: 'min.insync.replicas', value: String(opts.minIsr) },
        { name: 'segment.bytes', value: String(opts.segmentBytes) },
      ],
      logger: opts.logger,
    })
  }

  partitionFor(transactionalId: string): number {
    return partitionForTransactionalId(transactionalId, this.topic.partitionCount())
  }

  ensureTopic(): Promise<void> {
    return this.topic.ensureTopic()
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
    return this.topic
      .append(
        batch,
        () => this.partitionFor(transactionalId),
        () => Number.MAX_SAFE_INTEGER,
        () => this.appendPolicy(),
      )
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
    return {
      logAppendTime: false,
      beforeMaxMs: Number.MAX_SAFE_INTEGER,
      afterMaxMs: Number.MAX_SAFE_INTEGER,
      acks: -1,
      minInsyncReplicas: this.topic.minInsyncReplicas(),
      timeoutMs: this.opts.writeTimeoutMs,
    }
  }

  /**
   * Replays the partition from its log start to its log end as of now (see ../internal-topic.ts).
   * Control batches are skipped; an undecodable record is logged and skipped. Resolves with the
   * number of records replayed.
   */
  async loadPartition(partition: number, sink: (transactionalId: string, value: TxnLogValue | null) => void): Promise<number> {
    const stats = await this.topic.replayPartition(partition, this.opts.loadChunkBytes ?? LOAD_CHUNK_BYTES, {
      decode: (key, value) => ({ id: decodeTxnKey(key), value: decodeTxnValue(value) }),
      apply: (r) => sink(r.id, r.value),
    })
    return stats.records
  }
}
