// ListOffsets v1–9.
// Timestamps: -2 earliest, -1 latest (the HW; the LSO for read_committed, equal here while there
// are no transactions), -3 max timestamp (KIP-734), -4 earliest local (KIP-1005), t ≥ 0 the first
// offset whose timestamp ≥ t (via the time index), or offset -1 when there is none.
// Errors: UNKNOWN_TOPIC_OR_PARTITION, FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH, INVALID_REQUEST.
import { KafkaError, toErrorCode } from '../protocol/errors.js'
import { ListOffsetsRequest, ListOffsetsResponse } from '../protocol/messages/02-list-offsets.js'
import { defineHandler } from './define.js'

export default defineHandler(ListOffsetsRequest, ListOffsetsResponse, { minVersion: 1, maxVersion: 9 }, async (ctx, req) => {
  const { topics, replicas } = ctx.broker
  return {
    throttleTimeMs: 0,
    topics: await Promise.all(
      req.topics.map(async (t) => ({
        name: t.name,
        partitions: await Promise.all(
          t.partitions.map(async (lp) => {
            try {
              if (!topics.get(t.name)) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION')
              const p = replicas.require(t.name, lp.partitionIndex)
              p.checkLeaderEpoch(lp.currentLeaderEpoch)
              const found = await replicas.listOffset(p, lp.timestamp)
              // No matching record: offset and epoch are both unknown (-1), as Kafka answers.
              return { partitionIndex: lp.partitionIndex, errorCode: 0, ...found, leaderEpoch: found.offset < 0 ? -1 : p.leaderEpoch }
            } catch (err) {
              return { partitionIndex: lp.partitionIndex, errorCode: toErrorCode(err), timestamp: -1, offset: -1, leaderEpoch: -1 }
            }
          }),
        ),
      })),
    ),
  }
})
