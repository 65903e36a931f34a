// The client quota service a request handler and the dispatcher reach through BrokerServices
// (security/quota/client-quotas.ts implements it): the quota entities (DescribeClientQuotas,
// AlterClientQuotas) and the measures behind throttling (Kafka's ClientQuotaManager,
// ClientRequestQuotaManager and ControllerMutationQuotaManager). Each record returns the throttle
// time the request earns, 0 when within the quota or when no quota applies.
import type { KafkaPrincipal } from '../network/principal.js'

export interface QuotaEntityPart {
  entityType: string
  /** null = the type's default. */
  entityName: string | null
}

export interface QuotaFilterComponent {
  entityType: string
  /** 0 exact name, 1 default, 2 any specified name. */
  matchType: number
  match: string | null
}

export interface QuotaEntry {
  entity: QuotaEntityPart[]
  values: Array<{ key: string; value: number }>
}

export interface QuotaAlteration {
  entity: QuotaEntityPart[]
  ops: Array<{ key: string; value: number; remove: boolean }>
}

export interface QuotaAlterResult {
  entity: QuotaEntityPart[]
  errorCode: number
  errorMessage: string | null
}

/** A byte or time quota, as Kafka names its quota types. */
export type MeasuredQuota = 'produce' | 'fetch' | 'request'

/**
 * The controller mutation quota of one request (KIP-599). Strict (the versions that know
 * THROTTLING_QUOTA_EXCEEDED): once exhausted no mutation is accepted, and only a refused one
 * throttles. Permissive (older versions): every mutation is accepted and throttles once exhausted.
 */
export interface MutationQuota {
  /** Asked before a mutation; false (strict, quota exhausted): refuse it with THROTTLING_QUOTA_EXCEEDED. */
  admit(): boolean
  /** Counts a mutation of `count` partitions (the bucket may go below zero). */
  record(count: number): void
  /** The throttle time this request earned. */
  throttleMs(): number
}

export interface QuotaService {
  /** Throws KafkaError INVALID_REQUEST / UNSUPPORTED_VERSION for a bad filter. */
  describe(components: readonly QuotaFilterComponent[], strict: boolean): QuotaEntry[]
  alter(entries: readonly QuotaAlteration[], validateOnly: boolean): Promise<QuotaAlterResult[]>
  /** Records a produce (request bytes), fetch (response bytes) or request (event-loop ms) measure. */
  record(type: MeasuredQuota, principal: KafkaPrincipal, clientId: string, value: number): number
  /** Takes back a recorded value (a throttled Fetch answers empty, as Kafka does). */
  unrecord(type: MeasuredQuota, principal: KafkaPrincipal, clientId: string, value: number): void
  /** The most bytes a consumer's quota allows in one quota window (Kafka caps fetch.max.bytes to it). */
  fetchBytesCap(principal: KafkaPrincipal, clientId: string): number
  mutationQuota(principal: KafkaPrincipal, clientId: string, strict: boolean): MutationQuota
}
