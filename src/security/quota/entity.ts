// Client quota entities and their configs, as Kafka's ClientQuotaControlManager and
// ClientQuotasImage define them (KIP-546): an entity is a set of (type, name) pairs of the types
// user, client-id and ip; a null name is the type's default (`<default>` in kafka-configs).
//
// Rules kept here (the AlterClientQuotas and DescribeClientQuotas handlers and the CLI share them):
// - user and client-id combine; ip stands alone; an empty entity, a repeated type, an unknown type or
//   an empty name is INVALID_REQUEST (an unknown type in a describe filter is UNSUPPORTED_VERSION),
//   and so is an ip that is neither an address nor a name that resolves (client-quotas.ts asks DNS);
// - user/client-id entities take producer_byte_rate, consumer_byte_rate (longs),
//   request_percentage, controller_mutation_rate (doubles); ip entities connection_creation_rate
//   (an int); any other key, a value ≤ 0, a fraction for an integral key or a value past its type
//   is INVALID_REQUEST with Kafka's message;
// - describe filters match exactly, the default, or any specified name; strict excludes entities
//   with other types.
// Storage: one security entry of kind 'quota' per entity; the key is the entity as canonical JSON
// (types in a fixed order), the value a JSON object key → number. Nothing here is secret.
import { KafkaError } from '../../protocol/errors.js'

export const ENTITY_TYPES = ['user', 'client-id', 'ip'] as const
export type QuotaEntityType = (typeof ENTITY_TYPES)[number]
/** type → name; null = the type's default. */
export type QuotaEntity = Partial<Record<QuotaEntityType, string | null>>
export type QuotaValues = Readonly<Record<string, number>>

type KeyType = 'long' | 'double' | 'int'
/** The keys of user and client-id entities (Kafka's QuotaConfig.userAndClientQuotaConfigs). */
export const CLIENT_QUOTA_KEYS: Readonly<Record<string, KeyType>> = {
  producer_byte_rate: 'long',
  consumer_byte_rate: 'long',
  request_percentage: 'double',
  controller_mutation_rate: 'double',
}
/** The keys of ip entities (KIP-612). */
export const IP_QUOTA_KEYS: Readonly<Record<string, KeyType>> = { connection_creation_rate: 'int' }

export interface EntityPart {
  entityType: string
  entityName: string | null
}

/** Checks the pairs of a request's entity; throws INVALID_REQUEST with Kafka's message. */
export function parseEntity(parts: readonly EntityPart[]): QuotaEntity {
  if (parts.length === 0) throw new KafkaError('INVALID_REQUEST', 'Invalid empty client quota entity')
  const entity: QuotaEntity = {}
  for (const { entityType, entityName } of parts) {
    if (entityType in entity) throw new KafkaError('INVALID_REQUEST', `Invalid client quota entity, duplicate entity entry ${entityType}`)
    if (!(ENTITY_TYPES as readonly string[]).includes(entityType)) {
      throw new KafkaError('INVALID_REQUEST', `Unhandled client quota entity type: ${entityType}`)
    }
    if (entityName === '') throw new KafkaError('INVALID_REQUEST', `Empty ${entityType} not supported`)
    entity[entityType as QuotaEntityType] = entityName
  }
  if ('ip' in entity && ('user' in entity || 'client-id' in entity)) {
    throw new KafkaError('INVALID_REQUEST', 'Invalid quota entity combination, IP entity should not be combined with User or ClientId')
  }
  return entity
}

export function keysFor(entity: QuotaEntity): Readonly<Record<string, KeyType>> {
  return 'ip' in entity ? IP_QUOTA_KEYS : CLIENT_QUOTA_KEYS
}

const TYPE_MAX: Record<KeyType, number> = { long: 2 ** 63, int: 2 ** 31 - 1, double: Infinity }

/** Kafka's validateQuotaKeyValue. */
export function checkQuotaValue(entity: QuotaEntity, key: string, value: number): void {
  const type = keysFor(entity)[key]
  if (type === undefined) throw new KafkaError('INVALID_REQUEST', `Invalid configuration key ${key}`)
  if (!(value > 0)) throw new KafkaError('INVALID_REQUEST', `Quota ${key} must be greater than 0`)
  if (type === 'double') return
  if (value > TYPE_MAX[type]) {
    throw new KafkaError('INVALID_REQUEST', `Proposed value for ${key} is too large for ${type === 'int' ? 'an INT' : 'a LONG'}.`)
  }
  if (Math.abs(value % 1) > 1e-6) throw new KafkaError('INVALID_REQUEST', `${key} cannot be a fractional value.`)
}

/** The entity's store key: its pairs in a fixed type order, as JSON. */
export function entityKey(entity: QuotaEntity): string {
  return JSON.stringify(ENTITY_TYPES.filter((t) => t in entity).map((t) => [t, entity[t]]))
}

/** The inverse of entityKey; undefined for a key this version cannot read (skipped, never fatal). */
export function parseEntityKey(key: string): QuotaEntity | undefined {
  try {
    const pairs: unknown = JSON.parse(key)
    if (!Array.isArray(pairs)) return undefined
    const entity: QuotaEntity = {}
    for (const p of pairs) {
      if (!Array.isArray(p) || !(ENTITY_TYPES as readonly unknown[]).includes(p[0])) return undefined
      if (p[1] !== null && typeof p[1] !== 'string') return undefined
      entity[p[0] as QuotaEntityType] = p[1] as string | null
    }
    return entity
  } catch {
    return undefined
  }
}

export function parseValues(text: string): QuotaValues | undefined {
  try {
    const v: unknown = JSON.parse(text)
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined
    const out: Record<string, number> = {}
    for (const [k, n] of Object.entries(v)) if (typeof n === 'number' && Number.isFinite(n)) out[k] = n
    return out
  } catch {
    return undefined
  }
}

/** The entity as a request's or response's pairs (types in a fixed order). */
export function entityParts(entity: QuotaEntity): EntityPart[] {
  return ENTITY_TYPES.filter((t) => t in entity).map((t) => ({ entityType: t, entityName: entity[t] ?? null }))
}

export const MATCH_EXACT = 0
export const MATCH_DEFAULT = 1
export const MATCH_SPECIFIED = 2

export interface FilterComponent {
  entityType: string
  matchType: number
  match: string | null
}

/** A checked describe filter: exact names (null = default) and types that must be present. */
export interface QuotaFilter {
  exact: Map<string, string | null>
  specified: Set<string>
  strict: boolean
}

/** Kafka's ClientQuotasImage.describe checks, with its messages and codes. */
export function parseFilter(components: readonly FilterComponent[], strict: boolean): QuotaFilter {
  const exact = new Map<string, string | null>()
  const specified = new Set<string>()
  for (const c of components) {
    if (c.entityType === '') throw new KafkaError('INVALID_REQUEST', 'Invalid empty entity type.')
    if (exact.has(c.entityType) || specified.has(c.entityType)) {
      throw new KafkaError('INVALID_REQUEST', `Entity type ${c.entityType} cannot appear more than once in the filter.`)
    }
    if (!(ENTITY_TYPES as readonly string[]).includes(c.entityType)) {
      throw new KafkaError('UNSUPPORTED_VERSION', `Unsupported entity type ${c.entityType}`)
    }
    if (c.matchType === MATCH_EXACT) {
      if (c.match === null) throw new KafkaError('INVALID_REQUEST', 'Request specified MATCH_TYPE_EXACT, but set match string to null.')
      exact.set(c.entityType, c.match)
    } else if (c.matchType === MATCH_DEFAULT) {
      if (c.match !== null)
        throw new KafkaError('INVALID_REQUEST', 'Request specified MATCH_TYPE_DEFAULT, but also specified a match string.')
      exact.set(c.entityType, null)
    } else if (c.matchType === MATCH_SPECIFIED) {
      if (c.match !== null)
        throw new KafkaError('INVALID_REQUEST', 'Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.')
      specified.add(c.entityType)
    } else {
      throw new KafkaError('INVALID_REQUEST', `Unknown match type ${c.matchType}`)
    }
  }
  const has = (t: string) => exact.has(t) || specified.has(t)
  if (has('ip') && (has('user') || has('client-id'))) {
    throw new KafkaError(
      'INVALID_REQUEST',
      'Invalid entity filter component combination. IP filter component should not be used with user or clientId filter component.',
    )
  }
  return { exact, specified, strict }
}

export function matchesFilter(entity: QuotaEntity, f: QuotaFilter): boolean {
  if (f.strict && Object.keys(entity).length !== f.exact.size + f.specified.size) return false
  for (const [type, name] of f.exact) {
    if (!(type in entity) || entity[type as QuotaEntityType] !== name) return false
  }
  for (const type of f.specified) if (!(type in entity)) return false
  return true
}

/** "user=alice, client-id=<default>" for logs and the CLI (as kafka-configs names entities). */
export function formatEntity(entity: QuotaEntity): string {
  return entityParts(entity)
    .map((p) => `${p.entityType}=${p.entityName ?? '<default>'}`)
    .join(', ')
}
