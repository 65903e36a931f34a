// The authorizer port: what handlers ask before serving a request, and what the ACL APIs
// (DescribeAcls 29, CreateAcls 30, DeleteAcls 31) change. The implementation is
// src/security/acl/standard-authorizer.ts (Kafka's StandardAuthorizer semantics); a broker without
// `authorizer.class.name` uses NO_AUTHORIZER, which allows everything and answers the ACL APIs
// with SECURITY_DISABLED, as Kafka does.
//
// The codes below are Kafka's (org.apache.kafka.common.resource.ResourceType / PatternType,
// org.apache.kafka.common.acl.AclOperation / AclPermissionType): they travel on the wire and in
// the stored bindings, so they never change.
import type { KafkaPrincipal } from '../network/principal.js'

export const ResourceType = {
  UNKNOWN: 0,
  ANY: 1,
  TOPIC: 2,
  GROUP: 3,
  CLUSTER: 4,
  TRANSACTIONAL_ID: 5,
  DELEGATION_TOKEN: 6,
  USER: 7,
} as const
export type ResourceType = (typeof ResourceType)[keyof typeof ResourceType]

export const PatternType = { UNKNOWN: 0, ANY: 1, MATCH: 2, LITERAL: 3, PREFIXED: 4 } as const
export type PatternType = (typeof PatternType)[keyof typeof PatternType]

export const AclOperation = {
  UNKNOWN: 0,
  ANY: 1,
  ALL: 2,
  READ: 3,
  WRITE: 4,
  CREATE: 5,
  DELETE: 6,
  ALTER: 7,
  DESCRIBE: 8,
  CLUSTER_ACTION: 9,
  DESCRIBE_CONFIGS: 10,
  ALTER_CONFIGS: 11,
  IDEMPOTENT_WRITE: 12,
  CREATE_TOKENS: 13,
  DESCRIBE_TOKENS: 14,
  TWO_PHASE_COMMIT: 15,
} as const
export type AclOperation = (typeof AclOperation)[keyof typeof AclOperation]

export const AclPermissionType = { UNKNOWN: 0, ANY: 1, DENY: 2, ALLOW: 3 } as const
export type AclPermissionType = (typeof AclPermissionType)[keyof typeof AclPermissionType]

/** The one name of the CLUSTER resource (Kafka's CLUSTER_NAME). */
export const CLUSTER_NAME = 'kafka-cluster'
/** A LITERAL pattern with this name matches every resource of its type; a host "*" every host. */
export const WILDCARD = '*'

/** One ACL: who (principal, host) may or may not (permission) do what (operation) on which resources (pattern). */
export interface AclBinding {
  resourceType: number
  resourceName: string
  patternType: number
  /** "User:alice", or "User:*" for every user. */
  principal: string
  /** An IP address, or "*". */
  host: string
  operation: number
  permissionType: number
}

/**
 * A filter over bindings (Kafka's AclBindingFilter): ANY codes and null texts match everything;
 * pattern type MATCH matches the patterns that would apply to the named resource (the literal
 * name, the wildcard, and the prefixes of the name).
 */
export interface AclBindingFilter {
  resourceType: number
  resourceName: string | null
  patternType: number
  principal: string | null
  host: string | null
  operation: number
  permissionType: number
}

/** The filter that matches every binding. */
export const ANY_ACL_BINDING: Readonly<AclBindingFilter> = {
  resourceType: ResourceType.ANY,
  resourceName: null,
  patternType: PatternType.ANY,
  principal: null,
  host: null,
  operation: AclOperation.ANY,
  permissionType: AclPermissionType.ANY,
}

/** Who asks: the connection's principal and the address it connects from. */
export interface RequestIdentity {
  readonly principal: KafkaPrincipal
  readonly remoteAddress: string
}

/** A failed creation or a filter's answer carries Kafka's code (0 = none). */
export interface AclCreateResult {
  errorCode: number
  errorMessage: string | null
}

export interface AclDeleteResult {
  errorCode: number
  errorMessage: string | null
  /** The bindings the filter matched, all deleted. */
  deleted: AclBinding[]
}

export interface Authorizer {
  /** false without `authorizer.class.name`: every check passes and the ACL APIs answer SECURITY_DISABLED. */
  readonly enabled: boolean
  /** May `who` perform `operation` on the resource (type, name)? Logs a denial at debug. */
  authorize(who: RequestIdentity, operation: AclOperation, resourceType: ResourceType, resourceName: string): boolean
  /**
   * May `who` perform `operation` on some resource of the type (Kafka's authorizeByResourceType,
   * KIP-679: an idempotent producer with WRITE on any topic needs no IDEMPOTENT_WRITE)?
   */
  authorizeAny(who: RequestIdentity, operation: AclOperation, resourceType: ResourceType): boolean
  /** The bindings matching the filter. */
  acls(filter: AclBindingFilter): AclBinding[]
  /** Creates the bindings (an existing one is kept, as success); one result per binding, in order. */
  createAcls(bindings: readonly AclBinding[]): Promise<AclCreateResult[]>
  /** Deletes every binding each filter matches; one result per filter, in order. */
  deleteAcls(filters: readonly AclBindingFilter[]): Promise<AclDeleteResult[]>
}

/** No authorization (authorizer.class.name unset): everything is allowed. */
export const NO_AUTHORIZER: Authorizer = {
  enabled: false,
  authorize: () => true,
  authorizeAny: () => true,
  acls: () => [],
  createAcls: async () => [],
  deleteAcls: async () => [],
}
