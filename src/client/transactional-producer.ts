// A transactional producer: Kafka's TransactionManager over the topic producers of producer.ts,
// for atomic writes to several partitions (and topics) together with a consumer group's offsets.
//
//   const txn = await TransactionalProducer.create(client, { transactionalId: 'copier-1' })
//   await txn.initTransactions()                    // FindCoordinator (type 1), InitProducerId
//   txn.beginTransaction()
//   await txn.send('out', { key, value })            // or (await txn.producer('out')).send(…)
//   await txn.sendOffsetsToTransaction([{ topic: 'in', partition: 0, offset: 42 }], { groupId: 'copier' })
//   await txn.commitTransaction()                    // or abortTransaction()
//
// Protocol. The coordinator of the transactional id is found with FindCoordinator key type 1;
// InitProducerId with the id gets the producer id and an epoch (fencing every older producer of
// the id, and making the coordinator finish a transaction the previous one left open). Which
// transaction protocol follows depends on the feature level `transaction.version` that the
// coordinator's ApiVersions reports finalized (KIP-890), as in Kafka's producer:
// - v2 (level ≥ 2): Produce v12+ adds a partition to the transaction by itself; TxnOffsetCommit
//   v5 adds the group's offsets partition; EndTxn v5 answers a new epoch (bumped each transaction,
//   so a late request of an earlier transaction is fenced), and sequence numbers restart at 0.
// - v1: a partition is added with AddPartitionsToTxn (v≤3) before the first Produce to it
//   (Produce capped at v11), offsets with AddOffsetsToTxn before TxnOffsetCommit (v≤4); EndTxn
//   keeps the epoch and sequence numbers continue.
// A transaction that never wrote anything (no partition, no offsets) ends without EndTxn.
//
// Errors. Coordinator requests are retried, with a fresh coordinator lookup when it moved, while
// they answer NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS or
// CONCURRENT_TRANSACTIONS (and for a lost connection), until maxBlockMs (Kafka's max.block.ms).
// A record that could not be stored makes the transaction abortable: commitTransaction throws and
// only abortTransaction is allowed (after which, under v1, InitProducerId bumps the epoch so the
// partitions' sequence numbers restart cleanly, KIP-360). PRODUCER_FENCED, INVALID_PRODUCER_EPOCH,
// TRANSACTIONAL_ID_AUTHORIZATION_FAILED, INVALID_TXN_STATE and the like are fatal: every later call
// throws; a new producer (after closing this one) must be made.
import { setTimeout as sleep } from 'node:timers/promises'
import type { ErrorName } from '../protocol/errors.js'
import { InitProducerIdRequest, InitProducerIdResponse } from '../protocol/messages/22-init-producer-id.js'
import { AddPartitionsToTxnRequest, AddPartitionsToTxnResponse } from '../protocol/messages/24-add-partitions-to-txn.js'
import { AddOffsetsToTxnRequest, AddOffsetsToTxnResponse } from '../protocol/messages/25-add-offsets-to-txn.js'
import { EndTxnRequest, EndTxnResponse } from '../protocol/messages/26-end-txn.js'
import { TxnOffsetCommitRequest, TxnOffsetCommitResponse } from '../protocol/messages/28-txn-offset-commit.js'
import { CoordinatorType, findCoordinator } from './admin-groups.js'
import type { KafkaClient } from './client.js'
import type { TopicPartitionOffset } from './consumer.js'
import { ClientError, errorName } from './errors.js'
import { offsetCommitTopics } from './group-member.js'
import { type DeliveryReport, Producer, type ProducerIdentity, type ProducerOptions, type ProducerRecord } from './producer.js'

export interface TransactionalProducerOptions extends Omit<ProducerOptions<ProducerRecord>, 'topic' | 'acks' | 'identity' | 'onDelivery'> {
  /** Kafka's transactional.id. */
  transactionalId: string
  /** Kafka's transaction.timeout.ms: the coordinator aborts a transaction open longer. Default 60000. */
  transactionTimeoutMs?: number
  /** Kafka's max.block.ms: how long coordinator requests are retried. Default 60000. */
  maxBlockMs?: number
  /** Pins the transaction protocol (1 or 2) instead of following the broker's transaction.version. */
  transactionVersion?: 1 | 2
  /** Called once per batch when it is stored or has failed. Must not throw. */
  onDelivery?(topic: string, report: DeliveryReport<ProducerRecord>): void
}

/** The consumer's group as TxnOffsetCommit v3+ carries it (KIP-447); only groupId is required. */
export interface GroupMetadata {
  groupId: string
  /** Default -1: not checked by the coordinator. */
  generationId?: number
  memberId?: string
  groupInstanceId?: string | null
}

/** 'completing': commitTransaction or abortTransaction is running (nothing may be added meanwhile). */
type State = 'uninitialized' | 'ready' | 'in_transaction' | 'completing' | 'fatal'

/** Coordinator answers after which the same request is sent again (after a backoff). */
const RETRY: ReadonlySet<ErrorName> = new Set<ErrorName>([
  'COORDINATOR_LOAD_IN_PROGRESS',
  'CONCURRENT_TRANSACTIONS',
  'UNKNOWN_TOPIC_OR_PARTITION',
  'OPERATION_NOT_ATTEMPTED',
  'NETWORK_EXCEPTION',
  'REQUEST_TIMED_OUT',
])
/** Answers that mean: look the coordinator up again, then retry. */
const MOVED: ReadonlySet<ErrorName> = new Set<ErrorName>(['NOT_COORDINATOR', 'COORDINATOR_NOT_AVAILABLE'])
/** Answers after which this producer can do nothing more. */
const FATAL: ReadonlySet<ErrorName> = new Set<ErrorName>([
  'PRODUCER_FENCED',
  'INVALID_PRODUCER_EPOCH',
  'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
  'INVALID_TXN_STATE',
  'INVALID_PRODUCER_ID_MAPPING',
  'INVALID_TRANSACTION_TIMEOUT',
  'UNSUPPORTED_VERSION',
  'UNSUPPORTED_FOR_MESSAGE_FORMAT',
  'CLUSTER_AUTHORIZATION_FAILED',
])
const BACKOFF_MIN_MS = 20
const BACKOFF_MAX_MS = 1000
/** Kafka's producers cap TxnOffsetCommit at v5: v6 names topics by id. */
const TXN_OFFSET_COMMIT_BY_NAME_MAX_VERSION = 5
/** The last Produce version before transactions v2 (KIP-890: from v12 Produce adds partitions). */
const PRODUCE_TV1_MAX_VERSION = 11
/** AddPartitionsToTxn v4+ is the brokers' batch form; producers send v3 at most. */
const ADD_PARTITIONS_CLIENT_MAX_VERSION = 3
/** Transactions v1 TxnOffsetCommit stays below v5, which would add the group itself. */
const TXN_OFFSET_COMMIT_TV1_MAX_VERSION = 4

const keyOf = (topic: string, partition: number) => `${topic}\u0000${partition}`

export class TransactionalProducer implements ProducerIdentity {
  readonly transactionalId: string
  private readonly client: KafkaClient
  private readonly opts: TransactionalProducerOptions
  private readonly transactionTimeoutMs: number
  private readonly maxBlockMs: number
  private readonly producers = new Map<string, Promise<Producer>>()
  private coordinator = -1
  private pid = -1
  private epoch = -1
  private version: 1 | 2 = 1
  private state: State = 'uninitialized'
  private fatalError: ClientError | null = null
  /** The first error of the current transaction (a record not stored, a failed add). */
  private abortCause: ClientError | null = null
  /** Partitions added to the current transaction (v1), or written in it (v2). */
  private readonly inTxn = new Set<string>()
  private offsetsAdded = false
  /** AddPartitionsToTxn requests go one at a time (v1). */
  private adding: Promise<void> = Promise.resolve()
  private transactionsCommitted = 0

  private constructor(client: KafkaClient, opts: TransactionalProducerOptions) {
    if (opts.transactionalId === '') throw new ClientError('INVALID_REQUEST', 'the transactional id is empty')
    this.client = client
    this.opts = opts
    this.transactionalId = opts.transactionalId
    this.transactionTimeoutMs = opts.transactionTimeoutMs ?? 60_000
    this.maxBlockMs = opts.maxBlockMs ?? 60_000
  }

  /** A producer for opts.transactionalId; call initTransactions() before the first transaction. */
  static async create(client: KafkaClient, opts: TransactionalProducerOptions): Promise<TransactionalProducer> {
    return new TransactionalProducer(client, opts)
  }

  // -- ProducerIdentity (read by the topic producers) ---------------------------------------

  get producerId(): number {
    return this.pid
  }

  get producerEpoch(): number {
    return this.epoch
  }

  get maxProduceVersion(): number {
    return this.version >= 2 ? Number.MAX_SAFE_INTEGER : PRODUCE_TV1_MAX_VERSION
  }

  /** The transaction protocol in use (known after initTransactions). */
  get transactionVersion(): 1 | 2 {
    return this.version
  }

  /** Transactions committed by this producer so far. */
  get committed(): number {
    return this.transactionsCommitted
  }

  /** Whether a transaction is open (begun and neither committed nor aborted). */
  get inTransaction(): boolean {
    return this.state === 'in_transaction' || this.state === 'completing'
  }

  async beforeSend(topic: string, partitions: number[]): Promise<void> {
    if (this.state === 'fatal') throw this.fatalError!
    if (this.state !== 'in_transaction' && this.state !== 'completing') {
      // Under v2 the write itself would open a transaction at the coordinator: refuse it here.
      throw new ClientError('INVALID_TXN_STATE', `records sent outside a transaction of ${this.transactionalId}`)
    }
    const fresh = partitions.filter((p) => !this.inTxn.has(keyOf(topic, p)))
    if (fresh.length === 0) return
    if (this.version >= 2) {
      for (const p of fresh) this.inTxn.add(keyOf(topic, p)) // Produce v12 adds them (KIP-890 part 2)
      return
    }
    const run = this.adding.then(() => this.addPartitions(topic, fresh))
    this.adding = run.catch(() => {})
    await run
  }

  // -- the transaction API ------------------------------------------------------------------

  /**
   * Finds the coordinator and gets a producer id and epoch for the transactional id (fencing any
   * earlier producer with the same id). Called once, before the first transaction.
   */
  async initTransactions(): Promise<void> {
    if (this.state !== 'uninitialized') throw new ClientError('INVALID_TXN_STATE', `initTransactions in state ${this.state}`)
    await this.initProducerId(-1, -1)
    this.state = 'ready'
  }

  beginTransaction(): void {
    this.checkNotFatal()
    if (this.state !== 'ready') throw new ClientError('INVALID_TXN_STATE', `beginTransaction in state ${this.state}`)
    this.state = 'in_transaction'
    this.abortCause = null
    this.inTxn.clear()
    this.offsetsAdded = false
  }

  /**
   * The producer of one topic inside this producer's transactions (created on first use): its
   * send() is synchronous, for loops; records it sends outside a transaction fail with
   * INVALID_TXN_STATE.
   */
  producer(topic: string): Promise<Producer> {
    let p = this.producers.get(topic)
    if (!p) {
      const { transactionalId: _id, transactionTimeoutMs: _t, maxBlockMs: _m, transactionVersion: _v, onDelivery, ...rest } = this.opts
      p = Producer.create(this.client, {
        ...rest,
        topic,
        acks: -1,
        identity: this,
        onDelivery: (report) => {
          // A record refused outside a transaction taints no transaction: its sender is told.
          if (report.error && this.inTransaction) this.markAbortable(report.error)
          onDelivery?.(topic, report)
        },
      })
      p.catch(() => this.producers.delete(topic))
      this.producers.set(topic, p)
    }
    return p
  }

  /** Adds a record to the open transaction; resolves with its partition. */
  async send(topic: string, record: ProducerRecord): Promise<number> {
    this.checkInTransaction('send')
    if (this.abortCause) throw this.abortableError()
    const producer = await this.producer(topic)
    this.checkInTransaction('send')
    if (producer.isFull) await producer.waitForSpace()
    return producer.send(record)
  }

  /**
   * Commits a consumer group's offsets with the transaction (they count only if it commits):
   * TxnOffsetCommit to the group's coordinator, after AddOffsetsToTxn under transactions v1.
   */
  async sendOffsetsToTransaction(offsets: TopicPartitionOffset[], group: GroupMetadata | string): Promise<void> {
    this.checkInTransaction('sendOffsetsToTransaction')
    if (this.abortCause) throw this.abortableError()
    const g = typeof group === 'string' ? { groupId: group } : group
    try {
      if (this.version < 2 && !this.offsetsAdded) {
        await this.onCoordinator('AddOffsetsToTxn', async (nodeId) => {
          const res = await this.client.request(
            AddOffsetsToTxnRequest,
            AddOffsetsToTxnResponse,
            { transactionalId: this.transactionalId, producerId: this.pid, producerEpoch: this.epoch, groupId: g.groupId },
            { nodeId },
          )
          return [res.errorCode]
        })
      }
      this.offsetsAdded = true
      await this.commitOffsets(offsets, g)
    } catch (err) {
      throw this.classify(err)
    }
  }

  /**
   * Sends everything, then commits the transaction. Throws if a record or a step failed: the
   * transaction is then abortable (only abortTransaction is allowed).
   */
  async commitTransaction(): Promise<void> {
    this.checkInTransaction('commitTransaction')
    if (this.abortCause) throw this.abortableError()
    await this.completing(async () => {
      await this.flushAll()
      if (this.abortCause) throw this.abortableError()
      await this.endTransaction(true)
    })
    this.transactionsCommitted++
  }

  /** Waits for what is in flight, then aborts the transaction: nothing of it is ever read committed. */
  async abortTransaction(): Promise<void> {
    this.checkInTransaction('abortTransaction')
    await this.completing(async () => {
      await this.flushAll()
      const failed = this.abortCause !== null
      await this.endTransaction(false)
      // v1 keeps the epoch: a failed batch may have left a partition's sequence numbers out of step
      // with the broker, so start over with a bumped epoch (InitProducerId v3+, KIP-360).
      if (failed && this.version < 2) await this.initProducerId(this.pid, this.epoch)
    })
  }

  /** Runs a commit or an abort; on failure the transaction is open (and abortable) again, unless fatal. */
  private async completing(fn: () => Promise<void>): Promise<void> {
    this.state = 'completing'
    try {
      await fn()
    } catch (err) {
      if (this.state === 'completing') this.state = 'in_transaction'
      throw err
    }
  }

  /** Stops the topic producers (records not reported stay unreported); the client is the caller's. */
  async close(): Promise<void> {
    const all = await Promise.allSettled([...this.producers.values()])
    for (const r of all) if (r.status === 'fulfilled') r.value.close()
    this.producers.clear()
  }

  // -- steps --------------------------------------------------------------------------------

  private async initProducerId(producerId: number, producerEpoch: number): Promise<void> {
    try {
      await this.onCoordinator('InitProducerId', async (nodeId) => {
        const res = await this.client.request(
          InitProducerIdRequest,
          InitProducerIdResponse,
          {
            transactionalId: this.transactionalId,
            transactionTimeoutMs: this.transactionTimeoutMs,
            producerId,
            producerEpoch,
          },
          { nodeId },
        )
        if (res.errorCode === 0) {
          this.pid = res.producerId
          this.epoch = res.producerEpoch
        }
        return [res.errorCode]
      })
    } catch (err) {
      throw this.classify(err, true)
    }
    await this.resetSequences()
  }

  private async addPartitions(topic: string, partitions: number[]): Promise<void> {
    try {
      await this.onCoordinator('AddPartitionsToTxn', async (nodeId) => {
        const res = await this.client.request(
          AddPartitionsToTxnRequest,
          AddPartitionsToTxnResponse,
          {
            v3AndBelowTransactionalId: this.transactionalId,
            v3AndBelowProducerId: this.pid,
            v3AndBelowProducerEpoch: this.epoch,
            v3AndBelowTopics: [{ name: topic, partitions }],
          },
          { nodeId, maxVersion: ADD_PARTITIONS_CLIENT_MAX_VERSION },
        )
        const codes = res.resultsByTopicV3AndBelow.flatMap((t) => t.resultsByPartition.map((p) => p.partitionErrorCode))
        // OPERATION_NOT_ATTEMPTED marks the partitions not tried because another one failed.
        const real = codes.filter((c) => errorName(c) !== 'OPERATION_NOT_ATTEMPTED')
        return real.length > 0 ? real : codes
      })
    } catch (err) {
      throw this.classify(err)
    }
    for (const p of partitions) this.inTxn.add(keyOf(topic, p))
  }

  private async commitOffsets(offsets: TopicPartitionOffset[], g: GroupMetadata): Promise<void> {
    const topics = offsetCommitTopics(offsets)
    const deadline = performance.now() + this.maxBlockMs
    for (let attempt = 0; ; attempt++) {
      let failure: ClientError
      try {
        const nodeId = await findCoordinator(this.client, g.groupId, CoordinatorType.Group)
        const res = await this.client.request(
          TxnOffsetCommitRequest,
          TxnOffsetCommitResponse,
          {
            transactionalId: this.transactionalId,
            groupId: g.groupId,
            producerId: this.pid,
            producerEpoch: this.epoch,
            generationIdOrMemberEpoch: g.generationId ?? -1,
            memberId: g.memberId ?? '',
            groupInstanceId: g.groupInstanceId ?? null,
            topics,
          },
          {
            nodeId,
            maxVersion: this.version >= 2 ? TXN_OFFSET_COMMIT_BY_NAME_MAX_VERSION : TXN_OFFSET_COMMIT_TV1_MAX_VERSION,
          },
        )
        const bad = res.topics.flatMap((t) => t.partitions.map((p) => ({ t: t.name, p }))).find((x) => x.p.errorCode !== 0)
        if (!bad) return
        failure = new ClientError(errorName(bad.p.errorCode), `TxnOffsetCommit ${g.groupId} ${bad.t}-${bad.p.partitionIndex}`)
      } catch (err) {
        if (!(err instanceof ClientError)) throw err
        failure = err
      }
      const retriable = failure.retriable || RETRY.has(failure.code) || MOVED.has(failure.code)
      const wait = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** attempt)
      if (!retriable || performance.now() + wait > deadline) throw failure
      await sleep(wait)
    }
  }

  private async endTransaction(commit: boolean): Promise<void> {
    const started = this.inTxn.size > 0 || this.offsetsAdded
    if (started) {
      try {
        await this.onCoordinator('EndTxn', async (nodeId) => {
          const res = await this.client.request(
            EndTxnRequest,
            EndTxnResponse,
            { transactionalId: this.transactionalId, producerId: this.pid, producerEpoch: this.epoch, committed: commit },
            { nodeId, ...(this.version >= 2 ? {} : { maxVersion: 4 }) },
          )
          if (res.errorCode === 0 && this.version >= 2 && res.producerId >= 0) {
            // KIP-890 part 2: the next transaction runs with the epoch (maybe the id) the coordinator bumped to.
            this.pid = res.producerId
            this.epoch = res.producerEpoch
          }
          return [res.errorCode]
        })
      } catch (err) {
        throw this.classify(err)
      }
      if (this.version >= 2) await this.resetSequences()
    }
    this.state = 'ready'
    this.abortCause = null
    this.inTxn.clear()
    this.offsetsAdded = false
  }

  /**
   * Runs one request on the transaction coordinator (fn answers its error codes, 0 = none),
   * looking the coordinator up again when it moved and retrying the retriable answers, until
   * maxBlockMs. Throws the first other error as a ClientError.
   */
  private async onCoordinator(what: string, fn: (nodeId: number) => Promise<number[]>): Promise<void> {
    const deadline = performance.now() + this.maxBlockMs
    for (let attempt = 0; ; attempt++) {
      let failure: ClientError
      try {
        if (this.coordinator < 0) await this.locateCoordinator()
        const codes = await fn(this.coordinator)
        const bad = codes.find((c) => c !== 0)
        if (bad === undefined) return
        failure = new ClientError(errorName(bad), `${what} ${this.transactionalId}`)
      } catch (err) {
        if (!(err instanceof ClientError)) throw err
        failure = err
      }
      if (MOVED.has(failure.code) || failure.code === 'NETWORK_EXCEPTION' || failure.code === 'REQUEST_TIMED_OUT') this.coordinator = -1
      const retriable = RETRY.has(failure.code) || MOVED.has(failure.code)
      const wait = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** attempt)
      if (!retriable || performance.now() + wait > deadline) throw failure
      await sleep(wait)
    }
  }

  /** FindCoordinator key type 1, and the transaction protocol that coordinator finalized. */
  private async locateCoordinator(): Promise<void> {
    const nodeId = await findCoordinator(this.client, this.transactionalId, CoordinatorType.Transaction)
    const conn = await this.client.connection(nodeId)
    const level = conn.versions?.featureLevel('transaction.version') ?? 0
    this.version = this.opts.transactionVersion ?? (level >= 2 ? 2 : 1)
    this.coordinator = nodeId
  }

  private async flushAll(): Promise<void> {
    const all = await Promise.allSettled([...this.producers.values()])
    await Promise.all(all.map((r) => (r.status === 'fulfilled' ? r.value.flush() : undefined)))
  }

  private async resetSequences(): Promise<void> {
    const all = await Promise.allSettled([...this.producers.values()])
    for (const r of all) if (r.status === 'fulfilled') r.value.resetSequences()
  }

  // -- states and errors --------------------------------------------------------------------

  private markAbortable(err: ClientError): void {
    if (FATAL.has(err.code)) this.markFatal(err)
    this.abortCause ??= err
  }

  private markFatal(err: ClientError): void {
    this.state = 'fatal'
    this.fatalError ??= err
  }

  /** A failure of a step: fatal codes end the producer, others make the transaction abortable. */
  private classify(err: unknown, initializing = false): unknown {
    if (!(err instanceof ClientError)) return err
    if (FATAL.has(err.code) || initializing) this.markFatal(err)
    else this.markAbortable(err)
    return err
  }

  private abortableError(): ClientError {
    const cause = this.abortCause
    return new ClientError(
      cause?.code ?? 'TRANSACTION_ABORTABLE',
      `transaction ${this.transactionalId} cannot commit: ${cause?.detail ?? 'a step failed'}; abort it`,
      { cause },
    )
  }

  private checkNotFatal(): void {
    if (this.state === 'fatal') throw this.fatalError!
  }

  private checkInTransaction(what: string): void {
    this.checkNotFatal()
    if (this.state !== 'in_transaction') {
      throw new ClientError('INVALID_TXN_STATE', `${what} outside a transaction (state ${this.state}); call beginTransaction first`)
    }
  }
}
