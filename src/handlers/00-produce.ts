// Produce, accepted v3–11 (record batch v2 only), advertised from v0 because librdkafka breaks on a
// higher advertised minimum (KAFKA-18659).
// acks: 0 (no response; any error closes the connection, the producer's only way to learn),
// 1 and -1 (on one broker the ISR is this broker, so both complete once the append is written).
// Errors: INVALID_REQUIRED_ACKS, UNKNOWN_TOPIC_OR_PARTITION, INVALID_TOPIC_EXCEPTION (internal or
// illegal topic), CORRUPT_MESSAGE, INVALID_RECORD, MESSAGE_TOO_LARGE, KAFKA_STORAGE_ERROR.
import { CloseConnection } from '../network/types.js'
import { ErrorCode, KafkaError, toErrorCode } from '../protocol/errors.js'
import { ProduceRequest, ProduceResponse } from '../protocol/messages/00-produce.js'
import { INTERNAL_TOPICS } from '../cluster/topic-names.js'
import { defineHandler, type RequestContext } from './define.js'

interface PartitionResult {
  index: number
  errorCode: number
  baseOffset: number
  logAppendTimeMs: number
  logStartOffset: number
  errorMessage: string | null
}

const failed = (index: number, err: unknown): PartitionResult => ({
  index,
  errorCode: toErrorCode(err),
  baseOffset: -1,
  logAppendTimeMs: -1,
  logStartOffset: -1,
  errorMessage: err instanceof KafkaError && err.message !== err.errorName ? err.message : null,
})

async function appendOne(
  ctx: RequestContext,
  topicName: string,
  index: number,
  records: Buffer | null,
): Promise<PartitionResult> {
  const { topics, replicas, logger } = ctx.broker
  try {
    if (INTERNAL_TOPICS.has(topicName)) throw new KafkaError('INVALID_TOPIC_EXCEPTION', `cannot produce to internal topic ${topicName}`)
    // The common case stays synchronous up to the append, which keeps appends in request order.
    const topic = topics.get(topicName) ?? (await topics.getOrAutoCreate(topicName, true))
    if (!topic) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION')
    const p = replicas.require(topicName, index)
    if (records === null || records.length === 0) throw new KafkaError('INVALID_RECORD', 'no records')
    const res = await replicas.append(p, records, topics.effectiveConfig(topic)['max.message.bytes'])
    return { index, errorCode: 0, ...res, errorMessage: null }
  } catch (err) {
    if (!(err instanceof KafkaError)) logger.error('produce failed', { topic: topicName, partition: index, err })
    return failed(index, err)
  }
}

export default defineHandler(
  ProduceRequest,
  ProduceResponse,
  { minVersion: 3, maxVersion: 11, advertisedMinVersion: 0 },
  async (ctx, req) => {
    const acks = req.acks
    const validAcks = acks === 0 || acks === 1 || acks === -1
    // Start every partition's append now, in request order, so appends to one partition keep the
    // order in which requests arrived even while earlier ones are still being written.
    const pending = req.topicData.map((t) => ({
      name: t.name,
      partitionResponses: validAcks
        ? t.partitionData.map((p) => appendOne(ctx, t.name, p.index, p.records))
        : t.partitionData.map((p) => Promise.resolve(failed(p.index, new KafkaError('INVALID_REQUIRED_ACKS')))),
    }))
    const responses = await Promise.all(
      pending.map(async (t) => ({ name: t.name, partitionResponses: await Promise.all(t.partitionResponses) })),
    )
    if (acks === 0) {
      const bad = responses.flatMap((t) => t.partitionResponses).find((p) => p.errorCode !== ErrorCode.NONE.code)
      if (bad) throw new CloseConnection(`acks=0 produce failed with error ${bad.errorCode}`)
      return null
    }
    return { responses, throttleTimeMs: 0 }
  },
)
