// Produce, accepted v3–13 (record batch v2 only), advertised from v0 because librdkafka breaks on a
// higher advertised minimum (KAFKA-18659).
// v12 is v11's layout: it tells the broker that a transactional producer on transaction protocol v2
// (KIP-890 part 2) adds partitions implicitly. v13 names topics by id (KIP-516): the id is looked
// up in the topic records (no auto-creation by id) and an unknown one is UNKNOWN_TOPIC_ID, as
// Kafka's KafkaApis answers it.
// acks: 0 (no response; any error closes the connection, the producer's only way to learn),
// 1 (answered once the leader has written the records) and -1 (answered once the high watermark
// passes them, i.e. every in-sync replica has them; NOT_ENOUGH_REPLICAS before the append when
// the ISR is smaller than the topic's min.insync.replicas, NOT_ENOUGH_REPLICAS_AFTER_APPEND when it
// shrank below it meanwhile, REQUEST_TIMED_OUT after the request's timeout). On one broker the ISR
// is this broker, so both complete once the append is written. NOT_LEADER_OR_FOLLOWER when another
// broker leads the partition.
// Errors: INVALID_REQUIRED_ACKS, UNKNOWN_TOPIC_OR_PARTITION, INVALID_TOPIC_EXCEPTION (internal or
// illegal topic), CORRUPT_MESSAGE, INVALID_RECORD, MESSAGE_TOO_LARGE (the topic's max.message.bytes),
// INVALID_TIMESTAMP (message.timestamp.before/after.max.ms, KIP-937), KAFKA_STORAGE_ERROR,
// UNSUPPORTED_COMPRESSION_TYPE (codec ids 5-7; zstd before v7, as Kafka's ProduceRequest rule);
// INVALID_RECORD also for a record without a key on a compacted topic (cleanup.policy compact).
// Record errors (KIP-467, v8+): when the batch is refused for some of its records (no key on a
// compacted topic, a timestamp out of bounds) the answer lists each as record_errors (its index in
// the batch and why) with Kafka's summary as error_message (a RecordValidationError, record-errors.ts).
// A compressed batch is decompressed (bounded: a bomb gets INVALID_RECORD, undecodable data
// CORRUPT_MESSAGE) and its records checked; the topic's compression.type decides whether it is
// stored as sent or recompressed (replica-manager.ts).
// The topic's current effective config is read at each request, so AlterConfigs changes apply at
// once; on a LogAppendTime topic the answer carries the broker time stamped on the batches.
//
// Transactions (KIP-890 part 1): before a transactional batch (with the request's transactional
// id) is appended to a partition where its producer has no transaction of its epoch open yet, the
// transactional id's coordinator is asked (ctx.broker.txnVerifier) whether the partition is in the
// producer's ongoing transaction — from v12 it adds it; a v12 batch of a newer epoch than the
// transaction open there (the previous transaction's marker not written yet) is answered
// NOT_ENOUGH_REPLICAS, to be retried. The partition's log records the verification first
// (ReplicaService.startTxnVerification), so that while it is pending or after it failed a later
// batch of the producer is OUT_OF_ORDER_SEQUENCE_NUMBER rather than written ahead of it
// (storage/producer-state.ts). The partitions of one request are verified in one call per
// producer, so they never wait on each other at the coordinator. The coordinator's refusal is the
// partition's answer, as Kafka's ReplicaManager maps it: INVALID_PRODUCER_EPOCH (a fenced producer), INVALID_TXN_STATE
// (not in the transaction; TRANSACTION_ABORTABLE from v11), INVALID_PRODUCER_ID_MAPPING, and
// NOT_ENOUGH_REPLICAS for what the producer should simply retry (the coordinator moving, loading or
// unreachable, or the previous transaction still completing: CONCURRENT_TRANSACTIONS), a code
// every producer retries without a metadata refresh.
//
// Authorization (Kafka's KafkaApis): WRITE on each topic (else TOPIC_AUTHORIZATION_FAILED for its
// partitions, before the topic is looked up, so a denied name does not tell whether it exists);
// auto-creation needs CREATE on the cluster or the topic; a request carrying a transactional batch
// needs WRITE on its transactional id, decided by the batches' attributes, not by the header (a
// transactional batch without a transactional id is refused: CVE-2018-17196) — else every
// partition answers TRANSACTIONAL_ID_AUTHORIZATION_FAILED. An idempotent batch needs nothing more:
// its producer id came from InitProducerId, which checked IDEMPOTENT_WRITE (or WRITE, KIP-679).
//
// Ordering: a producer pipelines requests on one connection and relies on them being appended in
// the order sent. Requests of one connection therefore issue their appends in arrival order, even
// when an earlier one first waits for a topic to be auto-created or for its transaction's
// verification.
import { INTERNAL_TOPICS } from '../cluster/topic-names.js'
import type { TopicRecord } from '../ports/metadata-store.js'
import { CloseConnection, type ConnectionInfo } from '../network/types.js'
import { ErrorCode, type ErrorName, errorByCode, KafkaError, RecordValidationError, toErrorCode } from '../protocol/errors.js'
import { ProduceRequest, ProduceResponse, type ProduceRequestData } from '../protocol/messages/00-produce.js'
import { BATCH_HEADER_SIZE, readBatchHeader } from '../protocol/records/batch.js'
import type { AppendPolicy } from '../ports/replicas.js'
import { canCreateTopic, canTopic, canTransactionalId, isTransactionalBatch, Op, topicDenied, transactionalIdDenied } from './authorize.js'
import { defineHandler, type RequestContext } from './define.js'

interface PartitionResult {
  index: number
  errorCode: number
  baseOffset: number
  logAppendTimeMs: number
  logStartOffset: number
  recordErrors: Array<{ batchIndex: number; batchIndexErrorMessage: string | null }>
  errorMessage: string | null
}

interface TopicResult {
  name: string
  topicId: string
  partitionResponses: PartitionResult[]
}

const failed = (index: number, err: unknown): PartitionResult => ({
  index,
  errorCode: toErrorCode(err),
  baseOffset: -1,
  logAppendTimeMs: -1,
  logStartOffset: -1,
  recordErrors:
    err instanceof RecordValidationError
      ? err.recordErrors.map((e) => ({ batchIndex: e.batchIndex, batchIndexErrorMessage: e.message }))
      : [],
  errorMessage: err instanceof KafkaError && err.message !== err.errorName ? err.message : null,
})

/** Per connection: settles once the previous Produce request has issued all of its appends. */
const appendsIssued = new WeakMap<ConnectionInfo, Promise<void>>()

/** The topic by name (auto-created if allowed) or, from v13, by id; a KafkaError otherwise. */
async function resolveTopic(ctx: RequestContext, t: { name: string; topicId: string }): Promise<TopicRecord> {
  const { topics } = ctx.broker
  let topic: TopicRecord | undefined
  if (ctx.apiVersion >= 13) {
    topic = topics.getById(t.topicId)
    if (!topic) throw new KafkaError('UNKNOWN_TOPIC_ID', `no topic has the id ${t.topicId}`)
  }
  const name = topic?.name ?? t.name
  if (!canTopic(ctx, Op.WRITE, name)) throw topicDenied()
  if (INTERNAL_TOPICS.has(name)) throw new KafkaError('INVALID_TOPIC_EXCEPTION', `cannot produce to internal topic ${name}`)
  topic ??= topics.get(name) ?? (canCreateTopic(ctx, name) ? await topics.getOrAutoCreate(name, true) : undefined)
  if (!topic) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION')
  return topic
}

/** Coordinator answers a producer should retry (Kafka's ReplicaManager answers them NOT_ENOUGH_REPLICAS). */
const RETRY_LATER = new Set<number>(
  (
    [
      'CONCURRENT_TRANSACTIONS',
      'NETWORK_EXCEPTION',
      'COORDINATOR_LOAD_IN_PROGRESS',
      'COORDINATOR_NOT_AVAILABLE',
      'NOT_COORDINATOR',
    ] as const
  ).map((n) => ErrorCode[n].code),
)

/** The coordinator's answer for one partition as the partition's refusal (see the header); null: append. */
function refusalOf(ctx: RequestContext, code: number): KafkaError | null {
  if (code === 0) return null
  if (RETRY_LATER.has(code)) {
    return new KafkaError(
      'NOT_ENOUGH_REPLICAS',
      `Unable to verify the partition has been added to the transaction (${errorByCode(code)?.name ?? code})`,
    )
  }
  let name: ErrorName = (errorByCode(code)?.name as ErrorName | undefined) ?? 'UNKNOWN_SERVER_ERROR'
  if (name === 'TRANSACTION_ABORTABLE' && ctx.apiVersion < 11) name = 'INVALID_TXN_STATE'
  return new KafkaError(name, name === 'INVALID_TXN_STATE' ? 'Partition was not added to the transaction' : undefined)
}

/** A partition of the request whose batch the coordinator must verify. */
interface ToVerify {
  topicIndex: number
  partitionIndex: number
  topic: string
  partition: number
}

function appendOne(
  ctx: RequestContext,
  topic: TopicRecord,
  index: number,
  records: Buffer | null,
  acks: number,
  timeoutMs: number,
): Promise<PartitionResult> {
  const { topics, replicas, logger } = ctx.broker
  try {
    const p = replicas.require(topic.name, index)
    if (records === null || records.length === 0) throw new KafkaError('INVALID_RECORD', 'no records')
    const config = topics.effectiveConfig(topic)
    const compressionType = config['compression.type']
    const policy: AppendPolicy = {
      logAppendTime: config['message.timestamp.type'] === 'LogAppendTime',
      beforeMaxMs: config['message.timestamp.before.max.ms'],
      afterMaxMs: config['message.timestamp.after.max.ms'],
      compressionType,
      produceVersion: ctx.apiVersion,
      requireKeys: config['cleanup.policy'].includes('compact'),
      acks,
      minInsyncReplicas: config['min.insync.replicas'],
      timeoutMs,
    }
    if (compressionType === 'gzip') policy.compressionLevel = config['compression.gzip.level']
    else if (compressionType === 'zstd') policy.compressionLevel = config['compression.zstd.level']
    return replicas.append(p, records, config['max.message.bytes'], policy).then(
      (res) => ({ index, errorCode: 0, ...res, recordErrors: [], errorMessage: null }),
      (err) => {
        if (!(err instanceof KafkaError)) logger.error('produce failed', { topic: topic.name, partition: index, err })
        return failed(index, err)
      },
    )
  } catch (err) {
    return Promise.resolve(failed(index, err))
  }
}

/**
 * The verification of every transactional batch of the request (null when it has no transactional
 * id): per topic and partition, the refusal, or null when the batch may be appended — not
 * transactional, its producer's transaction of its epoch already open in the partition, verified —
 * or when the append itself refuses the partition or batch. The log records each verification
 * before the coordinator is asked (ReplicaService.startTxnVerification); the partitions of one
 * producer go to the coordinator in one call.
 */
async function verifyAll(
  ctx: RequestContext,
  req: ProduceRequestData,
  resolved: Array<{ topic: TopicRecord | null }>,
): Promise<Array<Array<KafkaError | null>> | null> {
  const transactionalId = req.transactionalId
  if (transactionalId === null) return null
  const { replicas, txnVerifier } = ctx.broker
  const addPartition = ctx.apiVersion >= 12
  const refusals = req.topicData.map((t) => t.partitionData.map((): KafkaError | null => null))
  const byProducer = new Map<string, { producerId: number; producerEpoch: number; parts: ToVerify[] }>()
  req.topicData.forEach((t, i) => {
    const topic = resolved[i]!.topic
    if (!topic) return
    t.partitionData.forEach((d, j) => {
      const records = d.records
      if (records === null || records.length < BATCH_HEADER_SIZE) return
      let header: ReturnType<typeof readBatchHeader>
      let p: ReturnType<typeof replicas.require>
      try {
        header = readBatchHeader(records, 0)
        if (!header.isTransactional) return
        p = replicas.require(topic.name, d.index)
      } catch {
        return
      }
      try {
        if (!replicas.startTxnVerification(p, header.producerId, header.baseSequence, header.producerEpoch, addPartition)) return
      } catch (err) {
        refusals[i]![j] = err instanceof KafkaError ? err : null
        return
      }
      const key = `${header.producerId}:${header.producerEpoch}`
      let group = byProducer.get(key)
      if (!group) byProducer.set(key, (group = { producerId: header.producerId, producerEpoch: header.producerEpoch, parts: [] }))
      group.parts.push({ topicIndex: i, partitionIndex: j, topic: topic.name, partition: d.index })
    })
  })
  await Promise.all(
    [...byProducer.values()].map(async (g) => {
      const codes = await txnVerifier.verifyPartitions({
        transactionalId,
        producerId: g.producerId,
        producerEpoch: g.producerEpoch,
        partitions: g.parts.map((x) => ({ topic: x.topic, partition: x.partition })),
        addPartition,
      })
      g.parts.forEach((x, k) => {
        refusals[x.topicIndex]![x.partitionIndex] = refusalOf(ctx, codes[k] ?? ErrorCode.UNKNOWN_SERVER_ERROR.code)
      })
    }),
  )
  return refusals
}

export default defineHandler(
  ProduceRequest,
  ProduceResponse,
  { minVersion: 3, maxVersion: 13, advertisedMinVersion: 0 },
  async (ctx, req) => {
    const acks = req.acks
    let responses: TopicResult[]
    const refuseAll = (err: KafkaError): TopicResult[] =>
      req.topicData.map((t) => ({
        name: t.name,
        topicId: t.topicId,
        partitionResponses: t.partitionData.map((p) => failed(p.index, err)),
      }))
    if (acks !== 0 && acks !== 1 && acks !== -1) {
      responses = refuseAll(new KafkaError('INVALID_REQUIRED_ACKS'))
    } else if (
      !canTransactionalId(ctx, Op.WRITE, req.transactionalId) &&
      req.topicData.some((t) => t.partitionData.some((p) => isTransactionalBatch(p.records)))
    ) {
      responses = refuseAll(transactionalIdDenied())
    } else {
      const previous = appendsIssued.get(ctx.conn)
      let issued!: () => void
      appendsIssued.set(ctx.conn, new Promise<void>((resolve) => (issued = resolve)))
      let pending: Array<{ name: string; topicId: string; partitionResponses: Promise<PartitionResult>[] }>
      try {
        if (previous) await previous
        // Every topic first (auto-creation may wait), then every append issued with no await in
        // between, so the log receives them in request order.
        const resolved = await Promise.all(
          req.topicData.map((t) =>
            resolveTopic(ctx, t).then(
              (topic) => ({ topic, err: null }),
              (err: unknown) => ({ topic: null, err }),
            ),
          ),
        )
        const refusals = await verifyAll(ctx, req, resolved)
        pending = req.topicData.map((t, i) => {
          const { topic, err } = resolved[i]!
          return {
            name: t.name,
            topicId: t.topicId,
            partitionResponses: t.partitionData.map((p, j) => {
              if (!topic) return Promise.resolve(failed(p.index, err))
              const refused = refusals?.[i]?.[j]
              return refused ? Promise.resolve(failed(p.index, refused)) : appendOne(ctx, topic, p.index, p.records, acks, req.timeoutMs)
            }),
          }
        })
      } finally {
        issued()
      }
      responses = await Promise.all(
        pending.map(async (t) => ({ name: t.name, topicId: t.topicId, partitionResponses: await Promise.all(t.partitionResponses) })),
      )
    }
    if (acks === 0) {
      const bad = responses.flatMap((t) => t.partitionResponses).find((p) => p.errorCode !== ErrorCode.NONE.code)
      if (bad) throw new CloseConnection(`acks=0 produce failed with error ${bad.errorCode}`)
      return null
    }
    return { responses, throttleTimeMs: 0 }
  },
)
