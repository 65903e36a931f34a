// One config value: parsing, validation, and the DescribeConfigs vocabulary (sources, type ids).
// Shared by broker configs (config.ts) and topic configs (topic-config.ts).
//
// Parsing follows Kafka's ConfigDef: numbers and strings are trimmed; booleans are true/false in
// any case; lists are comma-separated with blanks around elements dropped (and, like Kafka's
// parseCsvList, empty elements too). Longs are JS numbers (docs/architecture.md §1.4): the full int64 range is
// accepted and anything beyond ±Number.MAX_SAFE_INTEGER is clamped to it — only "never"-sized
// values live there (Long.MAX_VALUE) — while the text keeps the exact value for DescribeConfigs.
import { KafkaError } from '../protocol/errors.js'
import { BROKER_CONFIG_DEFS, BROKER_SYNONYM_GROUPS, type ConfigKeyDef, type ConfigType, TOPIC_CONFIG_DEFS } from './config-defs.js'

/** A known key has an invalid value, or a topic config is unknown. Maps to Kafka's INVALID_CONFIG. */
export class ConfigError extends KafkaError {
  constructor(
    message: string,
    readonly key?: string,
    readonly value?: string,
  ) {
    super('INVALID_CONFIG', message)
    this.name = 'ConfigError'
  }
}

/** DescribeConfigs ConfigSource (Kafka's DescribeConfigsResponse.ConfigSource ids). */
export const ConfigSource = {
  UNKNOWN: 0,
  TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
  DYNAMIC_BROKER_LOGGER_CONFIG: 6,
  CLIENT_METRICS_CONFIG: 7,
  GROUP_CONFIG: 8,
} as const
export type ConfigSourceId = (typeof ConfigSource)[keyof typeof ConfigSource]

/** DescribeConfigs v3+ ConfigType ids (Kafka's DescribeConfigsResponse.ConfigType). */
export const ConfigTypeId = {
  UNKNOWN: 0,
  BOOLEAN: 1,
  STRING: 2,
  INT: 3,
  SHORT: 4,
  LONG: 5,
  DOUBLE: 6,
  LIST: 7,
  CLASS: 8,
  PASSWORD: 9,
} as const

export const TYPE_ID: Record<ConfigType, number> = {
  int: ConfigTypeId.INT,
  long: ConfigTypeId.LONG,
  double: ConfigTypeId.DOUBLE,
  boolean: ConfigTypeId.BOOLEAN,
  string: ConfigTypeId.STRING,
  list: ConfigTypeId.LIST,
  password: ConfigTypeId.PASSWORD,
  class: ConfigTypeId.CLASS,
}

/** One entry of a DescribeConfigs answer (field names are camelCase of Kafka's). */
export interface DescribedConfig {
  name: string
  /** null when unset or sensitive. */
  value: string | null
  source: ConfigSourceId
  readOnly: boolean
  /** DescribeConfigs v0 only: the value is the default. */
  isDefault: boolean
  isSensitive: boolean
  synonyms: { name: string; value: string | null; source: ConfigSourceId }[]
  /** DescribeConfigs v3+ ConfigType id (ConfigTypeId). */
  type: number
  documentation: string
}

// ---------------------------------------------------------------------------------------------
// Parsing one value
// ---------------------------------------------------------------------------------------------

const INT_MIN = -2147483648
const INT_MAX = 2147483647
const LONG_MIN = -(2n ** 63n)
const LONG_MAX = 2n ** 63n - 1n
const LONG_MAX_TEXT = LONG_MAX.toString()

export interface ParsedConfigValue {
  value: unknown
  /** Canonical text, as DescribeConfigs shows it. */
  text: string
}

const TYPE_NAME: Record<ConfigType, string> = {
  int: 'a 32-bit integer',
  long: 'a 64-bit integer',
  double: 'a number',
  boolean: 'true or false',
  string: 'a string',
  list: 'a comma-separated list',
  password: 'a string',
  class: 'a class name',
}

function invalid(def: ConfigKeyDef, raw: unknown, where: string | undefined, expected: string): ConfigError {
  const shown = def.type === 'password' || def.sensitive ? '[hidden]' : JSON.stringify(String(raw))
  const from = where ? ` (from ${where})` : ''
  return new ConfigError(`Invalid value ${shown} for configuration ${def.name}${from}: expected ${expected}`, def.name, String(raw))
}

/** Formats a JS number that stands for a Kafka long; the clamped "never" prints as Long.MAX_VALUE. */
export function longText(n: number): string {
  if (n >= Number.MAX_SAFE_INTEGER) return LONG_MAX_TEXT
  if (n <= -Number.MAX_SAFE_INTEGER) return (-(2n ** 63n)).toString()
  return String(n)
}

function parseInteger(def: ConfigKeyDef, raw: string | number, where: string | undefined): ParsedConfigValue {
  const isLong = def.type === 'long'
  let big: bigint
  if (typeof raw === 'number') {
    if (!Number.isInteger(raw)) throw invalid(def, raw, where, TYPE_NAME[def.type])
    if (Math.abs(raw) > Number.MAX_SAFE_INTEGER) {
      // Already imprecise; only "never"-like magnitudes get here.
      big = raw > 0 ? LONG_MAX : LONG_MIN
    } else big = BigInt(raw)
  } else {
    const t = raw.trim()
    if (!/^[+-]?\d+$/.test(t)) throw invalid(def, raw, where, TYPE_NAME[def.type])
    big = BigInt(t)
  }
  const [lo, hi] = isLong ? [LONG_MIN, LONG_MAX] : [BigInt(INT_MIN), BigInt(INT_MAX)]
  if (big < lo || big > hi) throw invalid(def, raw, where, TYPE_NAME[def.type])
  const max = BigInt(Number.MAX_SAFE_INTEGER)
  const value = big > max ? Number.MAX_SAFE_INTEGER : big < -max ? -Number.MAX_SAFE_INTEGER : Number(big)
  return { value, text: big.toString() }
}

function parseRaw(def: ConfigKeyDef, raw: string | number | boolean, where: string | undefined): ParsedConfigValue {
  switch (def.type) {
    case 'int':
    case 'long':
      if (typeof raw === 'boolean') throw invalid(def, raw, where, TYPE_NAME[def.type])
      return parseInteger(def, raw, where)
    case 'double': {
      if (typeof raw === 'boolean') throw invalid(def, raw, where, TYPE_NAME.double)
      const t = typeof raw === 'number' ? raw : raw.trim() === '' ? Number.NaN : Number(raw.trim())
      if (!Number.isFinite(t)) throw invalid(def, raw, where, TYPE_NAME.double)
      return { value: t, text: typeof raw === 'number' ? String(raw) : raw.trim() }
    }
    case 'boolean': {
      if (typeof raw === 'boolean') return { value: raw, text: String(raw) }
      const t = String(raw).trim().toLowerCase()
      if (t !== 'true' && t !== 'false') throw invalid(def, raw, where, TYPE_NAME.boolean)
      return { value: t === 'true', text: t }
    }
    case 'list': {
      const t = String(raw).trim()
      if (t === '') return { value: [], text: '' }
      // Empty elements ("a,,b", a trailing comma) are dropped, as Kafka's parseCsvList does.
      const items = t
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '')
      return { value: items, text: items.join(',') }
    }
    default: {
      // string, password, class: trimmed, as Kafka's ConfigDef does.
      const t = String(raw).trim()
      return { value: t, text: t }
    }
  }
}

function validate(def: ConfigKeyDef, parsed: ParsedConfigValue, raw: unknown, where: string | undefined): void {
  const v = def.validator
  if (!v) return
  if (typeof parsed.value === 'number') {
    const n = parsed.value
    if ((v.min !== undefined && n < v.min) || (v.max !== undefined && n > v.max)) {
      const range =
        v.min !== undefined && v.max !== undefined
          ? `a value between ${v.min} and ${v.max}`
          : v.min !== undefined
            ? `a value at least ${v.min}`
            : `a value at most ${v.max}`
      throw invalid(def, raw, where, range)
    }
  }
  if (v.oneOf) {
    const items = Array.isArray(parsed.value) ? (parsed.value as string[]) : [parsed.value as string]
    for (const item of items) {
      if (!v.oneOf.includes(item)) {
        const what = Array.isArray(parsed.value) ? 'a list of' : 'one of'
        throw invalid(def, raw, where, `${what} ${v.oneOf.join(', ')}`)
      }
    }
  }
  if (v.check) {
    const expected = v.check(parsed.value)
    if (expected !== undefined) throw invalid(def, raw, where, expected)
  }
}

/** Parses and validates one value of a config key; throws ConfigError. */
export function parseConfigValue(def: ConfigKeyDef, raw: string | number | boolean, where?: string): ParsedConfigValue {
  const parsed = parseRaw(def, raw, where)
  validate(def, parsed, raw, where)
  return parsed
}

// ---------------------------------------------------------------------------------------------
// Lookups over the tables
// ---------------------------------------------------------------------------------------------

const BROKER_DEFS = new Map<string, ConfigKeyDef>(BROKER_CONFIG_DEFS.map((d) => [d.name, d]))
const TOPIC_DEFS = new Map<string, ConfigKeyDef>(TOPIC_CONFIG_DEFS.map((d) => [d.name, d]))
const SYNONYM_GROUP = new Map<string, readonly string[]>()
for (const g of BROKER_SYNONYM_GROUPS) for (const n of g) SYNONYM_GROUP.set(n, g)

/** Broker config name → topic config it supplies the default of. */
const BROKER_TO_TOPIC = new Map<string, string>()
for (const t of TOPIC_CONFIG_DEFS) {
  for (const s of (t as ConfigKeyDef).brokerSynonyms ?? []) BROKER_TO_TOPIC.set(s.name, t.name)
}

/** The broker table's defaults, parsed once (a bad default in the table fails at module load). */
export const BROKER_DEFAULTS: ReadonlyMap<string, { value: unknown; text: string | null }> = new Map(
  (BROKER_CONFIG_DEFS as readonly ConfigKeyDef[]).map((d) => [
    d.name,
    d.default === null ? { value: null, text: null } : parseConfigValue(d, d.default, 'built-in default'),
  ]),
)

/** The topic table's defaults (Kafka's LogConfig defaults), parsed once. */
export const TOPIC_TABLE_DEFAULTS: ReadonlyMap<string, ParsedConfigValue> = new Map(
  (TOPIC_CONFIG_DEFS as readonly ConfigKeyDef[]).map((d) => [d.name, parseConfigValue(d, d.default!, 'built-in default')]),
)

/** The definition of a broker config, or undefined for an unknown name. */
export function brokerConfigDef(name: string): ConfigKeyDef | undefined {
  return BROKER_DEFS.get(name)
}

/** The definition of a topic config, or undefined for an unknown name. */
export function topicConfigDef(name: string): ConfigKeyDef | undefined {
  return TOPIC_DEFS.get(name)
}

/** The topic config a broker config is the default of (log.retention.hours → retention.ms). */
export function topicNameOf(brokerConfigName: string): string | undefined {
  return BROKER_TO_TOPIC.get(brokerConfigName)
}

/**
 * Broker configs that AlterConfigs / IncrementalAlterConfigs may change at run time (KIP-226), as
 * Kafka's DynamicLogConfig allows: the first (highest-priority) broker synonym of every topic config
 * — log.retention.ms but not log.retention.hours, log.roll.ms but not log.roll.hours — which flow
 * into every topic without its own override. The connection quotas of Kafka's
 * DynamicConnectionQuota (max.connections, max.connections.per.ip and its overrides,
 * max.connection.creation.rate), which the acceptor reads for every new connection
 * (security/quota/connection-quotas.ts), and their listener-prefixed forms (LISTENER_DYNAMIC_CONFIGS).
 * Also the thread-pool sizes Kafka resizes live, which Tributary accepts and ignores (one event
 * loop). Kafka's other dynamic keys (listeners, SSL, cleaner threads) are read once at start in
 * Tributary, so it refuses them rather than store a change that would not take effect.
 */
export const DYNAMIC_BROKER_CONFIGS: ReadonlySet<string> = new Set([
  ...(TOPIC_CONFIG_DEFS as readonly ConfigKeyDef[]).flatMap((t) => (t.brokerSynonyms?.length ? [t.brokerSynonyms[0]!.name] : [])),
  'max.connections',
  'max.connections.per.ip',
  'max.connections.per.ip.overrides',
  'max.connection.creation.rate',
  'num.io.threads',
  'num.network.threads',
  'num.recovery.threads.per.data.dir',
])

/**
 * Keys that may change at run time for one listener, as `listener.name.<listener>.<key>` (Kafka's
 * ListenerConnectionQuota: the listener's own connection limit and creation rate).
 */
export const LISTENER_DYNAMIC_CONFIGS: ReadonlySet<string> = new Set(['max.connections', 'max.connection.creation.rate'])

const LISTENER_PREFIXED = /^listener\.name\.[^.]+\.(.+)$/

export function isDynamicBrokerConfig(name: string): boolean {
  if (DYNAMIC_BROKER_CONFIGS.has(name)) return true
  const base = LISTENER_PREFIXED.exec(name)?.[1]
  return base !== undefined && LISTENER_DYNAMIC_CONFIGS.has(base)
}

/** The broker configs standing for the same setting as `name`, highest priority first (or just it). */
export function brokerSynonymsOf(name: string): readonly string[] {
  return SYNONYM_GROUP.get(name) ?? [name]
}
