// Topic-level configs (CreateTopics, AlterConfigs, DescribeConfigs on a topic, and the values the
// storage layer runs each partition with). A topic config's value is, in order: the override set
// on the topic; else the first of its broker synonyms that the broker config sets (Kafka's
// ServerTopicConfigSynonyms order: log.retention.ms > log.retention.minutes > log.retention.hours,
// log.roll.ms > log.roll.hours, log.flush.interval.ms > log.flush.scheduler.interval.ms), converted
// to the topic's unit; else the default of the first synonym that has one (log.retention.hours =
// 168 → 604800000), else Kafka's LogConfig default. "Sets" includes the dynamic broker configs
// (KIP-226): a broker synonym's value is this broker's dynamic value, else the cluster-wide
// dynamic default, else the static one — so a dynamic log.retention.ms reaches every topic
// without its own retention.ms, as in Kafka.
import type { BrokerConfig } from './config.js'
import type { BrokerConfigName, ConfigKeyDef, TopicConfigName, TopicConfigValues } from './config-defs.js'
import { TOPIC_CONFIG_DEFS } from './config-defs.js'
import {
  BROKER_DEFAULTS,
  ConfigError,
  ConfigSource,
  type ConfigSourceId,
  type DescribedConfig,
  longText,
  type ParsedConfigValue,
  parseConfigValue,
  TOPIC_TABLE_DEFAULTS,
  TYPE_ID,
  topicConfigDef,
} from './config-values.js'

interface TopicDefaults {
  values: TopicConfigValues
  described: Map<string, DescribedConfig>
}

// A BrokerConfig is immutable: its topic defaults are computed once.
const cache = new WeakMap<BrokerConfig, TopicDefaults>()

function defaultsOf(c: BrokerConfig): TopicDefaults {
  let d = cache.get(c)
  if (!d) {
    d = computeTopicDefaults(c)
    cache.set(c, d)
  }
  return d
}

function computeTopicDefaults(c: BrokerConfig): TopicDefaults {
  const values: Record<string, unknown> = {}
  const described = new Map<string, DescribedConfig>()
  for (const t of TOPIC_CONFIG_DEFS as readonly ConfigKeyDef[]) {
    const synonyms: DescribedConfig['synonyms'] = []
    let chosen: { value: unknown; text: string; source: ConfigSourceId } | undefined
    // Explicitly set broker synonyms: the value comes from the highest-priority name that is set
    // (log.retention.ms > .minutes > .hours), at its highest level; the synonyms are listed level
    // by level (dynamic broker, dynamic default, static), by priority within a level, as Kafka does.
    const set: Array<{ name: string; text: string | null; source: ConfigSourceId }> = []
    for (const s of t.brokerSynonyms ?? []) {
      const name = s.name as BrokerConfigName
      if (!c.isSet(name) || c.get(name) === null) continue
      for (const l of c.layered(name)) set.push({ name: s.name, ...l })
      chosen ??= { ...scaled(t, c.get(name), s.factor), source: c.sourceOf(name) }
    }
    set.sort((a, b) => a.source - b.source) // stable: priority order kept within a level
    for (const l of set) synonyms.push({ name: l.name, value: l.text, source: l.source })
    // Then the first synonym with a built-in default (log.retention.hours = 168), else the table.
    let dflt: ParsedConfigValue | undefined
    for (const s of t.brokerSynonyms ?? []) {
      const d = BROKER_DEFAULTS.get(s.name)!
      if (d.value === null) continue
      synonyms.push({ name: s.name, value: d.text, source: ConfigSource.DEFAULT_CONFIG })
      dflt = scaled(t, d.value, s.factor)
      break
    }
    dflt ??= TOPIC_TABLE_DEFAULTS.get(t.name)!
    chosen ??= { ...dflt, source: ConfigSource.DEFAULT_CONFIG }
    values[t.name] = chosen.value
    described.set(t.name, {
      name: t.name,
      value: chosen.text,
      source: chosen.source,
      readOnly: false,
      isDefault: chosen.source === ConfigSource.DEFAULT_CONFIG,
      isSensitive: false,
      synonyms,
      type: TYPE_ID[t.type],
      documentation: t.doc,
    })
  }
  return { values: values as TopicConfigValues, described }
}

/** A broker value in topic units: hours/minutes → ms; Kafka turns any negative retention into -1. */
function scaled(t: ConfigKeyDef, value: unknown, factor: number | undefined): ParsedConfigValue {
  if (factor === undefined || typeof value !== 'number') {
    if (t.type === 'long' && typeof value === 'number') return { value, text: longText(value) }
    if (Array.isArray(value)) return { value, text: value.join(',') }
    return { value, text: String(value) }
  }
  const ms = value < 0 ? -1 : Math.min(value * factor, Number.MAX_SAFE_INTEGER)
  return { value: ms, text: longText(ms) }
}

/** Topic-level values implied by the broker config (retention.ms from log.retention.hours, …). */
export function topicDefaults(config: BrokerConfig): TopicConfigValues {
  return defaultsOf(config).values
}

/**
 * Validates one topic config (CreateTopics / AlterConfigs) and returns its canonical text.
 * Unknown name or invalid value → ConfigError (INVALID_CONFIG), with Kafka's wording for unknown names.
 */
export function validateTopicConfig(name: string, value: string): string {
  const def = topicConfigDef(name)
  if (!def) throw new ConfigError(`Unknown topic config name: ${name}`, name, value)
  return parseConfigValue(def, value).text
}

/**
 * Validates a topic's whole override set against the broker defaults; returns the canonical texts.
 * Also checks rules across keys (Kafka's LogConfig.validateValues: min.compaction.lag.ms ≤
 * max.compaction.lag.ms).
 */
export function validateTopicConfigs(configs: Readonly<Record<string, string>>, broker?: BrokerConfig): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(configs)) out[k] = validateTopicConfig(k, v)
  const resolved = broker ? resolveTopicConfig(broker, out) : overTableDefaults(out)
  if (resolved['min.compaction.lag.ms'] > resolved['max.compaction.lag.ms']) {
    throw new ConfigError(
      `conflict topic config setting min.compaction.lag.ms (${resolved['min.compaction.lag.ms']}) > max.compaction.lag.ms (${resolved['max.compaction.lag.ms']})`,
      'min.compaction.lag.ms',
      String(resolved['min.compaction.lag.ms']),
    )
  }
  return out
}

/** Overrides over Kafka's LogConfig defaults, for validation without a broker config at hand. */
function overTableDefaults(overrides: Readonly<Record<string, string>>): TopicConfigValues {
  const out: Record<string, unknown> = {}
  for (const [k, v] of TOPIC_TABLE_DEFAULTS) out[k] = v.value
  for (const [k, v] of Object.entries(overrides)) {
    const def = topicConfigDef(k)
    if (def) out[k] = parseConfigValue(def, v).value
  }
  return out as TopicConfigValues
}

/** The effective configuration of a topic: its overrides over the broker-derived defaults. */
export function resolveTopicConfig(config: BrokerConfig, overrides: Readonly<Record<string, string>>): TopicConfigValues {
  const base = topicDefaults(config)
  const keys = Object.keys(overrides)
  if (keys.length === 0) return base
  const out: Record<string, unknown> = { ...base }
  for (const k of keys) {
    const def = topicConfigDef(k)
    if (!def) continue // stored overrides were validated on write; tolerate keys a newer version knows
    out[k] = parseConfigValue(def, overrides[k]!, `topic config ${k}`).value
  }
  return out as TopicConfigValues
}

/**
 * DescribeConfigs for a topic: every topic config with its value and source — TOPIC_CONFIG when set
 * on the topic, STATIC_BROKER_CONFIG when taken from a broker synonym set in the broker's config,
 * DEFAULT_CONFIG otherwise — and its synonyms in priority order. `names` restricts the answer
 * (unknown names are left out, as Kafka does).
 */
export function describeTopicConfig(
  config: BrokerConfig,
  overrides: Readonly<Record<string, string>>,
  names?: readonly string[] | null,
): DescribedConfig[] {
  const { described } = defaultsOf(config)
  const wanted = names && names.length > 0 ? names : TOPIC_CONFIG_DEFS.map((d) => d.name)
  const out: DescribedConfig[] = []
  for (const name of wanted) {
    const base = described.get(name)
    if (!base) continue
    const o = overrides[name]
    if (o === undefined) {
      out.push({ ...base, synonyms: [...base.synonyms] })
      continue
    }
    const def = topicConfigDef(name)!
    let text = o
    try {
      text = parseConfigValue(def, o).text
    } catch {
      // Describe what is stored even if a later version would refuse it.
    }
    out.push({
      ...base,
      value: text,
      source: ConfigSource.TOPIC_CONFIG,
      isDefault: false,
      synonyms: [{ name, value: text, source: ConfigSource.TOPIC_CONFIG }, ...base.synonyms],
    })
  }
  return out
}

/** The effective value of one topic config as text (its override, else the broker-derived default). */
export function topicConfigText(config: BrokerConfig, overrides: Readonly<Record<string, string>>, name: string): string | undefined {
  return describeTopicConfig(config, overrides, [name])[0]?.value ?? undefined
}

/** Names of every topic config (sorted as in the table). */
export function topicConfigNames(): TopicConfigName[] {
  return TOPIC_CONFIG_DEFS.map((d) => d.name)
}
