// DescribeProducers v0 (KIP-664): per requested partition, the idempotent producers its replica on
// this broker holds — answered by the leader and by a follower alike, as Kafka's
// Partition.activeProducerState reads whichever local log there is. Without transactions the
// coordinator epoch and the transaction start offset are -1.
// Errors (per partition, with a null message as Kafka's ReplicaManager.activeProducerState):
// NOT_LEADER_OR_FOLLOWER (the partition exists but has no replica here), UNKNOWN_TOPIC_OR_PARTITION.
import { toErrorCode } from '../protocol/errors.js'
import { DescribeProducersRequest, DescribeProducersResponse } from '../protocol/messages/61-describe-producers.js'
import { canTopic, Op, topicDenied } from './authorize.js'
import { defineHandler } from './define.js'

export default defineHandler(DescribeProducersRequest, DescribeProducersResponse, { minVersion: 0, maxVersion: 0 }, (ctx, req) => ({
  throttleTimeMs: 0,
  topics: req.topics.map((t) => ({
    name: t.name,
    partitions: t.partitionIndexes.map((partitionIndex) => {
      try {
        // READ on the topic (Kafka's KafkaApis).
        if (!canTopic(ctx, Op.READ, t.name)) throw topicDenied()
        return {
          partitionIndex,
          errorCode: 0,
          errorMessage: null,
          activeProducers: ctx.broker.replicas.activeProducers(t.name, partitionIndex),
        }
      } catch (err) {
        return { partitionIndex, errorCode: toErrorCode(err), errorMessage: null, activeProducers: [] }
      }
    }),
  })),
}))
