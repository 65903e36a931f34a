// DeleteRecords v0–2 (kafka-delete-records.sh, Admin.deleteRecords, kafkajs deleteTopicRecords).
// Per partition: offset -1 = the high watermark; the log start offset moves up to the offset, the
// segments wholly below it are removed, and the answer is the new low watermark. On a single node
// the deletion is complete when answered, so timeout_ms is not waited on.
// Errors: UNKNOWN_TOPIC_OR_PARTITION; POLICY_VIOLATION for a topic whose cleanup.policy lacks
// `delete` (as Kafka's Partition.deleteRecordsOnLeader); OFFSET_OUT_OF_RANGE for a negative offset
// other than -1 or one above the high watermark. Low watermark -1 with any error.
import { KafkaError, toErrorCode } from '../protocol/errors.js'
import { DeleteRecordsRequest, DeleteRecordsResponse } from '../protocol/messages/21-delete-records.js'
import { canTopic, Op, topicDenied } from './authorize.js'
import { defineHandler } from './define.js'

export default defineHandler(DeleteRecordsRequest, DeleteRecordsResponse, { minVersion: 0, maxVersion: 2 }, async (ctx, req) => {
  const { topics, replicas } = ctx.broker
  return {
    throttleTimeMs: 0,
    topics: await Promise.all(
      req.topics.map(async (t) => ({
        name: t.name,
        partitions: await Promise.all(
          t.partitions.map(async (dp) => {
            try {
              // DELETE on the topic (Kafka's KafkaApis), before it is looked up.
              if (!canTopic(ctx, Op.DELETE, t.name)) throw topicDenied()
              const topic = topics.get(t.name)
              if (!topic) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION')
              const p = replicas.require(t.name, dp.partitionIndex)
              const config = topics.effectiveConfig(topic)
              if (!config['cleanup.policy'].includes('delete')) {
                throw new KafkaError(
                  'POLICY_VIOLATION',
                  `records of ${t.name}-${dp.partitionIndex} cannot be deleted: cleanup.policy is compact`,
                )
              }
              const lowWatermark = await replicas.deleteRecords(p, dp.offset, config['file.delete.delay.ms'])
              return { partitionIndex: dp.partitionIndex, lowWatermark, errorCode: 0 }
            } catch (err) {
              return { partitionIndex: dp.partitionIndex, lowWatermark: -1, errorCode: toErrorCode(err) }
            }
          }),
        ),
      })),
    ),
  }
})
