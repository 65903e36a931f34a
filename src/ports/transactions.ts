// The TransactionService port: Kafka's transaction coordinator as the request handlers use it
// (InitProducerId with a transactional id, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn,
// DescribeTransactions, ListTransactions, FindCoordinator key type 1), and the partition leaders'
// verification of a transactional Produce (KIP-890). coordinator/txn/ implements it. Error codes
// are Kafka's; 0 = NONE.

/** A transaction marker as WriteTxnMarkers carries it (Kafka's WritableTxnMarker). */
export interface TxnMarker {
  producerId: number
  /** The epoch the marker is written with (transactions v2: the epoch bumped by EndTxn). */
  producerEpoch: number
  /** The transaction coordinator's epoch: the leader epoch of its `__transaction_state` partition. */
  coordinatorEpoch: number
  /** true: COMMIT, false: ABORT. */
  commit: boolean
  /** 0 for transaction protocol v1, 2 for v2 (WriteTxnMarkers v2's TransactionVersion). */
  transactionVersion: number
}

export interface MarkerPartition {
  topic: string
  partition: number
}

export interface MarkerResult extends MarkerPartition {
  errorCode: number
}

/**
 * Writes markers to the partitions this broker leads: what WriteTxnMarkers does on a partition
 * leader, and what the coordinator calls directly for the partitions it leads itself. A marker on a
 * `__consumer_offsets` partition also completes the producer's pending transactional offsets there.
 * Resolves once each marker is acknowledged by the partition's in-sync replicas.
 */
export interface TxnMarkerWriter {
  writeMarkers(marker: TxnMarker, partitions: MarkerPartition[]): Promise<MarkerResult[]>
}

export interface InitProducerIdParams {
  transactionalId: string
  transactionTimeoutMs: number
  /** InitProducerId v3+: the producer's current id and epoch (-1, -1: none). */
  producerId: number
  producerEpoch: number
  apiVersion: number
}

export interface ProducerIdAndEpoch {
  errorCode: number
  producerId: number
  producerEpoch: number
}

export interface TxnPartitions {
  topic: string
  partitions: number[]
}

export interface AddPartitionsParams {
  transactionalId: string
  producerId: number
  producerEpoch: number
  partitions: TxnPartitions[]
  /** AddPartitionsToTxn v4+ from a partition leader: check only, add nothing (transactions v1). */
  verifyOnly: boolean
  apiVersion: number
}

export interface EndTxnParams {
  transactionalId: string
  producerId: number
  producerEpoch: number
  commit: boolean
  apiVersion: number
}

export interface DescribedTransaction {
  errorCode: number
  transactionalId: string
  /** Kafka's names: Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, Dead, PrepareEpochFence. */
  transactionState: string
  transactionTimeoutMs: number
  transactionStartTimeMs: number
  producerId: number
  producerEpoch: number
  topics: TxnPartitions[]
}

export interface ListedTransaction {
  transactionalId: string
  producerId: number
  transactionState: string
}

export interface ListTransactionsFilter {
  /** Empty: every state. */
  states: string[]
  /** Empty: every producer id. */
  producerIds: number[]
  /** ListTransactions v1: only transactions running longer than this (-1: no filter). */
  durationFilterMs: number
  /** ListTransactions v2: a RE2/J-style pattern on the transactional id (null: no filter). */
  transactionalIdPattern: string | null
}

export interface TransactionService {
  /** The `__transaction_state` partition a transactional id lives in. */
  partitionFor(transactionalId: string): number
  /** Creates `__transaction_state` if it is missing (Kafka creates it on the first FindCoordinator of type 1). */
  ensureCoordinatorTopic(): Promise<void>
  initProducerId(params: InitProducerIdParams): Promise<ProducerIdAndEpoch>
  /** One error code per partition, in the order given. */
  addPartitions(params: AddPartitionsParams): Promise<Array<{ topic: string; partition: number; errorCode: number }>>
  addOffsets(params: { transactionalId: string; producerId: number; producerEpoch: number; groupId: string }): Promise<number>
  /** EndTxn v5 (transactions v2) answers the bumped epoch; earlier versions ignore it. */
  endTxn(params: EndTxnParams): Promise<ProducerIdAndEpoch>
  describe(transactionalIds: string[]): DescribedTransaction[]
  list(filter: ListTransactionsFilter): { errorCode: number; unknownStateFilters: string[]; transactions: ListedTransaction[] }
}

/**
 * What a partition leader asks before appending a producer's first transactional batch to a
 * partition (KIP-890 part 1; part 2 adds the partition implicitly): the coordinator of the
 * transactional id, local or on another broker, answers whether the partition is (now) part of the
 * producer's ongoing transaction. Resolves to an error code (0: append): TRANSACTION_ABORTABLE
 * (not in the transaction), INVALID_PRODUCER_EPOCH (a fenced producer: the coordinator's
 * PRODUCER_FENCED, as Kafka's AddPartitionsToTxnManager passes it on), INVALID_PRODUCER_ID_MAPPING,
 * and the retriable CONCURRENT_TRANSACTIONS, NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS,
 * COORDINATOR_NOT_AVAILABLE; each caller maps them for its API's versions.
 */
export interface TxnProduceVerifier {
  verify(params: TxnVerifyParams): Promise<number>
  /**
   * The same for several partitions of one producer at once (one Produce request's), in one call
   * to the coordinator, so they never collide there with each other: one code per partition, in
   * the order given.
   */
  verifyPartitions(params: {
    transactionalId: string
    producerId: number
    producerEpoch: number
    partitions: Array<{ topic: string; partition: number }>
    addPartition: boolean
  }): Promise<number[]>
}

/** What a produce verification asks about: the producer's transaction and one partition. */
export interface TxnVerifyParams {
  transactionalId: string
  producerId: number
  producerEpoch: number
  topic: string
  partition: number
  /** Produce v12+ (transactions v2): add the partition rather than only check it. */
  addPartition: boolean
}
