// TxnOffsetCommit (key 28), v0–6; flexible from v3. v2 adds the committed leader epoch, v3 the
// group's generation and member (KIP-447), v4 TRANSACTION_ABORTABLE; v5 (transactions v2) also adds
// the group to the transaction, so no AddOffsetsToTxn comes first; v6 names topics by id only.
import { f, type Infer, message } from '../schema.js'

export const TxnOffsetCommitRequest = message({
  apiKey: 28,
  name: 'TxnOffsetCommit',
  versions: '0-6',
  flexible: '3+',
  fields: {
    transactionalId: f.string('0+'),
    groupId: f.string('0+'),
    producerId: f.int64('0+'),
    producerEpoch: f.int16('0+'),
    generationIdOrMemberEpoch: f.int32('3+', { default: -1 }),
    memberId: f.string('3+', { default: '' }),
    groupInstanceId: f.string('3+', { nullable: '3+', default: null }),
    topics: f.array('0+', {
      name: f.string('0-5'),
      topicId: f.uuid('6+'),
      partitions: f.array('0+', {
        partitionIndex: f.int32('0+'),
        committedOffset: f.int64('0+'),
        committedLeaderEpoch: f.int32('2+', { default: -1 }),
        committedMetadata: f.string('0+', { nullable: '0+' }),
      }),
    }),
  },
})

export const TxnOffsetCommitResponse = message({
  apiKey: 28,
  name: 'TxnOffsetCommit',
  versions: '0-6',
  flexible: '3+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    topics: f.array('0+', {
      name: f.string('0-5'),
      topicId: f.uuid('6+'),
      partitions: f.array('0+', {
        partitionIndex: f.int32('0+'),
        errorCode: f.int16('0+'),
      }),
    }),
  },
})

export type TxnOffsetCommitRequestData = Infer<typeof TxnOffsetCommitRequest>
export type TxnOffsetCommitResponseData = Infer<typeof TxnOffsetCommitResponse>
