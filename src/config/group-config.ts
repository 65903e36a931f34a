// Group configs (KIP-848 / KIP-932: Kafka's GroupConfig): per-group overrides set with
// IncrementalAlterConfigs on a GROUP resource (type 32), kept cluster-wide in the metadata store,
// described with DescribeConfigs. Each key defaults to a broker key (consumer.session.timeout.ms ←
// group.consumer.session.timeout.ms, share.record.lock.duration.ms ←
// group.share.record.lock.duration.ms, …), and the value a group may set is bounded by the
// broker's min/max keys (group.share.min.record.lock.duration.ms …), as Kafka validates:
//   - an unknown key: INVALID_CONFIG "Unknown group config name: …";
//   - a value that does not parse or is out of its type's range (Kafka's ConfigDef): INVALID_CONFIG;
//   - outside the broker's bounds, or a session timeout not above the heartbeat interval (with the
//     broker's values for keys the group does not set): INVALID_CONFIG naming the bound.
// Keys: Kafka 4.4's consumer.*, share.* and streams.* (streams groups do not exist here; their
// keys are accepted and stored as Kafka does), KIP-1191's errors.deadletterqueue.* and
// Tributary's own tributary.share.* (read as a share group's settings by broker/share-group-settings.ts).
import type { BrokerConfig, BrokerConfigName } from './config.js'
import { type ConfigKeyDef, INT_MAX } from './config-key.js'
import { ConfigError, ConfigSource, type DescribedConfig, parseConfigValue, TYPE_ID } from './config-values.js'

/** share.auto.offset.reset: latest | earliest | by_duration:<ISO-8601 duration, not negative> (case-insensitive, as Kafka). */
export function autoOffsetResetError(v: string): string | undefined {
  const s = v.toLowerCase()
  if (s === 'latest' || s === 'earliest') return undefined
  if (s.startsWith('by_duration:') && isoDurationMs(s.slice('by_duration:'.length)) !== null) return undefined
  return 'latest, earliest or by_duration:<duration> with an ISO-8601 duration (PnDTnHnMn.nS), not negative'
}

/** Milliseconds of an ISO-8601 duration as Java's Duration.parse reads it (days and time parts), or null. */
export function isoDurationMs(text: string): number | null {
  const m = /^p(?:(\d+)d)?(?:t(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)(?:[.,](\d{1,9}))?s)?)?$/i.exec(text)
  if (!m || text.toLowerCase() === 'p' || /t$/i.test(text)) return null
  const [, d, h, min, sec, frac] = m
  const ms =
    Number(d ?? 0) * 86_400_000 +
    Number(h ?? 0) * 3_600_000 +
    Number(min ?? 0) * 60_000 +
    Number(sec ?? 0) * 1000 +
    Math.floor(Number(`0.${frac ?? 0}`) * 1000)
  return Number.isSafeInteger(ms) ? ms : null
}

interface GroupKeyDef extends ConfigKeyDef {
  /** The broker key giving the default. */
  readonly broker?: BrokerConfigName
  /** Broker keys bounding the value (inclusive). */
  readonly bounds?: { min?: BrokerConfigName; max?: BrokerConfigName }
}

const groupKey = (d: Omit<GroupKeyDef, 'scope'>): GroupKeyDef => ({ ...d, scope: 'broker' })

/** Kafka 4.4's GroupConfig keys, then KIP-1191's and Tributary's. */
export const GROUP_CONFIG_DEFS: readonly GroupKeyDef[] = [
  groupKey({
    name: 'consumer.session.timeout.ms',
    type: 'int',
    default: '45000',
    validator: { min: 1 },
    broker: 'group.consumer.session.timeout.ms',
    bounds: { min: 'group.consumer.min.session.timeout.ms', max: 'group.consumer.max.session.timeout.ms' },
    doc: 'Session timeout of the consumer group members.',
  }),
  groupKey({
    name: 'consumer.heartbeat.interval.ms',
    type: 'int',
    default: '5000',
    validator: { min: 1 },
    broker: 'group.consumer.heartbeat.interval.ms',
    bounds: { min: 'group.consumer.min.heartbeat.interval.ms', max: 'group.consumer.max.heartbeat.interval.ms' },
    doc: 'Heartbeat interval given to the consumer group members.',
  }),
  groupKey({
    name: 'share.session.timeout.ms',
    type: 'int',
    default: '45000',
    validator: { min: 1 },
    broker: 'group.share.session.timeout.ms',
    bounds: { min: 'group.share.min.session.timeout.ms', max: 'group.share.max.session.timeout.ms' },
    doc: 'Session timeout of the share group members.',
  }),
  groupKey({
    name: 'share.heartbeat.interval.ms',
    type: 'int',
    default: '5000',
    validator: { min: 1 },
    broker: 'group.share.heartbeat.interval.ms',
    bounds: { min: 'group.share.min.heartbeat.interval.ms', max: 'group.share.max.heartbeat.interval.ms' },
    doc: 'Heartbeat interval given to the share group members.',
  }),
  groupKey({
    name: 'share.record.lock.duration.ms',
    type: 'int',
    default: '30000',
    validator: { min: 1000 },
    broker: 'group.share.record.lock.duration.ms',
    bounds: { min: 'group.share.min.record.lock.duration.ms', max: 'group.share.max.record.lock.duration.ms' },
    doc: 'How long a member holds the records it fetched.',
  }),
  groupKey({
    name: 'share.delivery.count.limit',
    type: 'int',
    default: '5',
    validator: { min: 2 },
    broker: 'group.share.delivery.count.limit',
    bounds: { min: 'group.share.min.delivery.count.limit', max: 'group.share.max.delivery.count.limit' },
    doc: 'Delivery attempts of a record before it is archived (or dead-lettered).',
  }),
  groupKey({
    name: 'share.partition.max.record.locks',
    type: 'int',
    default: '2000',
    validator: { min: 100, max: 10000 },
    broker: 'group.share.partition.max.record.locks',
    doc: 'Records one share-partition of the group may have in flight.',
  }),
  groupKey({
    name: 'share.auto.offset.reset',
    type: 'string',
    default: 'latest',
    validator: { check: autoOffsetResetError },
    doc: 'Where a share-partition without state starts: latest, earliest or by_duration:<ISO-8601 duration>.',
  }),
  groupKey({
    name: 'share.isolation.level',
    type: 'string',
    default: 'read_uncommitted',
    validator: { oneOf: ['read_committed', 'read_uncommitted'] },
    doc: 'Whether the share group sees only committed transactional records.',
  }),
  groupKey({
    name: 'share.renew.acknowledge.enable',
    type: 'boolean',
    default: 'true',
    doc: 'Whether members may renew their acquisition locks (acknowledge type RENEW).',
  }),
  groupKey({
    name: 'streams.session.timeout.ms',
    type: 'int',
    default: '45000',
    validator: { min: 45000, max: 60000 },
    doc: 'Streams groups (not served here).',
  }),
  groupKey({
    name: 'streams.heartbeat.interval.ms',
    type: 'int',
    default: '5000',
    validator: { min: 5000, max: 15000 },
    doc: 'Streams groups (not served here).',
  }),
  groupKey({
    name: 'streams.num.standby.replicas',
    type: 'int',
    default: '0',
    validator: { min: 0, max: 2 },
    doc: 'Streams groups (not served here).',
  }),
  groupKey({
    name: 'streams.initial.rebalance.delay.ms',
    type: 'int',
    default: '3000',
    validator: { min: 0 },
    doc: 'Streams groups (not served here).',
  }),
  groupKey({
    name: 'errors.deadletterqueue.topic.name',
    type: 'string',
    default: '',
    doc: 'KIP-1191: the topic rejected records and records past the delivery limit are written to ("" = none).',
  }),
  groupKey({
    name: 'errors.deadletterqueue.copy.record.enable',
    type: 'boolean',
    default: 'false',
    doc: "KIP-1191: dead letters carry the record's key, value and headers.",
  }),
  groupKey({
    name: 'tributary.share.release.backoff.ms',
    type: 'long',
    default: '0',
    validator: { min: 0, max: Number(INT_MAX) },
    doc: 'A released record is not handed out again before this.',
  }),
  groupKey({
    name: 'tributary.share.delivery.delay.ms',
    type: 'long',
    default: '0',
    validator: { min: 0, max: Number(INT_MAX) },
    doc: 'A record is not handed out before its timestamp plus this.',
  }),
]

const DEFS = new Map(GROUP_CONFIG_DEFS.map((d) => [d.name, d]))

export function groupConfigDef(name: string): ConfigKeyDef | undefined {
  return DEFS.get(name)
}

/** Session timeout keys that must exceed their heartbeat interval (Kafka's GroupConfig.validateValues). */
const SESSION_OVER_HEARTBEAT: ReadonlyArray<[string, string]> = [
  ['consumer.session.timeout.ms', 'consumer.heartbeat.interval.ms'],
  ['share.session.timeout.ms', 'share.heartbeat.interval.ms'],
  ['streams.session.timeout.ms', 'streams.heartbeat.interval.ms'],
]

/** A key's value for a group: its own (parsed), else the broker's default key, else the table's. */
function effective(def: GroupKeyDef, broker: BrokerConfig, own: Readonly<Record<string, string>>): unknown {
  const text = own[def.name]
  if (text !== undefined) return parseConfigValue(def, text).value
  if (def.broker) return broker.get(def.broker)
  return parseConfigValue(def, def.default!).value
}

/**
 * Validates a group's whole config set (Kafka's GroupConfig.validate against the broker's
 * GroupCoordinatorConfig and ShareGroupConfig); returns the canonical texts. Throws ConfigError.
 */
export function validateGroupConfigs(configs: Readonly<Record<string, string>>, broker: BrokerConfig): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(configs)) {
    const def = DEFS.get(name)
    if (!def) throw new ConfigError(`Unknown group config name: ${name}`, name, value)
    out[name] = parseConfigValue(def, value).text
  }
  for (const [name, text] of Object.entries(out)) {
    const def = DEFS.get(name)!
    const value = parseConfigValue(def, text).value as number
    if (def.bounds?.min && value < (broker.get(def.bounds.min) as number)) {
      throw new ConfigError(`${name} must be greater than or equal to ${def.bounds.min}`, name, text)
    }
    if (def.bounds?.max && value > (broker.get(def.bounds.max) as number)) {
      throw new ConfigError(`${name} must be less than or equal to ${def.bounds.max}`, name, text)
    }
  }
  // KIP-1191: the broker's internal topics cannot take dead letters.
  const dlq = out['errors.deadletterqueue.topic.name']
  if (dlq?.startsWith('__')) {
    throw new ConfigError(
      "errors.deadletterqueue.topic.name: DLQ topic name must not start with '__'",
      'errors.deadletterqueue.topic.name',
      dlq,
    )
  }
  for (const [session, heartbeat] of SESSION_OVER_HEARTBEAT) {
    if (out[session] === undefined && out[heartbeat] === undefined) continue
    const s = effective(DEFS.get(session)!, broker, out) as number
    const h = effective(DEFS.get(heartbeat)!, broker, out) as number
    if (s <= h) throw new ConfigError(`${session} must be greater than ${heartbeat}`, session, String(s))
  }
  return out
}

/** DescribeConfigs of a GROUP resource: every group config (or only `keys`), set ones with source GROUP_CONFIG. */
export function describeGroupConfigs(
  broker: BrokerConfig,
  own: Readonly<Record<string, string>>,
  keys: readonly string[] | null,
): DescribedConfig[] {
  const names = keys && keys.length > 0 ? keys.filter((k) => DEFS.has(k)) : GROUP_CONFIG_DEFS.map((d) => d.name)
  return names.map((name) => {
    const def = DEFS.get(name)!
    const set = own[name]
    const fallback = def.broker ? (broker.describe(def.broker)?.value ?? def.default) : def.default
    return {
      name,
      value: set ?? fallback,
      source: set !== undefined ? ConfigSource.GROUP_CONFIG : ConfigSource.DEFAULT_CONFIG,
      readOnly: false,
      isDefault: set === undefined,
      isSensitive: false,
      synonyms: [],
      type: TYPE_ID[def.type],
      documentation: def.doc,
    }
  })
}

/**
 * A group's effective values within the broker's bounds now (Kafka's GroupConfig.evaluate: a value
 * stored when the bounds were wider is capped to them), as numbers and texts by key.
 */
export function groupConfigValue(broker: BrokerConfig, own: Readonly<Record<string, string>>, name: string): unknown {
  const def = DEFS.get(name)
  if (!def) throw new Error(`not a group config: ${name}`)
  let value: unknown
  try {
    value = effective(def, broker, own)
  } catch {
    value = effective(def, broker, {}) // a stored value a newer version wrote: the default
  }
  if (typeof value === 'number' && def.bounds) {
    if (def.bounds.min) value = Math.max(value, broker.get(def.bounds.min) as number)
    if (def.bounds.max) value = Math.min(value as number, broker.get(def.bounds.max) as number)
  }
  return value
}
