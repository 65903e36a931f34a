// ListOffsets v1–11.
// Timestamps: -2 earliest, -1 latest (the HW; the LSO for isolation_level 1, read_committed),
// -3 max timestamp (KIP-734), -4 earliest local (KIP-405), -5 latest tiered (KIP-1005), -6
// earliest pending upload (KIP-1023), t ≥ 0 the first offset whose timestamp ≥ t (via the time
// index), or offset -1 when there is none — or when the record found is not below the HW (the LSO
// for read_committed, which bounds -3 too), as Kafka's Partition.fetchOffsetForTimestamp. There is no tiered storage here, so the
// answers are those Kafka's UnifiedLog.fetchOffsetByTimestamp gives for a topic without remote
// storage: -4 is the log start offset, -5 and -6 are "none" (offset and epoch -1, no error).
// As Kafka's ReplicaManager, a special timestamp the request's version does not know yet (or a
// negative timestamp that is none of them) is answered UNSUPPORTED_VERSION for that partition, and
// a partition listed twice INVALID_REQUEST. v10's timeoutMs bounds remote lookups (KIP-1075):
// every answer here is local and immediate, so it is not needed.
// Errors: UNKNOWN_TOPIC_OR_PARTITION, FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH, INVALID_REQUEST,
// UNSUPPORTED_VERSION.
import { ErrorCode, KafkaError, toErrorCode } from '../protocol/errors.js'
import { ListOffsetsRequest, ListOffsetsResponse } from '../protocol/messages/02-list-offsets.js'
import { canTopic, Op } from './authorize.js'
import { defineHandler } from './define.js'

/** The first request version that may carry each special timestamp (ReplicaManager's table). */
const SPECIAL_TIMESTAMP_MIN_VERSION = new Map<number, number>([
  [-1, 1], // latest
  [-2, 1], // earliest
  [-3, 7], // max timestamp
  [-4, 8], // earliest local
  [-5, 9], // latest tiered
  [-6, 11], // earliest pending upload
])

function timestampUnsupported(timestamp: number, version: number): boolean {
  if (timestamp >= 0) return false
  const min = SPECIAL_TIMESTAMP_MIN_VERSION.get(timestamp)
  return min === undefined || version < min
}

export default defineHandler(ListOffsetsRequest, ListOffsetsResponse, { minVersion: 1, maxVersion: 11 }, async (ctx, req) => {
  const { topics, replicas } = ctx.broker
  const seen = new Set<string>()
  const duplicates = new Set<string>()
  for (const t of req.topics) {
    for (const lp of t.partitions) {
      const key = `${t.name}\u0000${lp.partitionIndex}`
      if (seen.has(key)) duplicates.add(key)
      seen.add(key)
    }
  }
  const failed = (partitionIndex: number, errorCode: number) => ({ partitionIndex, errorCode, timestamp: -1, offset: -1, leaderEpoch: -1 })
  return {
    throttleTimeMs: 0,
    topics: await Promise.all(
      req.topics.map(async (t) => ({
        name: t.name,
        partitions: await Promise.all(
          t.partitions.map(async (lp) => {
            // DESCRIBE on the topic (Kafka's KafkaApis), before it is looked up.
            if (!canTopic(ctx, Op.DESCRIBE, t.name)) return failed(lp.partitionIndex, ErrorCode.TOPIC_AUTHORIZATION_FAILED.code)
            if (duplicates.has(`${t.name}\u0000${lp.partitionIndex}`)) return failed(lp.partitionIndex, ErrorCode.INVALID_REQUEST.code)
            if (timestampUnsupported(lp.timestamp, ctx.apiVersion)) return failed(lp.partitionIndex, ErrorCode.UNSUPPORTED_VERSION.code)
            try {
              if (!topics.get(t.name)) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION')
              const p = replicas.require(t.name, lp.partitionIndex)
              p.checkLeaderEpoch(lp.currentLeaderEpoch)
              const found = await replicas.listOffset(p, lp.timestamp, req.isolationLevel === 1)
              // No matching record: offset and epoch are both unknown (-1), as Kafka answers.
              return { partitionIndex: lp.partitionIndex, errorCode: 0, ...found, leaderEpoch: found.offset < 0 ? -1 : p.leaderEpoch }
            } catch (err) {
              return failed(lp.partitionIndex, toErrorCode(err))
            }
          }),
        ),
      })),
    ),
  }
})
