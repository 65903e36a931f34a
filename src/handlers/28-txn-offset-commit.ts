// TxnOffsetCommit v0–6: a transactional producer commits its consumer's offsets inside its
// transaction (sendOffsetsToTransaction); they become the group's committed offsets when the
// transaction commits (group coordinator: coordinator/group/txn-offsets.ts).
//
// As Kafka's KafkaApis: partitions of unknown topics, or beyond a topic's partition count, are
// answered UNKNOWN_TOPIC_OR_PARTITION before the coordinator sees the request; v6 names topics by
// id — an id no topic has answers UNKNOWN_TOPIC_ID for all its partitions, and the answer carries
// the ids back. v0–2 carry no group metadata: generation -1, member '', no instance id; v3+ pass
// the consumer's, which the coordinator checks (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID,
// FENCED_INSTANCE_ID).
//
// Before anything is written, the transaction coordinator confirms the group's `__consumer_offsets`
// partition is in the producer's transaction (ctx.broker.txnVerifier, as Kafka's coordinator
// runtime verifies a transactional write): v5+ (transactions v2, no AddOffsetsToTxn first) adds it
// there (addPartition: true); v0–4 only check it (AddOffsetsToTxn added it). Its answer, as Kafka
// passes it on: PRODUCER_FENCED is answered INVALID_PRODUCER_EPOCH, TRANSACTION_ABORTABLE before v4
// INVALID_TXN_STATE (older clients do not know it), NETWORK_EXCEPTION (a remote coordinator
// unreachable) COORDINATOR_LOAD_IN_PROGRESS, so clients retry without a lookup. v0–1 get
// COORDINATOR_NOT_AVAILABLE for COORDINATOR_LOAD_IN_PROGRESS, which clients before 2.0 mishandle.
import { ErrorCode, toErrorCode } from '../protocol/errors.js'
import {
  TxnOffsetCommitRequest,
  TxnOffsetCommitResponse,
  type TxnOffsetCommitRequestData,
} from '../protocol/messages/28-txn-offset-commit.js'
import { resolveOffsetsToCommit } from './offsets-to-commit.js'
import { canGroup, canTopic, canTransactionalId, Op } from './authorize.js'
import { defineHandler, type RequestContext } from './define.js'

const OFFSETS_TOPIC = '__consumer_offsets'

export default defineHandler(TxnOffsetCommitRequest, TxnOffsetCommitResponse, { minVersion: 0, maxVersion: 6 }, async (ctx, req) => {
  const { topics, groups } = ctx.broker
  const byId = ctx.apiVersion >= 6
  // WRITE on the transactional id, READ on the group and on each topic (Kafka's KafkaApis).
  const refusedAll = !canTransactionalId(ctx, Op.WRITE, req.transactionalId)
    ? ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code
    : !canGroup(ctx, Op.READ, req.groupId)
      ? ErrorCode.GROUP_AUTHORIZATION_FAILED.code
      : 0
  const { results, offsets, slots } = resolveOffsetsToCommit(topics, req.topics, byId, (topic) =>
    refusedAll !== 0 ? refusedAll : canTopic(ctx, Op.READ, topic) ? 0 : ErrorCode.TOPIC_AUTHORIZATION_FAILED.code,
  )
  if (offsets.length > 0) {
    const v3 = ctx.apiVersion >= 3
    const codes = await groups.txnOffsetCommit({
      transactionalId: req.transactionalId,
      groupId: req.groupId,
      producerId: req.producerId,
      producerEpoch: req.producerEpoch,
      generationId: v3 ? req.generationIdOrMemberEpoch : -1,
      memberId: v3 ? req.memberId : '',
      groupInstanceId: v3 ? req.groupInstanceId : null,
      offsets,
      apiVersion: ctx.apiVersion,
      verify: (partition) => verify(ctx, req, partition),
    })
    codes.forEach((c, i) => {
      slots[i]!.errorCode =
        ctx.apiVersion < 2 && c === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS.code ? ErrorCode.COORDINATOR_NOT_AVAILABLE.code : c
    })
  }
  return { throttleTimeMs: 0, topics: results }
})

/** The transaction coordinator's verdict on the group's partition, as this version's client expects it. */
async function verify(ctx: RequestContext, req: TxnOffsetCommitRequestData, partition: number): Promise<number> {
  let code: number
  try {
    code = await ctx.broker.txnVerifier.verify({
      transactionalId: req.transactionalId,
      producerId: req.producerId,
      producerEpoch: req.producerEpoch,
      topic: OFFSETS_TOPIC,
      partition,
      addPartition: ctx.apiVersion >= 5,
    })
  } catch (err) {
    code = toErrorCode(err)
  }
  switch (code) {
    case ErrorCode.PRODUCER_FENCED.code:
      return ErrorCode.INVALID_PRODUCER_EPOCH.code
    case ErrorCode.TRANSACTION_ABORTABLE.code:
      return ctx.apiVersion >= 4 ? code : ErrorCode.INVALID_TXN_STATE.code
    case ErrorCode.NETWORK_EXCEPTION.code:
      return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS.code
    default:
      return code
  }
}
