// OffsetForLeaderEpoch v2–4 (the versions Kafka 4.x serves). A follower that starts following a new
// leader asks where its latest leader epoch ended on the leader and truncates its log there before
// fetching (KIP-101, KIP-279); consumers ask the same after a leader change to check their position
// (KIP-320). Answered by the leader from its leader-epoch checkpoint: the largest epoch ≤ the one
// asked for and the offset where the next epoch starts (the log end for the current one); an
// epoch older than every recorded one, or newer than the current, answers -1/-1.
// Errors per partition: UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH,
// UNKNOWN_LEADER_EPOCH (currentLeaderEpoch older / newer than this leader's).
import { KafkaError, toErrorCode } from '../protocol/errors.js'
import { OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse } from '../protocol/messages/23-offset-for-leader-epoch.js'
import { canCluster, canTopic, Op, topicDenied } from './authorize.js'
import { defineHandler } from './define.js'

export default defineHandler(OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse, { minVersion: 2, maxVersion: 4 }, (ctx, req) => {
  const { topics, replicas } = ctx.broker
  // A replica (replicaId >= 0) needs CLUSTER_ACTION, a client DESCRIBE on the topic (Kafka's KafkaApis).
  const follower = req.replicaId >= 0 ? canCluster(ctx, Op.CLUSTER_ACTION) : undefined
  return {
    throttleTimeMs: 0,
    topics: req.topics.map((t) => ({
      topic: t.topic,
      partitions: t.partitions.map((op) => {
        try {
          if (!(follower ?? canTopic(ctx, Op.DESCRIBE, t.topic))) throw topicDenied()
          if (!topics.get(t.topic)) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION')
          const p = replicas.require(t.topic, op.partition)
          p.checkLeaderEpoch(op.currentLeaderEpoch)
          const { epoch, endOffset } = p.log.endOffsetForEpoch(op.leaderEpoch)
          return { errorCode: 0, partition: op.partition, leaderEpoch: epoch, endOffset }
        } catch (err) {
          return { errorCode: toErrorCode(err), partition: op.partition, leaderEpoch: -1, endOffset: -1 }
        }
      }),
    })),
  }
})
