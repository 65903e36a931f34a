// OffsetForLeaderEpoch (key 23), v0–4; flexible from v4. A follower (or a consumer after a leader
// change, KIP-320) asks the leader where a leader epoch ended, to truncate its log to the epoch
// boundary before fetching (KIP-101, KIP-279).
//   v1  leaderEpoch in the response (the largest epoch ≤ the one asked for)
//   v2  currentLeaderEpoch in the request (fencing: FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH),
//       throttleTimeMs in the response
//   v3  replicaId in the request (-1 for a consumer; a follower sends its broker id)
//   v4  flexible
// Errors: UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH,
// UNKNOWN_LEADER_EPOCH. An unknown epoch answers leaderEpoch -1, endOffset -1.
import { f, type Infer, message } from '../schema.js'

export const OffsetForLeaderEpochRequest = message({
  apiKey: 23,
  name: 'OffsetForLeaderEpoch',
  versions: '0-4',
  flexible: '4+',
  fields: {
    /** -1 for a consumer, the follower's broker id for a replica; -2 (debugging) before v3. */
    replicaId: f.int32('3+', { default: -2 }),
    topics: f.array('0+', {
      topic: f.string('0+'),
      partitions: f.array('0+', {
        partition: f.int32('0+'),
        /** The requester's view of the current leader epoch, for fencing; -1 = not known. */
        currentLeaderEpoch: f.int32('2+', { default: -1 }),
        /** The epoch whose end offset is asked for. */
        leaderEpoch: f.int32('0+'),
      }),
    }),
  },
})

export const OffsetForLeaderEpochResponse = message({
  apiKey: 23,
  name: 'OffsetForLeaderEpoch',
  versions: '0-4',
  flexible: '4+',
  fields: {
    throttleTimeMs: f.int32('2+'),
    topics: f.array('0+', {
      topic: f.string('0+'),
      partitions: f.array('0+', {
        errorCode: f.int16('0+'),
        partition: f.int32('0+'),
        leaderEpoch: f.int32('1+', { default: -1 }),
        /** The first offset after the epoch (the log end offset for the current epoch). */
        endOffset: f.int64('0+', { default: -1 }),
      }),
    }),
  },
})

export type OffsetForLeaderEpochRequestData = Infer<typeof OffsetForLeaderEpochRequest>
export type OffsetForLeaderEpochResponseData = Infer<typeof OffsetForLeaderEpochResponse>
