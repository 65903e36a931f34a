// The authorization decisions handlers make, in one place so each handler stays one line per
// check: which operation on which resource each API needs is Kafka's (its KafkaApis/AuthHelper
// and the "Operations and Resources on Protocols" table of its security docs). Without an
// authorizer (authorizer.class.name unset) every check passes and authorized-operations fields
// list every operation the resource type supports, as Kafka's AuthHelper does.
import { type AclBindingFilter, AclOperation, type Authorizer, CLUSTER_NAME, NO_AUTHORIZER, ResourceType } from '../ports/authorizer.js'
import { ErrorCode, KafkaError } from '../protocol/errors.js'
import { BATCH_HEADER_SIZE, readBatchHeader } from '../protocol/records/batch.js'
import type { RequestContext } from './define.js'

export { AclOperation as Op, ResourceType }

export function authorizerOf(ctx: RequestContext): Authorizer {
  return ctx.broker.authorizer ?? NO_AUTHORIZER
}

export function canTopic(ctx: RequestContext, op: AclOperation, topic: string): boolean {
  return authorizerOf(ctx).authorize(ctx.conn, op, ResourceType.TOPIC, topic)
}

export function canGroup(ctx: RequestContext, op: AclOperation, groupId: string): boolean {
  return authorizerOf(ctx).authorize(ctx.conn, op, ResourceType.GROUP, groupId)
}

export function canCluster(ctx: RequestContext, op: AclOperation): boolean {
  return authorizerOf(ctx).authorize(ctx.conn, op, ResourceType.CLUSTER, CLUSTER_NAME)
}

/** A null transactional id is never authorized (a transactional batch without one: CVE-2018-17196). */
export function canTransactionalId(ctx: RequestContext, op: AclOperation, id: string | null): boolean {
  const a = authorizerOf(ctx)
  return !a.enabled || (id !== null && a.authorize(ctx.conn, op, ResourceType.TRANSACTIONAL_ID, id))
}

/** Creating a topic (CreateTopics, auto-creation): CREATE on the cluster or on the topic. */
export function canCreateTopic(ctx: RequestContext, topic: string): boolean {
  return canCluster(ctx, AclOperation.CREATE) || canTopic(ctx, AclOperation.CREATE, topic)
}

/** An idempotent producer: IDEMPOTENT_WRITE on the cluster, or WRITE on some topic (KIP-679). */
export function canIdempotentWrite(ctx: RequestContext): boolean {
  return canCluster(ctx, AclOperation.IDEMPOTENT_WRITE) || authorizerOf(ctx).authorizeAny(ctx.conn, AclOperation.WRITE, ResourceType.TOPIC)
}

/** Kafka's supported operations per resource type (AclEntry.supportedOperations). */
const SUPPORTED: Record<number, readonly AclOperation[]> = {
  [ResourceType.TOPIC]: [3, 4, 5, 6, 7, 8, 10, 11],
  [ResourceType.GROUP]: [3, 6, 8, 10, 11],
  [ResourceType.CLUSTER]: [5, 7, 8, 9, 10, 11, 12],
  [ResourceType.TRANSACTIONAL_ID]: [4, 8, 15],
  [ResourceType.DELEGATION_TOKEN]: [8],
  [ResourceType.USER]: [13, 14],
} as Record<number, readonly AclOperation[]>

/** The authorized-operations bit field (a bit per operation code) of a resource for the caller. */
export function authorizedOperations(ctx: RequestContext, resourceType: ResourceType, name: string): number {
  const a = authorizerOf(ctx)
  let bits = 0
  for (const op of SUPPORTED[resourceType] ?? []) if (a.authorize(ctx.conn, op, resourceType, name)) bits |= 1 << op
  return bits
}

/** Kafka's value of an authorized-operations field that was not asked for. */
export const OPERATIONS_NOT_REQUESTED = -2147483648

/** The cluster's authorized operations when asked for: none (0) without DESCRIBE on the cluster. */
export function clusterOperations(ctx: RequestContext, requested: boolean): number {
  if (!requested) return OPERATIONS_NOT_REQUESTED
  return canCluster(ctx, AclOperation.DESCRIBE) ? authorizedOperations(ctx, ResourceType.CLUSTER, CLUSTER_NAME) : 0
}

/** Does a Produce partition's data start with a transactional batch? (It decides the check, not the header.) */
export function isTransactionalBatch(records: Buffer | null): boolean {
  if (records === null || records.length < BATCH_HEADER_SIZE) return false
  try {
    return readBatchHeader(records, 0).isTransactional
  } catch {
    return false
  }
}

/** Kafka's message of TOPIC_AUTHORIZATION_FAILED where a response carries one per topic or partition. */
export const TOPIC_DENIED_MESSAGE = 'Topic authorization failed.'

export const topicDenied = (): KafkaError => new KafkaError('TOPIC_AUTHORIZATION_FAILED')
export const groupDenied = (): KafkaError => new KafkaError('GROUP_AUTHORIZATION_FAILED')
export const clusterDenied = (): KafkaError => new KafkaError('CLUSTER_AUTHORIZATION_FAILED')
export const transactionalIdDenied = (): KafkaError => new KafkaError('TRANSACTIONAL_ID_AUTHORIZATION_FAILED')

/**
 * DescribeConfigs/AlterConfigs/IncrementalAlterConfigs: the operation on the config resource's
 * ACL resource — a topic (2) its topic, a group (32) its group, a broker (4), broker logger (8)
 * or client-metrics subscription (16) the cluster — or the refusal with Kafka's code.
 */
export function configRefusal(ctx: RequestContext, op: AclOperation, configResourceType: number, name: string): KafkaError | undefined {
  if (configResourceType === 2) return canTopic(ctx, op, name) ? undefined : topicDenied()
  if (configResourceType === 32) return canGroup(ctx, op, name) ? undefined : groupDenied()
  return canCluster(ctx, op) ? undefined : clusterDenied()
}

/** A DescribeAcls request or DeleteAcls filter (the same fields on the wire) as a binding filter. */
export function aclFilterOf(f: {
  resourceTypeFilter: number
  resourceNameFilter: string | null
  patternTypeFilter: number
  principalFilter: string | null
  hostFilter: string | null
  operation: number
  permissionType: number
}): AclBindingFilter {
  return {
    resourceType: f.resourceTypeFilter,
    resourceName: f.resourceNameFilter,
    patternType: f.patternTypeFilter,
    principal: f.principalFilter,
    host: f.hostFilter,
    operation: f.operation,
    permissionType: f.permissionType,
  }
}

/**
 * ConsumerGroupDescribe/ShareGroupDescribe (KIP-848, KIP-932; Kafka's KafkaApis): each group the
 * caller may DESCRIBE with its authorized operations when asked for, the others as
 * GROUP_AUTHORIZATION_FAILED; a described group whose members' assignments (`topicsOf`) name a
 * topic the caller may not DESCRIBE is answered TOPIC_AUTHORIZATION_FAILED, without members.
 */
export function describedGroupsAuthorized<G extends { groupId: string }>(
  ctx: RequestContext,
  groups: G[],
  withOperations: boolean,
  topicsOf: (g: G) => Iterable<string>,
) {
  const empty = { groupState: '', groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [] }
  return groups.map((g) => {
    if (!canGroup(ctx, AclOperation.DESCRIBE, g.groupId)) {
      return { ...empty, errorCode: groupDenied().code, groupId: g.groupId, groupEpoch: -1, assignmentEpoch: -1 }
    }
    for (const topic of topicsOf(g)) {
      if (!canTopic(ctx, AclOperation.DESCRIBE, topic)) {
        return {
          ...empty,
          errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED.code,
          errorMessage: 'The group has described topic(s) that the client is not authorized to describe.',
          groupId: g.groupId,
        }
      }
    }
    return {
      ...g,
      authorizedOperations: withOperations ? authorizedOperations(ctx, ResourceType.GROUP, g.groupId) : OPERATIONS_NOT_REQUESTED,
    }
  })
}

/** The ConsumerGroupHeartbeat/ShareGroupHeartbeat answer without READ on the group. */
export const HEARTBEAT_GROUP_DENIED = {
  throttleTimeMs: 0,
  errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED.code,
  errorMessage: null,
  memberId: null,
  memberEpoch: -1,
  heartbeatIntervalMs: 0,
  assignment: null,
} as const

type ShareTopic = { topicId: string; partitions: ReadonlyArray<{ partitionIndex: number }> }

/**
 * ShareFetch/ShareAcknowledge (Kafka's KafkaApis): READ on each topic. `request` is the request
 * without the topics the caller may not read (unknown ids stay: the service answers them); the
 * answer gets those topics back, each partition TOPIC_AUTHORIZATION_FAILED with `fields(p)`,
 * unless the whole request failed.
 */
export function readableShareTopics<Req extends { topics: ShareTopic[] }>(ctx: RequestContext, req: Req) {
  const refused = req.topics.filter((t) => {
    const name = ctx.broker.topics.getById(t.topicId)?.name
    return name !== undefined && !canTopic(ctx, AclOperation.READ, name)
  })
  return {
    request: refused.length === 0 ? req : { ...req, topics: req.topics.filter((t) => !refused.includes(t)) },
    answer<Res extends { errorCode: number; responses: unknown[] }, P extends Req['topics'][number]['partitions'][number]>(
      res: Res,
      fields: (p: P, code: number) => object,
    ): Res {
      if (refused.length === 0 || res.errorCode !== 0) return res
      const code = ErrorCode.TOPIC_AUTHORIZATION_FAILED.code
      const more = refused.map((t) => ({
        topicId: t.topicId,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          errorCode: code,
          errorMessage: null,
          currentLeader: { leaderId: -1, leaderEpoch: -1 },
          ...fields(p as P, code),
        })),
      }))
      return { ...res, responses: [...res.responses, ...more] }
    },
  }
}

/**
 * AlterShareGroupOffsets/DeleteShareGroupOffsets (Kafka's KafkaApis): READ on each topic. The
 * request is served without the refused topics; each refused one is answered by `refusedAnswer`
 * (placed before or after the served ones), unless the whole request failed.
 */
export async function servedReadableTopics<T extends { topicName: string }, Res extends { errorCode: number; responses: unknown[] }>(
  ctx: RequestContext,
  req: { groupId: string; topics: T[] },
  serve: (req: { groupId: string; topics: T[] }) => Promise<Res>,
  refusedAnswer: (t: T) => NoInfer<Res['responses'][number]>,
  refusedFirst: boolean,
): Promise<Res> {
  const refused = req.topics.filter((t) => !canTopic(ctx, AclOperation.READ, t.topicName))
  if (refused.length === 0) return serve(req)
  const res = await serve({ ...req, topics: req.topics.filter((t) => !refused.includes(t)) })
  if (res.errorCode !== 0) return res
  const denied = refused.map(refusedAnswer)
  return { ...res, responses: refusedFirst ? [...denied, ...res.responses] : [...res.responses, ...denied] }
}

/** The ShareFetch/ShareAcknowledge answer without READ on the group. */
export const shareGroupDenied = () => ({
  throttleTimeMs: 0,
  errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED.code,
  acquisitionLockTimeoutMs: 0,
  responses: [],
  nodeEndpoints: [],
})
