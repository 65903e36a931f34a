// Transaction administration on the client, in the shapes of Kafka's Admin (describeTransactions,
// listTransactions, abortTransaction) and of kafka-transactions.sh find-hanging: what `tributary
// transactions` is built on, so it works against Apache Kafka too.
//
// - describeTransactions asks each id's coordinator (FindCoordinator key type 1), one request per
//   coordinator; an id whose coordinator moved or is loading is looked up and asked again (until the
//   client's request timeout). Per-id errors (TRANSACTIONAL_ID_NOT_FOUND, …) are returned.
// - listTransactions asks every broker (each lists the ids it coordinates), as Kafka's Admin does;
//   a duration filter needs ListTransactions v1 and an id pattern v2 (UNSUPPORTED_VERSION below).
// - abortTransaction writes an ABORT marker for one producer to one partition: WriteTxnMarkers to
//   the partition's leader with the producer's epoch and the coordinator epoch (Kafka's
//   AbortTransactionHandler) — the operator's way out of a hanging transaction, one the coordinator
//   no longer knows, which pins the partition's last stable offset. findOpenTransaction turns
//   the transaction's start offset into that producer, epoch and coordinator epoch with
//   DescribeProducers on the leader, as kafka-transactions.sh abort --start-offset.
// - findHangingTransactions: the open transactions (DescribeProducers) older than the maximum
//   transaction timeout whose producer id no coordinator lists, or whose coordinator does not list
//   the partition among the transaction's (hangingAmong, the same rule as Kafka's tool).
import { setTimeout as sleep } from 'node:timers/promises'
import type { ErrorName } from '../protocol/errors.js'
import { WriteTxnMarkersRequest, WriteTxnMarkersResponse } from '../protocol/messages/27-write-txn-markers.js'
import { DescribeTransactionsRequest, DescribeTransactionsResponse } from '../protocol/messages/65-describe-transactions.js'
import { ListTransactionsRequest, ListTransactionsResponse } from '../protocol/messages/66-list-transactions.js'
import { CoordinatorType, findCoordinator, retryingCoordinator } from './admin-groups.js'
import { describeProducers, type ProducerDescription } from './admin-producers.js'
import type { KafkaClient } from './client.js'
import { ClientError, errorName, throwIfError } from './errors.js'

export interface TransactionDescription {
  transactionalId: string
  /** The coordinator that answered (-1 when none could be found). */
  coordinator: number
  /** null on success. */
  error: ErrorName | null
  /** Kafka's state names: Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, Dead, PrepareEpochFence. */
  state: string
  timeoutMs: number
  /** -1: no transaction running. */
  startTimeMs: number
  producerId: number
  producerEpoch: number
  /** The partitions in the transaction (and those still waiting for their marker), sorted. */
  partitions: Array<{ topic: string; partition: number }>
}

export interface TransactionListing {
  transactionalId: string
  producerId: number
  state: string
  coordinator: number
}

export interface ListTransactionsOptions {
  states?: string[]
  producerIds?: number[]
  /** Only transactions running longer than this (ListTransactions v1+). */
  durationFilterMs?: number
  /** Only ids matching this pattern (ListTransactions v2+). */
  transactionalIdPattern?: string
}

export interface AbortSpec {
  topic: string
  partition: number
  producerId: number
  producerEpoch: number
  coordinatorEpoch: number
}

export interface OpenTransaction {
  topic: string
  partition: number
  producer: ProducerDescription
}

const MOVED: ReadonlySet<ErrorName> = new Set<ErrorName>(['NOT_COORDINATOR', 'COORDINATOR_NOT_AVAILABLE', 'COORDINATOR_LOAD_IN_PROGRESS'])

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** The state of each transactional id, in the order given. */
export async function describeTransactions(client: KafkaClient, transactionalIds: string[]): Promise<TransactionDescription[]> {
  const ids = [...new Set(transactionalIds)]
  const out = new Map<string, TransactionDescription>()
  const deadline = performance.now() + client.requestTimeoutMs
  let pending = ids
  for (let attempt = 0; pending.length > 0; attempt++) {
    const byCoordinator = new Map<number, string[]>()
    for (const id of pending) {
      try {
        const nodeId = await findCoordinator(client, id, CoordinatorType.Transaction)
        byCoordinator.set(nodeId, [...(byCoordinator.get(nodeId) ?? []), id])
      } catch (err) {
        if (!(err instanceof ClientError)) throw err
        out.set(id, failed(id, -1, err.code))
      }
    }
    const again: string[] = []
    await Promise.all(
      [...byCoordinator].map(async ([nodeId, list]) => {
        const res = await client.request(DescribeTransactionsRequest, DescribeTransactionsResponse, { transactionalIds: list }, { nodeId })
        for (const t of res.transactionStates) {
          const error = t.errorCode === 0 ? null : errorName(t.errorCode)
          if (error !== null && MOVED.has(error)) again.push(t.transactionalId)
          out.set(t.transactionalId, {
            transactionalId: t.transactionalId,
            coordinator: nodeId,
            error,
            state: t.transactionState,
            timeoutMs: t.transactionTimeoutMs,
            startTimeMs: t.transactionStartTimeMs,
            producerId: t.producerId,
            producerEpoch: t.producerEpoch,
            partitions: t.topics
              .flatMap((x) => x.partitions.map((partition) => ({ topic: x.topic, partition })))
              .sort((a, b) => byName(a.topic, b.topic) || a.partition - b.partition),
          })
        }
      }),
    )
    const wait = Math.min(1000, 100 * 2 ** attempt)
    if (again.length === 0 || performance.now() + wait > deadline) break
    await sleep(wait)
    pending = again
  }
  return transactionalIds.map((id) => out.get(id) ?? failed(id, -1, 'COORDINATOR_NOT_AVAILABLE'))
}

function failed(transactionalId: string, coordinator: number, error: ErrorName): TransactionDescription {
  return {
    transactionalId,
    coordinator,
    error,
    state: '',
    timeoutMs: -1,
    startTimeMs: -1,
    producerId: -1,
    producerEpoch: -1,
    partitions: [],
  }
}

/** Every transaction every broker coordinates that passes the filters, sorted by id. */
export async function listTransactions(
  client: KafkaClient,
  opts: ListTransactionsOptions = {},
): Promise<{ transactions: TransactionListing[]; unknownStateFilters: string[] }> {
  await client.metadata([], { refresh: true })
  const nodes = [...client.cluster.brokers.keys()]
  const unknown = new Set<string>()
  const minVersion = opts.transactionalIdPattern !== undefined ? 2 : opts.durationFilterMs !== undefined ? 1 : 0
  const perNode = await Promise.all(
    nodes.map((nodeId) =>
      retryingCoordinator(client, async () => {
        const res = await client.request(
          ListTransactionsRequest,
          ListTransactionsResponse,
          (v) => {
            if (v < minVersion) {
              throw new ClientError(
                'UNSUPPORTED_VERSION',
                `broker ${nodeId} serves ListTransactions up to v${v}: it cannot filter by ${minVersion === 1 ? 'duration' : 'transactional id pattern'}`,
              )
            }
            return {
              stateFilters: opts.states ?? [],
              producerIdFilters: opts.producerIds ?? [],
              durationFilter: opts.durationFilterMs ?? -1,
              transactionalIdPattern: opts.transactionalIdPattern ?? null,
            }
          },
          { nodeId },
        )
        throwIfError(res.errorCode, `ListTransactions on broker ${nodeId}`)
        for (const s of res.unknownStateFilters) unknown.add(s)
        return res.transactionStates.map((t) => ({
          transactionalId: t.transactionalId,
          producerId: t.producerId,
          state: t.transactionState,
          coordinator: nodeId,
        }))
      }),
    ),
  )
  return {
    transactions: perNode.flat().sort((a, b) => byName(a.transactionalId, b.transactionalId)),
    unknownStateFilters: [...unknown],
  }
}

/** The open transaction of `topic`-`partition` that starts at `startOffset` (DescribeProducers on the leader), or null. */
export async function findOpenTransaction(
  client: KafkaClient,
  topic: string,
  partition: number,
  startOffset: number,
): Promise<AbortSpec | null> {
  const [p] = await describeProducers(client, topic, [partition])
  if (!p) throw new ClientError('UNKNOWN_TOPIC_OR_PARTITION', `${topic}-${partition}`)
  if (p.error) throw new ClientError(p.error, `DescribeProducers ${topic}-${partition}${p.message ? `: ${p.message}` : ''}`)
  const s = p.producers.find((x) => x.currentTxnStartOffset === startOffset)
  if (!s) return null
  // A transaction left hanging before its first commit or abort has coordinator epoch -1; 0 is
  // not newer than any coordinator epoch the partition could have seen (as kafka-transactions.sh).
  return { topic, partition, producerId: s.producerId, producerEpoch: s.producerEpoch, coordinatorEpoch: Math.max(0, s.coordinatorEpoch) }
}

/**
 * Writes an ABORT marker for spec's producer to its partition (WriteTxnMarkers to the leader);
 * the partition's last stable offset moves past the transaction. Throws on any error.
 */
export async function abortTransaction(client: KafkaClient, spec: AbortSpec): Promise<void> {
  const coordinatorEpoch = Math.max(0, spec.coordinatorEpoch)
  for (let attempt = 0; ; attempt++) {
    const md = await client.metadata([spec.topic], { refresh: attempt > 0 })
    const info = md.topics.get(spec.topic)
    if (!info) throw new ClientError('UNKNOWN_TOPIC_OR_PARTITION', spec.topic)
    if (info.error) throw new ClientError(info.error, `metadata of ${spec.topic}`)
    const p = info.partitions.find((x) => x.partition === spec.partition)
    if (!p) throw new ClientError('UNKNOWN_TOPIC_OR_PARTITION', `${spec.topic}-${spec.partition}`)
    let code = 0
    if (p.leader < 0) code = -2
    else {
      const res = await client.request(
        WriteTxnMarkersRequest,
        WriteTxnMarkersResponse,
        {
          markers: [
            {
              producerId: spec.producerId,
              producerEpoch: spec.producerEpoch,
              transactionResult: false,
              topics: [{ name: spec.topic, partitionIndexes: [spec.partition] }],
              coordinatorEpoch,
              transactionVersion: 0,
            },
          ],
        },
        { nodeId: p.leader },
      )
      const answer = res.markers.flatMap((m) => m.topics.flatMap((t) => t.partitions)).find((x) => x.partitionIndex === spec.partition)
      if (!answer) throw new ClientError('UNKNOWN_SERVER_ERROR', `WriteTxnMarkers ${spec.topic}-${spec.partition}: no answer`)
      code = answer.errorCode
    }
    if (code === 0) return
    const name = code === -2 ? 'LEADER_NOT_AVAILABLE' : errorName(code)
    const moved = name === 'NOT_LEADER_OR_FOLLOWER' || name === 'LEADER_NOT_AVAILABLE' || name === 'UNKNOWN_TOPIC_OR_PARTITION'
    if (!moved || attempt >= 5) throw new ClientError(name, `abort of producer ${spec.producerId} on ${spec.topic}-${spec.partition}`)
    await sleep(Math.min(1000, 100 * 2 ** attempt))
  }
}

export interface FindHangingOptions {
  /** Only this topic (default: every topic but the internal ones). */
  topic?: string
  /** Only this partition of topic. */
  partition?: number
  /** Only partitions with a replica on this broker (asked of the leader). */
  brokerId?: number
  /** Transactions open longer than this are candidates. Default 15 minutes (kafka-transactions.sh). */
  maxTransactionTimeoutMs?: number
  /** Default Date.now(). */
  nowMs?: number
}

/** The hanging transactions of the partitions searched (see the header). */
export async function findHangingTransactions(client: KafkaClient, opts: FindHangingOptions = {}): Promise<OpenTransaction[]> {
  const now = opts.nowMs ?? Date.now()
  const maxMs = opts.maxTransactionTimeoutMs ?? 15 * 60_000
  const md = await client.metadata(opts.topic === undefined ? null : [opts.topic], { refresh: true })
  const candidates: OpenTransaction[] = []
  for (const [topic, info] of md.topics) {
    if (info.error) throw new ClientError(info.error, `metadata of ${topic}`)
    if (opts.topic === undefined && info.isInternal) continue
    const partitions = info.partitions
      .filter((p) => opts.partition === undefined || p.partition === opts.partition)
      .filter((p) => opts.brokerId === undefined || p.replicas.includes(opts.brokerId))
      .map((p) => p.partition)
    if (opts.partition !== undefined && partitions.length === 0) {
      throw new ClientError('UNKNOWN_TOPIC_OR_PARTITION', `${topic}-${opts.partition}`)
    }
    if (partitions.length === 0) continue
    for (const p of await describeProducers(client, topic, partitions)) {
      if (p.error) throw new ClientError(p.error, `DescribeProducers ${topic}-${p.partition}`)
      for (const producer of p.producers) {
        if (producer.currentTxnStartOffset >= 0 && now - producer.lastTimestamp > maxMs)
          candidates.push({ topic, partition: p.partition, producer })
      }
    }
  }
  if (candidates.length === 0) return []
  const producerIds = [...new Set(candidates.map((c) => c.producer.producerId))]
  const { transactions } = await listTransactions(client, { producerIds })
  const ids = [...new Set(transactions.filter((t) => producerIds.includes(t.producerId)).map((t) => t.transactionalId))]
  const descriptions = ids.length === 0 ? [] : await describeTransactions(client, ids)
  for (const d of descriptions) {
    if (d.error !== null && d.error !== 'TRANSACTIONAL_ID_NOT_FOUND')
      throw new ClientError(d.error, `DescribeTransactions ${d.transactionalId}`)
  }
  return hangingAmong(candidates, transactions, descriptions)
}

/**
 * Kafka's rule: an open transaction hangs when no coordinator lists its producer id, when the
 * transactional id it maps to is not found, or when the coordinator's description of that id does
 * not include the partition (a transaction still ongoing or awaiting its markers includes it).
 */
export function hangingAmong(
  candidates: OpenTransaction[],
  listings: readonly TransactionListing[],
  descriptions: readonly TransactionDescription[],
): OpenTransaction[] {
  const idOf = new Map(listings.map((t) => [t.producerId, t.transactionalId]))
  const described = new Map(descriptions.filter((d) => d.error === null).map((d) => [d.transactionalId, d]))
  return candidates.filter((c) => {
    const id = idOf.get(c.producer.producerId)
    const d = id === undefined ? undefined : described.get(id)
    if (!d) return true
    return !d.partitions.some((p) => p.topic === c.topic && p.partition === c.partition)
  })
}
