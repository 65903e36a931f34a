// FindCoordinator v0–6; v4+ batches keys (coordinatorKeys → coordinators[]). A group is
// coordinated by the leader of its `__consumer_offsets` partition (Kafka: abs(hash(groupId)) %
// the topic's partition count), a transactional id by the leader of its `__transaction_state`
// partition (the same placement), as the metadata store names it, at that broker's address on the
// listener the request came in on; on a single node that is always this broker. A leader that is
// not a live broker (it died and no new leader is elected yet), or has no such listener, is
// COORDINATOR_NOT_AVAILABLE, as Kafka answers: the client asks again. `__consumer_offsets` is
// created on the first group lookup, as Kafka creates it (with offsets.topic.replication.factor
// replicas over the live brokers; too few brokers: COORDINATOR_NOT_AVAILABLE), and the answer
// waits for it.
// key_type 0 (group): a group id longer than 255 characters is answered INVALID_GROUP_ID (our
//   limit, coordinator/group/limits.ts: the same answer the group APIs give; Kafka has no limit);
//   the empty id is a valid key, as in Kafka (OffsetCommit/OffsetFetch accept it).
// key_type 1 (transaction): the leader of the transactional id's `__transaction_state` partition
//   (abs(hash(id)) % its partition count), created on the first such lookup as Kafka creates it
//   (transaction.state.log.* settings; too few brokers: COORDINATOR_NOT_AVAILABLE).
// key_type 2 (share, KIP-932; v6+): a key "groupId:topicId:partition" is coordinated by the leader
//   of its `__share_group_state` partition (abs(hash(key)) % its partition count), created on the
//   first such lookup (share.coordinator.state.topic.* settings). A malformed key (not three parts,
//   an empty group id, a topic id that is not one, a negative partition) is INVALID_REQUEST, as is
//   key type 2 below v6 (Kafka's FindCoordinatorRequest refuses it there).
// Any other key type: INVALID_REQUEST, as Kafka answers an unknown type.
import { groupIdError } from '../coordinator/group/limits.js'
import { OFFSETS_TOPIC } from '../coordinator/group/offsets-topic.js'
import { partitionForGroup } from '../coordinator/group/persistence.js'
import { SHARE_GROUP_STATE_TOPIC, TRANSACTION_STATE_TOPIC } from '../cluster/topic-names.js'
import { parseShareCoordinatorKey } from '../ports/share-coordinator.js'
import { ErrorCode, type ErrorName } from '../protocol/errors.js'
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../protocol/messages/10-find-coordinator.js'
import { canCluster, canGroup, canTransactionalId, Op } from './authorize.js'
import { defineHandler } from './define.js'

interface Answer {
  key: string
  nodeId: number
  host: string
  port: number
  errorCode: number
  errorMessage: string | null
}

const GROUP = 0
const TRANSACTION = 1
const SHARE = 2
/** FindCoordinatorRequest v6 adds the share key type. */
const SHARE_MIN_VERSION = 6

export default defineHandler(FindCoordinatorRequest, FindCoordinatorResponse, { minVersion: 0, maxVersion: 6 }, async (ctx, req) => {
  const { broker } = ctx
  const keys = ctx.apiVersion >= 4 ? req.coordinatorKeys : [req.key]
  const keyType = ctx.apiVersion >= 1 ? req.keyType : GROUP
  const fail = (key: string, name: ErrorName, errorMessage: string | null = null): Answer => ({
    key,
    nodeId: -1,
    host: '',
    port: -1,
    errorCode: ErrorCode[name].code,
    errorMessage,
  })

  let topicError: string | null = null
  const ensure = async (create: () => Promise<void>) => {
    try {
      await create()
    } catch (err) {
      broker.logger.warn('cannot create a coordinator topic', { keyType, err })
      topicError = err instanceof Error ? err.message : String(err)
    }
  }
  if (keyType === GROUP && keys.some((k) => groupIdError(k, 'admin') === null)) await ensure(() => broker.groups.ensureCoordinatorTopic())
  if (keyType === TRANSACTION && keys.length > 0) await ensure(() => broker.transactions.ensureCoordinatorTopic())
  const shareKeysAllowed = keyType === SHARE && ctx.apiVersion >= SHARE_MIN_VERSION
  if (shareKeysAllowed && keys.some((k) => typeof parseShareCoordinatorKey(k) !== 'string')) {
    await ensure(() => broker.shareCoordinator.ensureCoordinatorTopic())
  }
  const live = broker.brokers(ctx.conn.listenerName)
  const internalTopic = keyType === TRANSACTION ? TRANSACTION_STATE_TOPIC : keyType === SHARE ? SHARE_GROUP_STATE_TOPIC : OFFSETS_TOPIC
  const coordinatorTopic = broker.topics.get(internalTopic)

  const answer = (key: string): Answer => {
    if (keyType === SHARE && !shareKeysAllowed)
      return fail(key, 'INVALID_REQUEST', `key type ${SHARE} needs FindCoordinator v${SHARE_MIN_VERSION}+`)
    if (keyType !== GROUP && keyType !== TRANSACTION && keyType !== SHARE) {
      return fail(key, 'INVALID_REQUEST', `unknown coordinator key type ${keyType}`)
    }
    if (keyType === GROUP) {
      const invalid = groupIdError(key, 'admin')
      if (invalid) return fail(key, 'INVALID_GROUP_ID', invalid)
    }
    if (keyType === SHARE) {
      const parsed = parseShareCoordinatorKey(key)
      if (typeof parsed === 'string') return fail(key, 'INVALID_REQUEST', parsed)
    }
    // DESCRIBE on the group or transactional id; a share-state key is for brokers (CLUSTER_ACTION).
    if (keyType === GROUP && !canGroup(ctx, Op.DESCRIBE, key)) return fail(key, 'GROUP_AUTHORIZATION_FAILED')
    if (keyType === TRANSACTION && !canTransactionalId(ctx, Op.DESCRIBE, key)) return fail(key, 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED')
    if (keyType === SHARE && !canCluster(ctx, Op.CLUSTER_ACTION)) return fail(key, 'CLUSTER_AUTHORIZATION_FAILED')
    if (topicError !== null) return fail(key, 'COORDINATOR_NOT_AVAILABLE', topicError)
    if (!coordinatorTopic) return fail(key, 'COORDINATOR_NOT_AVAILABLE', `${internalTopic} does not exist yet`)
    const partition = partitionForGroup(key, coordinatorTopic.partitions)
    const leader = broker.topics.partitionState(internalTopic, partition)?.leader ?? -1
    const at = leader < 0 ? undefined : live.find((b) => b.nodeId === leader)
    if (!at) {
      const why = leader < 0 ? 'has no leader' : `is led by broker ${leader}, which is not available on this listener`
      return fail(key, 'COORDINATOR_NOT_AVAILABLE', `${internalTopic}-${partition} ${why}`)
    }
    return { key, nodeId: at.nodeId, host: at.host, port: at.port, errorCode: 0, errorMessage: null }
  }

  const answers = keys.map(answer)
  if (ctx.apiVersion >= 4) return { throttleTimeMs: 0, coordinators: answers }
  const a = answers[0]!
  return { throttleTimeMs: 0, errorCode: a.errorCode, errorMessage: a.errorMessage, nodeId: a.nodeId, host: a.host, port: a.port }
})
