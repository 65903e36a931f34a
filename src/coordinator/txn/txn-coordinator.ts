// The transaction coordinator (Kafka's TransactionCoordinator and TransactionStateManager), behind
// the TransactionService port (ports/transactions.ts). Pure logic on a Clock: what is durable goes
// through TxnStateLog (`__transaction_state`, txn-log.ts), markers through a MarkerSender
// (marker-router.ts: this broker's partitions directly, the others as WriteTxnMarkers). The state
// machine is txn-metadata.ts, the rules of InitProducerId and EndTxn txn-rules.ts, the filters of
// ListTransactions txn-listing.ts; this file owns the state per partition and the order of writes.
//
// Ownership: a transactional id belongs to one `__transaction_state` partition and is served by
// that partition's leader, only after onElection(partition, leaderEpoch) replayed it (meanwhile
// COORDINATOR_LOAD_IN_PROGRESS; not led here: NOT_COORDINATOR). The leader epoch is the
// coordinator epoch written into the markers. Transactions found in PrepareCommit/PrepareAbort
// while loading are completed: their markers are written again (a marker is idempotent for the
// partition leader) and the completion persisted. onResignation drops the partition's state; a
// marker loop of a dropped transaction stops at its next step — the new coordinator resumes it.
//
// Every transition is persisted before the client is answered (txn-metadata.ts: prepare, write,
// complete). EndTxn is answered once PrepareCommit/PrepareAbort is durable; the markers are then
// written, retried every retryBackoffMs until each partition has its marker (a partition whose
// topic was deleted is dropped by the sender), and only then is CompleteCommit/CompleteAbort
// persisted. Transaction protocol v2 (EndTxn v5, KIP-890 part 2) bumps the epoch at each EndTxn:
// markers carry the bumped epoch, the answer names it, and a retry of a completed EndTxn (the
// epoch one below) is answered NONE with the current id and epoch; v1 keeps the epoch and answers
// a repeated EndTxn of the same outcome NONE.
//
// Timers (on the Clock, cancelled by close()): every transaction.abort.timed.out.transaction.
// cleanup.interval.ms, transactions Ongoing longer than their timeout are aborted with a fenced
// epoch (the producer then gets PRODUCER_FENCED / INVALID_PRODUCER_EPOCH); every
// transaction.remove.expired.transaction.cleanup.interval.ms, ids idle (Empty or Complete*) for
// transactional.id.expiration.ms are tombstoned and forgotten.
import { mustLoadOnElection } from '../internal-topic.js'
import type { ProducerIdService } from '../../ports/broker-services.js'
import type {
  AddPartitionsParams,
  DescribedTransaction,
  EndTxnParams,
  InitProducerIdParams,
  ListedTransaction,
  ListTransactionsFilter,
  MarkerPartition,
  MarkerResult,
  ProducerIdAndEpoch,
  TransactionService,
  TxnMarker,
  TxnVerifyParams,
} from '../../ports/transactions.js'
import { partitionKey } from '../../ports/replicas.js'
import { ErrorCode, type ErrorName, KafkaError } from '../../protocol/errors.js'
import type { Clock, Timer } from '../../util/clock.js'
import type { Logger } from '../../util/logger.js'
import { OFFSETS_TOPIC } from '../group/offsets-topic.js'
import type { TxnStateLog } from './txn-log.js'
import {
  fromLogValue,
  IllegalTxnTransition,
  NO_PRODUCER_EPOCH,
  NO_PRODUCER_ID,
  splitPartitionKey,
  supportsEpochBump,
  TxnMetadata,
  type TxnTransit,
  toLogValue,
} from './txn-metadata.js'
import type { TxnLogValue } from './txn-records.js'
import { describeFailure, describeTransaction, listTransactions } from './txn-listing.js'
import { decideEndV1, decideEndV2, decideInit, type EndResult, endError } from './txn-rules.js'

export interface TxnCoordinatorConfig {
  /** transaction.max.timeout.ms (Kafka: 900000) */
  transactionMaxTimeoutMs: number
  /** transaction.abort.timed.out.transaction.cleanup.interval.ms (Kafka: 10000) */
  abortTimedOutTransactionsIntervalMs: number
  /** transactional.id.expiration.ms (Kafka: 604800000) */
  transactionalIdExpirationMs: number
  /** transaction.remove.expired.transaction.cleanup.interval.ms (Kafka: 3600000) */
  removeExpiredTransactionalIdsIntervalMs: number
  /** Wait between two rounds of markers to partitions not written yet. */
  markerRetryBackoffMs: number
}

export const DEFAULT_TXN_COORDINATOR_CONFIG: Readonly<TxnCoordinatorConfig> = {
  transactionMaxTimeoutMs: 900_000,
  abortTimedOutTransactionsIntervalMs: 10_000,
  transactionalIdExpirationMs: 604_800_000,
  removeExpiredTransactionalIdsIntervalMs: 3_600_000,
  markerRetryBackoffMs: 100,
}

/** Writes one marker to partitions wherever they are led; one result per partition (0: written or dropped). */
export interface MarkerSender {
  send(marker: TxnMarker, partitions: MarkerPartition[]): Promise<MarkerResult[]>
}

export interface TransactionCoordinatorOptions {
  clock: Clock
  logger: Logger
  log: TxnStateLog
  producerIds: ProducerIdService
  markers: MarkerSender
  config: TxnCoordinatorConfig
  /** The finalized transaction.version: the level of the coordinator's own aborts (timeouts). */
  transactionVersion: () => number
  /** AddPartitionsToTxn from a producer: partitions of the cluster (others UNKNOWN_TOPIC_OR_PARTITION). */
  partitionExists: (topic: string, partition: number) => boolean
  /** The `__consumer_offsets` partition of a group (AddOffsetsToTxn). */
  offsetsPartitionFor: (groupId: string) => number
}

interface Ownership {
  /** The newest leader epoch heard of: the coordinator epoch. */
  epoch: number
  state: 'loading' | 'owned' | 'failed' | 'resigned'
  txns: Map<string, TxnMetadata>
}

type Lookup = { error: ErrorName } | { part: Ownership; txn: TxnMetadata | undefined }

const code = (name: ErrorName | null): number => (name === null ? 0 : ErrorCode[name].code)
const initError = (name: ErrorName): ProducerIdAndEpoch => ({ errorCode: code(name), producerId: -1, producerEpoch: -1 })
const errorNameOf = (err: unknown): ErrorName => (err instanceof KafkaError ? err.errorName : 'UNKNOWN_SERVER_ERROR')

/** Marker errors after which the coordinator stops writing markers for the transaction: it is stale. */
const FENCING_MARKER_ERRORS = new Set<number>([
  code('INVALID_PRODUCER_EPOCH'),
  code('TRANSACTION_COORDINATOR_FENCED'),
  code('PRODUCER_FENCED'),
])
/** Marker errors that are bugs (Kafka throws): never retried. */
const FATAL_MARKER_ERRORS = new Set<number>([
  code('CORRUPT_MESSAGE'),
  code('MESSAGE_TOO_LARGE'),
  code('RECORD_LIST_TOO_LARGE'),
  code('INVALID_REQUIRED_ACKS'),
])

export class TransactionCoordinator implements TransactionService {
  private readonly partitions = new Map<number, Ownership>()
  private closed = false
  private readonly timers = new Set<Timer>()
  private readonly sleepers = new Set<() => void>()

  constructor(private readonly opts: TransactionCoordinatorOptions) {
    this.every(opts.config.abortTimedOutTransactionsIntervalMs, () => this.abortTimedOutTransactions())
    this.every(opts.config.removeExpiredTransactionalIdsIntervalMs, () => this.expireTransactionalIds())
  }

  // -------------------------------------------------------------------------------------------
  // Ownership

  partitionFor(transactionalId: string): number {
    return this.opts.log.partitionFor(transactionalId)
  }

  ensureCoordinatorTopic(): Promise<void> {
    return this.opts.log.ensureTopic()
  }

  /** This broker now leads `__transaction_state` partition `partition`: its ids are loaded, then served. Never rejects. */
  onElection(partition: number, leaderEpoch: number): Promise<void> {
    if (this.closed) return Promise.resolve()
    if (!mustLoadOnElection(this.partitions.get(partition), leaderEpoch)) return Promise.resolve()
    const entry: Ownership = { epoch: leaderEpoch, state: 'loading', txns: new Map() }
    this.partitions.set(partition, entry)
    return this.load(partition, entry)
  }

  /** This broker no longer leads the partition: its ids leave memory (an older epoch's resignation is ignored). */
  onResignation(partition: number, leaderEpoch: number): void {
    if (this.closed) return
    const current = this.partitions.get(partition)
    if (current && leaderEpoch < current.epoch) return
    this.partitions.set(partition, { epoch: leaderEpoch, state: 'resigned', txns: new Map() })
    if (current?.state === 'owned' || current?.state === 'loading') {
      this.opts.logger.info('resigned as coordinator of a transaction state partition', { partition, leaderEpoch, ids: current.txns.size })
    }
  }

  private async load(partition: number, entry: Ownership): Promise<void> {
    const loaded = new Map<string, TxnLogValue>()
    const current = () => this.partitions.get(partition) === entry && !this.closed
    try {
      await this.opts.log.loadPartition(partition, (id, v) => {
        if (v === null) loaded.delete(id)
        else loaded.set(id, v)
      })
    } catch (err) {
      if (!current()) return
      entry.state = 'failed'
      this.opts.logger.error('loading a transaction state partition failed; its ids are not served here', { partition, err })
      return
    }
    if (!current()) return
    for (const [id, v] of loaded) {
      const txn = fromLogValue(id, v)
      if (txn) entry.txns.set(id, txn)
      else
        this.opts.logger.warn('skipping a transactional id in an unknown state', {
          partition,
          transactionalId: id,
          state: v.transactionStatus,
        })
    }
    entry.state = 'owned'
    let resumed = 0
    for (const [id, txn] of entry.txns) {
      if (txn.state !== 'PrepareCommit' && txn.state !== 'PrepareAbort') continue
      const complete = txn.prepareComplete(this.opts.clock.now())
      void this.writeMarkersAndComplete(id, entry, txn, txn.state === 'PrepareCommit', complete)
      resumed++
    }
    this.opts.logger.info('loaded a transaction state partition', { partition, leaderEpoch: entry.epoch, ids: entry.txns.size, resumed })
  }

  private lookup(transactionalId: string): Lookup {
    if (this.closed) return { error: 'NOT_COORDINATOR' }
    const part = this.partitions.get(this.opts.log.partitionFor(transactionalId))
    switch (part?.state) {
      case 'owned':
        return { part, txn: part.txns.get(transactionalId) }
      case 'loading':
        return { error: 'COORDINATOR_LOAD_IN_PROGRESS' }
      default:
        return { error: 'NOT_COORDINATOR' }
    }
  }

  /** Still the coordinator of this id, with this very metadata. */
  private owns(part: Ownership, transactionalId: string, txn: TxnMetadata): boolean {
    return (
      !this.closed &&
      part.state === 'owned' &&
      this.partitions.get(this.opts.log.partitionFor(transactionalId)) === part &&
      part.txns.get(transactionalId) === txn
    )
  }

  /**
   * Writes the transit and, once durable and still the coordinator, makes it take effect.
   * Resolves with the error to answer (null: done). A failed write clears the pending state
   * unless keepPending (a completion is retried as it is).
   */
  private async persist(
    transactionalId: string,
    part: Ownership,
    txn: TxnMetadata,
    transit: TxnTransit,
    keepPending = false,
  ): Promise<ErrorName | null> {
    try {
      await this.opts.log.store(transactionalId, transit.state === 'Dead' ? null : toLogValue(transit))
    } catch (err) {
      if (!keepPending && txn.pendingState === transit.state) txn.abortPending()
      return errorNameOf(err)
    }
    if (!this.owns(part, transactionalId, txn)) return 'NOT_COORDINATOR'
    txn.completeTransitionTo(transit)
    return null
  }

  private async newProducerId(): Promise<number> {
    return (await this.opts.producerIds.initProducerId()).producerId
  }

  // -------------------------------------------------------------------------------------------
  // InitProducerId

  async initProducerId(params: InitProducerIdParams): Promise<ProducerIdAndEpoch> {
    const id = params.transactionalId
    if (id === '') return initError('INVALID_REQUEST')
    const timeoutMs = params.transactionTimeoutMs
    if (!(timeoutMs > 0 && timeoutMs <= this.opts.config.transactionMaxTimeoutMs)) return initError('INVALID_TRANSACTION_TIMEOUT')
    let look = this.lookup(id)
    if ('error' in look) return initError(look.error)
    if (!look.txn) {
      let producerId: number
      try {
        producerId = await this.newProducerId()
      } catch (err) {
        return initError(errorNameOf(err))
      }
      look = this.lookup(id)
      if ('error' in look) return initError(look.error)
      if (!look.txn) {
        const txn = new TxnMetadata(id, {
          producerId,
          prevProducerId: NO_PRODUCER_ID,
          nextProducerId: NO_PRODUCER_ID,
          producerEpoch: NO_PRODUCER_EPOCH,
          lastProducerEpoch: NO_PRODUCER_EPOCH,
          txnTimeoutMs: timeoutMs,
          state: 'Empty',
          partitions: new Set(),
          txnStartTimestamp: -1,
          txnLastUpdateTimestamp: this.opts.clock.now(),
          clientTransactionVersion: 0,
        })
        look.part.txns.set(id, txn)
        look = { part: look.part, txn }
      }
    }
    const expected = params.producerId === NO_PRODUCER_ID ? null : { producerId: params.producerId, producerEpoch: params.producerEpoch }
    let rotationId: number | null = null
    for (;;) {
      const { part, txn } = look as { part: Ownership; txn: TxnMetadata }
      let decided: TxnTransit | ErrorName | 'needProducerId'
      try {
        decided = decideInit(txn, timeoutMs, expected, rotationId, this.opts.clock.now())
      } catch (err) {
        if (!(err instanceof IllegalTxnTransition)) throw err
        this.opts.logger.error('illegal transaction state on InitProducerId', { transactionalId: id, err })
        return initError('UNKNOWN_SERVER_ERROR')
      }
      if (decided === 'needProducerId') {
        try {
          rotationId = await this.newProducerId()
        } catch (err) {
          return initError(errorNameOf(err))
        }
        look = this.lookup(id)
        if ('error' in look) return initError(look.error)
        if (!look.txn) return initError('CONCURRENT_TRANSACTIONS')
        continue
      }
      if (typeof decided === 'string') return initError(decided)
      if (decided.state === 'PrepareEpochFence') {
        // The running transaction is aborted first, with the fenced epoch; the producer retries
        // (CONCURRENT_TRANSACTIONS) and then gets the epoch after it.
        const r = await this.endTransaction(id, decided.producerId, decided.producerEpoch, false, false, txn.clientTransactionVersion)
        return initError(r.error ?? 'CONCURRENT_TRANSACTIONS')
      }
      const error = await this.persist(id, part, txn, decided)
      if (error) return initError(error)
      this.opts.logger.info('initialized a transactional id', {
        transactionalId: id,
        producerId: decided.producerId,
        producerEpoch: decided.producerEpoch,
      })
      return { errorCode: 0, producerId: decided.producerId, producerEpoch: decided.producerEpoch }
    }
  }

  // -------------------------------------------------------------------------------------------
  // AddPartitionsToTxn, AddOffsetsToTxn, produce verification

  async addPartitions(params: AddPartitionsParams): Promise<Array<{ topic: string; partition: number; errorCode: number }>> {
    const flat = params.partitions.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition })))
    const all = (name: ErrorName | null) => flat.map((p) => ({ ...p, errorCode: code(name) }))
    if (params.transactionalId === '') return all('INVALID_REQUEST')
    if (params.verifyOnly) {
      return flat.map((p) => ({
        ...p,
        errorCode: this.verifyPartition(params.transactionalId, params.producerId, params.producerEpoch, p.topic, p.partition),
      }))
    }
    if (params.apiVersion <= 3) {
      // A producer's request: unknown partitions fail it whole, as Kafka's KafkaApis answers.
      const unknown = new Set(
        flat.filter((p) => !this.opts.partitionExists(p.topic, p.partition)).map((p) => partitionKey(p.topic, p.partition)),
      )
      if (unknown.size > 0) {
        return flat.map((p) => ({
          ...p,
          errorCode: code(unknown.has(partitionKey(p.topic, p.partition)) ? 'UNKNOWN_TOPIC_OR_PARTITION' : 'OPERATION_NOT_ATTEMPTED'),
        }))
      }
    }
    // v4+ without verifyOnly comes from a partition leader for a transactions v2 producer.
    const tv = params.apiVersion >= 4 ? 2 : 0
    const keys = flat.map((p) => partitionKey(p.topic, p.partition))
    return all(await this.addToTransaction(params.transactionalId, params.producerId, params.producerEpoch, keys, tv))
  }

  async addOffsets(params: { transactionalId: string; producerId: number; producerEpoch: number; groupId: string }): Promise<number> {
    if (params.transactionalId === '') return code('INVALID_REQUEST')
    const key = partitionKey(OFFSETS_TOPIC, this.opts.offsetsPartitionFor(params.groupId))
    return code(await this.addToTransaction(params.transactionalId, params.producerId, params.producerEpoch, [key], 0))
  }

  private async addToTransaction(
    id: string,
    producerId: number,
    producerEpoch: number,
    keys: string[],
    tv: number,
  ): Promise<ErrorName | null> {
    const look = this.lookup(id)
    if ('error' in look) return look.error
    const { part, txn } = look
    if (!txn) return 'INVALID_PRODUCER_ID_MAPPING'
    // First, as Kafka 4 (KAFKA-18660): while the last transaction completes — it may be rotating to
    // the producer id this request names — the request waits, rather than being judged now.
    if (txn.pendingTransitionInProgress) return 'CONCURRENT_TRANSACTIONS'
    if (txn.producerId !== producerId) return 'INVALID_PRODUCER_ID_MAPPING'
    if (txn.producerEpoch !== producerEpoch) return 'PRODUCER_FENCED'
    if (txn.state === 'PrepareCommit' || txn.state === 'PrepareAbort') return 'CONCURRENT_TRANSACTIONS'
    if (txn.state === 'Ongoing' && keys.every((k) => txn.partitions.has(k))) return null
    let transit: TxnTransit
    try {
      transit = txn.prepareAddPartitions(keys, this.opts.clock.now(), tv)
    } catch (err) {
      if (!(err instanceof IllegalTxnTransition)) throw err
      this.opts.logger.error('illegal transaction state on AddPartitionsToTxn', { transactionalId: id, err })
      return 'UNKNOWN_SERVER_ERROR'
    }
    return this.persist(id, part, txn, transit)
  }

  /** AddPartitionsToTxn v4+ verifyOnly (KIP-890 part 1): is the partition in the producer's ongoing transaction? */
  private verifyPartition(id: string, producerId: number, producerEpoch: number, topic: string, partition: number): number {
    const look = this.lookup(id)
    if ('error' in look) return code(look.error)
    const { txn } = look
    if (!txn || txn.producerId !== producerId) return code('INVALID_PRODUCER_ID_MAPPING')
    if (txn.producerEpoch !== producerEpoch) return code('PRODUCER_FENCED')
    if (txn.state === 'PrepareCommit' || txn.state === 'PrepareAbort') return code('CONCURRENT_TRANSACTIONS')
    return txn.hasPartition(topic, partition) ? 0 : code('TRANSACTION_ABORTABLE')
  }

  /**
   * The produce verification of a transactional id this broker coordinates: a check (transactions
   * v1) or, with addPartition (Produce v12+, transactions v2), the partition added. Codes as the
   * coordinator answers AddPartitionsToTxn v5.
   */
  async verifyLocal(params: TxnVerifyParams): Promise<number> {
    const { topic, partition, ...rest } = params
    return (await this.verifyLocalPartitions({ ...rest, partitions: [{ topic, partition }] }))[0]!
  }

  /**
   * verifyLocal for several partitions of one producer at once (one Produce request's): with
   * addPartition they are added together, in one transition, as AddPartitionsToTxn v5 adds the
   * partitions of one transaction entry. One code per partition, in order.
   */
  async verifyLocalPartitions(params: {
    transactionalId: string
    producerId: number
    producerEpoch: number
    partitions: Array<{ topic: string; partition: number }>
    addPartition: boolean
  }): Promise<number[]> {
    const { transactionalId: id, producerId, producerEpoch, partitions } = params
    if (id === '') return partitions.map(() => code('INVALID_REQUEST'))
    if (!params.addPartition) return partitions.map((p) => this.verifyPartition(id, producerId, producerEpoch, p.topic, p.partition))
    const keys = [...new Set(partitions.map((p) => partitionKey(p.topic, p.partition)))]
    const result = code(await this.addToTransaction(id, producerId, producerEpoch, keys, 2))
    return partitions.map(() => result)
  }

  // -------------------------------------------------------------------------------------------
  // EndTxn

  async endTxn(params: EndTxnParams): Promise<ProducerIdAndEpoch> {
    const tv = params.apiVersion >= 5 ? 2 : 0
    const r = await this.endTransaction(params.transactionalId, params.producerId, params.producerEpoch, params.commit, true, tv)
    return { errorCode: code(r.error), producerId: r.producerId, producerEpoch: r.producerEpoch }
  }

  private async endTransaction(
    id: string,
    producerId: number,
    producerEpoch: number,
    commit: boolean,
    fromClient: boolean,
    tv: number,
  ): Promise<EndResult> {
    if (id === '') return endError('INVALID_REQUEST')
    let nextProducerId: number | null = null
    for (;;) {
      const look = this.lookup(id)
      if ('error' in look) return endError(look.error)
      const { part, txn } = look
      if (!txn) return endError('INVALID_PRODUCER_ID_MAPPING')
      let decided: { transit: TxnTransit; isEpochFence: boolean } | EndResult | 'needProducerId'
      try {
        const now = this.opts.clock.now()
        decided = supportsEpochBump(tv)
          ? decideEndV2(txn, producerId, producerEpoch, commit, fromClient, tv, nextProducerId, now)
          : decideEndV1(txn, producerId, producerEpoch, commit, fromClient, now)
      } catch (err) {
        if (!(err instanceof IllegalTxnTransition)) throw err
        this.opts.logger.error('illegal transaction state on EndTxn', { transactionalId: id, err })
        return endError('UNKNOWN_SERVER_ERROR')
      }
      if (decided === 'needProducerId') {
        try {
          nextProducerId = await this.newProducerId()
        } catch (err) {
          return endError(errorNameOf(err))
        }
        continue
      }
      if (!('transit' in decided)) {
        if (decided.error === 'INVALID_TXN_STATE') {
          this.opts.logger.warn('EndTxn does not fit the transaction state', { transactionalId: id, state: txn.state, commit })
        }
        return decided
      }
      const { transit, isEpochFence } = decided
      const error = await this.persist(id, part, txn, transit)
      if (error) {
        // Transactions v1: the fence's bump is not repeated (it was never answered); v2 bumps once
        // per fence anyway (KAFKA-19367's follow-up).
        if (isEpochFence && !supportsEpochBump(tv) && this.owns(part, id, txn)) txn.hasFailedEpochFence = true
        return endError(error)
      }
      const complete = txn.prepareComplete(this.opts.clock.now())
      void this.writeMarkersAndComplete(id, part, txn, commit, complete)
      return { error: null, producerId: complete.producerId, producerEpoch: complete.producerEpoch }
    }
  }

  // -------------------------------------------------------------------------------------------
  // Markers and completion

  private async writeMarkersAndComplete(
    id: string,
    part: Ownership,
    txn: TxnMetadata,
    commit: boolean,
    complete: TxnTransit,
  ): Promise<void> {
    const marker: TxnMarker = {
      producerId: txn.producerId,
      producerEpoch: txn.producerEpoch,
      coordinatorEpoch: part.epoch,
      commit,
      transactionVersion: supportsEpochBump(txn.clientTransactionVersion) ? 2 : 0,
    }
    while (txn.partitions.size > 0) {
      if (!this.owns(part, id, txn)) return
      const targets = [...txn.partitions].map(splitPartitionKey)
      let results: MarkerResult[]
      try {
        results = await this.opts.markers.send(marker, targets)
      } catch (err) {
        this.opts.logger.warn('writing transaction markers failed; retrying', { transactionalId: id, err })
        results = []
      }
      if (!this.owns(part, id, txn)) return
      for (const r of results) {
        if (r.errorCode === 0) {
          txn.partitions.delete(partitionKey(r.topic, r.partition))
        } else if (FENCING_MARKER_ERRORS.has(r.errorCode) || FATAL_MARKER_ERRORS.has(r.errorCode)) {
          // This coordinator is stale for the producer (or the marker cannot be written at all):
          // Kafka stops sending; the transaction stays pending until the coordinator moves.
          this.opts.logger.error('a partition refused a transaction marker; giving up on the transaction here', {
            transactionalId: id,
            topic: r.topic,
            partition: r.partition,
            errorCode: r.errorCode,
          })
          return
        }
      }
      if (txn.partitions.size > 0) await this.sleep(this.opts.config.markerRetryBackoffMs)
    }
    for (;;) {
      if (!this.owns(part, id, txn)) return
      const error = await this.persist(id, part, txn, complete, true)
      if (error === null) {
        this.opts.logger.debug('completed a transaction', {
          transactionalId: id,
          commit,
          producerId: txn.producerId,
          producerEpoch: txn.producerEpoch,
        })
        return
      }
      // NOT_COORDINATOR ends it only once this coordinator has lost the partition (the next one
      // resumes the completion from the log). While it still owns the partition the refusal was
      // a moment's: its leader refuses writes while its cluster registration is not known alive
      // (replication/replica-manager.ts), as after an etcd leader's death, and giving up then left
      // the transaction in PrepareCommit for good — every next one of its producer refused
      // CONCURRENT_TRANSACTIONS (found by the chaos run's etcd-kill nemesis).
      if (error === 'NOT_COORDINATOR' && !this.owns(part, id, txn)) return
      await this.sleep(this.opts.config.markerRetryBackoffMs)
    }
  }

  // -------------------------------------------------------------------------------------------
  // Timeouts and expiration

  /** Aborts, with a fenced epoch, every transaction Ongoing for longer than its timeout. */
  abortTimedOutTransactions(): void {
    const now = this.opts.clock.now()
    for (const part of this.partitions.values()) {
      if (part.state !== 'owned') continue
      for (const [id, txn] of part.txns) {
        if (txn.pendingTransitionInProgress || txn.state !== 'Ongoing') continue
        if (txn.txnStartTimestamp + txn.txnTimeoutMs >= now) continue
        const fence = txn.prepareFenceProducerEpoch()
        this.opts.logger.info('aborting a timed-out transaction', {
          transactionalId: id,
          producerId: fence.producerId,
          timeoutMs: txn.txnTimeoutMs,
        })
        void this.endTransaction(id, fence.producerId, fence.producerEpoch, false, false, this.opts.transactionVersion()).then((r) => {
          if (r.error && r.error !== 'CONCURRENT_TRANSACTIONS' && r.error !== 'PRODUCER_FENCED') {
            this.opts.logger.warn('aborting a timed-out transaction failed', { transactionalId: id, error: r.error })
          }
        })
      }
    }
  }

  /** Tombstones ids idle for transactional.id.expiration.ms (Empty or completed) and forgets them. */
  expireTransactionalIds(): void {
    const limit = this.opts.clock.now() - this.opts.config.transactionalIdExpirationMs
    for (const part of this.partitions.values()) {
      if (part.state !== 'owned') continue
      for (const [id, txn] of part.txns) {
        if (txn.pendingTransitionInProgress) continue
        if (txn.state !== 'Empty' && txn.state !== 'CompleteCommit' && txn.state !== 'CompleteAbort') continue
        if (txn.txnLastUpdateTimestamp > limit) continue
        const dead = txn.prepareDead()
        void this.persist(id, part, txn, dead).then((error) => {
          if (error === null && part.txns.get(id) === txn) {
            part.txns.delete(id)
            this.opts.logger.info('expired a transactional id', { transactionalId: id })
          }
        })
      }
    }
  }

  // -------------------------------------------------------------------------------------------
  // DescribeTransactions, ListTransactions

  describe(transactionalIds: string[]): DescribedTransaction[] {
    return transactionalIds.map((id) => {
      if (this.closed) return describeFailure(id, 'COORDINATOR_NOT_AVAILABLE')
      if (id === '') return describeFailure(id, 'INVALID_REQUEST')
      const look = this.lookup(id)
      if ('error' in look) return describeFailure(id, look.error)
      return describeTransaction(id, look.txn)
    })
  }

  list(filter: ListTransactionsFilter): { errorCode: number; unknownStateFilters: string[]; transactions: ListedTransaction[] } {
    const none = (name: ErrorName) => ({ errorCode: code(name), unknownStateFilters: [], transactions: [] })
    if (this.closed) return none('COORDINATOR_NOT_AVAILABLE')
    const parts = [...this.partitions.values()]
    if (parts.some((p) => p.state === 'loading')) return none('COORDINATOR_LOAD_IN_PROGRESS')
    const owned = parts.filter((p) => p.state === 'owned').map((p) => p.txns)
    return listTransactions(owned, filter, this.opts.clock.now())
  }

  // -------------------------------------------------------------------------------------------
  // Lifecycle

  /** Stops the timers and every marker loop; afterwards every request is answered NOT_COORDINATOR. */
  close(): void {
    if (this.closed) return
    this.closed = true
    for (const t of this.timers) t.cancel()
    this.timers.clear()
    for (const wake of [...this.sleepers]) wake()
    this.partitions.clear()
  }

  private every(intervalMs: number, fn: () => void): void {
    const arm = () => {
      const t = this.opts.clock.setTimeout(() => {
        this.timers.delete(t)
        if (this.closed) return
        try {
          fn()
        } catch (err) {
          this.opts.logger.error('transaction coordinator task failed', { err })
        }
        arm()
      }, intervalMs)
      this.timers.add(t)
    }
    arm()
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        this.sleepers.delete(wake)
        this.timers.delete(t)
        t.cancel()
        resolve()
      }
      const t = this.opts.clock.setTimeout(wake, ms)
      this.timers.add(t)
      this.sleepers.add(wake)
    })
  }
}
