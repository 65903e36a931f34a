// Admin requests behind `tributary quota set | list`: client quota entities (KIP-546),
// AlterClientQuotas and DescribeClientQuotas, as Kafka's Admin alterClientQuotas /
// describeClientQuotas send them (to any broker). Per-entity outcomes are returned as Kafka error
// names, not thrown; a describe's error and transport failures throw a ClientError.
import type { ErrorName } from '../protocol/errors.js'
import { AlterClientQuotasRequest, AlterClientQuotasResponse } from '../protocol/messages/49-alter-client-quotas.js'
import { DescribeClientQuotasRequest, DescribeClientQuotasResponse } from '../protocol/messages/48-describe-client-quotas.js'
import type { KafkaClient } from './client.js'
import { errorName, throwIfError } from './errors.js'

/** Entity type (user, client-id, ip) → name; null = the type's default. */
export type ClientQuotaEntity = Record<string, string | null>

export interface ClientQuotaAlteration {
  entity: ClientQuotaEntity
  /** key → new value; null removes the key. */
  ops: Record<string, number | null>
}

export interface ClientQuotaAlterResult {
  entity: ClientQuotaEntity
  error: ErrorName | null
  message: string | null
}

/** A describe filter component: a name (exact), null (the default), or undefined (any specified name). */
export type ClientQuotaFilter = Record<string, string | null | undefined>

export interface ClientQuotaDescription {
  entity: ClientQuotaEntity
  values: Record<string, number>
}

const toParts = (entity: ClientQuotaEntity) => Object.entries(entity).map(([entityType, entityName]) => ({ entityType, entityName }))
const fromParts = (parts: ReadonlyArray<{ entityType: string; entityName: string | null }>): ClientQuotaEntity =>
  Object.fromEntries(parts.map((p) => [p.entityType, p.entityName]))

export async function alterClientQuotas(
  client: KafkaClient,
  alterations: readonly ClientQuotaAlteration[],
  opts: { validateOnly?: boolean } = {},
): Promise<ClientQuotaAlterResult[]> {
  if (alterations.length === 0) return []
  const res = await client.request(AlterClientQuotasRequest, AlterClientQuotasResponse, {
    validateOnly: opts.validateOnly ?? false,
    entries: alterations.map((a) => ({
      entity: toParts(a.entity),
      ops: Object.entries(a.ops).map(([key, value]) => ({ key, value: value ?? 0, remove: value === null })),
    })),
  })
  return res.entries.map((e) => ({
    entity: fromParts(e.entity),
    error: e.errorCode === 0 ? null : errorName(e.errorCode),
    message: e.errorCode === 0 ? null : e.errorMessage,
  }))
}

/** The entities matching every component (strict: and no other entity type). */
export async function describeClientQuotas(
  client: KafkaClient,
  filter: ClientQuotaFilter = {},
  opts: { strict?: boolean } = {},
): Promise<ClientQuotaDescription[]> {
  const components = Object.entries(filter).map(([entityType, match]) => ({
    entityType,
    matchType: match === undefined ? 2 : match === null ? 1 : 0,
    match: match ?? null,
  }))
  const res = await client.request(DescribeClientQuotasRequest, DescribeClientQuotasResponse, { components, strict: opts.strict ?? false })
  throwIfError(res.errorCode, 'DescribeClientQuotas', res.errorMessage)
  return (res.entries ?? []).map((e) => ({
    entity: fromParts(e.entity),
    values: Object.fromEntries(e.values.map((v) => [v.key, v.value])),
  }))
}
