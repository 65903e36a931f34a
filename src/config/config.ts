// Broker configuration: Kafka's property names and defaults (docs/architecture.md §1.7), from four sources.
//
// Precedence, lowest to highest: table defaults (config-defs.ts) < server.properties file <
// TRIBUTARY_* environment variables < programmatic values (startBroker({config})) < --override flags.
//
// Environment: TRIBUTARY_LOG_RETENTION_HOURS=1 sets log.retention.hours. After the prefix the name
// is lower-cased and `_` becomes `.`; like the Apache Kafka Docker image, `__` stands for a literal
// `_` and `___` for `-` (so a key containing underscores can still be set, spelled with doubles).
// When `env` is not given, process.env is read; pass `{}` to ignore the environment.
//
// Unknown keys are not an error (a Kafka server.properties must be reusable): they come back as
// warnings for the caller to log, like Kafka's "supplied but isn't a known config". An invalid
// value of a known key throws ConfigError naming the key, the value, where it came from and what
// was expected. Resolved afterwards, like Kafka's KafkaConfig: node.id/broker.id, log.dirs/log.dir,
// listeners/advertised.listeners, the inter-broker listener, retention/roll precedence (topic
// configs take the first broker synonym that is set: log.retention.ms > .minutes > .hours,
// log.roll.ms > log.roll.hours, log.flush.interval.ms > log.flush.scheduler.interval.ms; see
// topic-config.ts). Value parsing and the DescribeConfigs vocabulary live in config-values.ts.
//
// Dynamic broker configs (KIP-226, set with AlterConfigs / IncrementalAlterConfigs on a BROKER
// resource and kept in the metadata store) sit above all of these, as in Kafka: a per-broker value
// beats the cluster-wide default, which beats the static config. A BrokerConfig stays immutable:
// withDynamic() returns a new one with both dynamic layers over the same static settings
// (config-dynamic.ts says which keys may be dynamic).
import { type ParsedListener, parseListeners, parseSecurityProtocolMap } from '../network/listeners.js'
import { type Fs, nodeFs } from '../storage/fs.js'
import { brokerKeyDef, listenerScopedKey, parseListenerScopedKey } from './listener-scoped.js'
import { PropertiesSyntaxError, parsePropertiesEntries } from '../util/properties.js'
import { BROKER_CONFIG_DEFS, type BrokerConfigName, type BrokerConfigValue, type ConfigKeyDef } from './config-defs.js'
import {
  BROKER_DEFAULTS,
  brokerConfigDef,
  brokerSynonymsOf,
  ConfigError,
  ConfigSource,
  type ConfigSourceId,
  type DescribedConfig,
  isDynamicBrokerConfig,
  parseConfigValue,
  TYPE_ID,
  topicConfigDef,
} from './config-values.js'

// One import path for the key table and value vocabulary. Topic configs (topic-config.ts) are
// imported from their own file: they are derived from a BrokerConfig, so re-exporting them here
// would tie the two files in a circle.
export * from './config-defs.js'
export * from './config-values.js'

/** Where a broker config value came from. */
export type ConfigOrigin =
  | 'default'
  | 'file'
  | 'env'
  | 'programmatic'
  | 'override'
  /** KIP-226 cluster-wide default (resource name ""). */
  | 'dynamic-default'
  /** KIP-226 per-broker value (resource name = this node id). */
  | 'dynamic-broker'

/** A parsed listener: upper-cased name, protocol, host (0.0.0.0 = all interfaces), port (0 = any). */
export type Listener = ParsedListener

// ---------------------------------------------------------------------------------------------
// BrokerConfig
// ---------------------------------------------------------------------------------------------

export interface ConfigSetting {
  value: unknown
  text: string | null
  origin: ConfigOrigin
}

// The broker table's defaults, as settings.
const DEFAULTS = new Map<string, ConfigSetting>()
for (const [name, p] of BROKER_DEFAULTS) DEFAULTS.set(name, { ...p, origin: 'default' })

/** The two KIP-226 layers, as parsed settings. */
interface DynamicLayers {
  clusterDefault: ReadonlyMap<string, ConfigSetting>
  broker: ReadonlyMap<string, ConfigSetting>
}
const NO_DYNAMIC: DynamicLayers = { clusterDefault: new Map(), broker: new Map() }

/** A value of one key at one level, for synonym lists: dynamic broker, dynamic default, static. */
export interface LayeredValue {
  text: string | null
  source: ConfigSourceId
}

export class BrokerConfig {
  /** Effective node id (node.id, else broker.id). */
  readonly nodeId: number
  /** Data directories: log.dirs, else [log.dir]. */
  readonly logDirs: readonly string[]
  /** Listeners to bind, without the KRaft controller listeners named in controller.listener.names. */
  readonly listeners: readonly Listener[]
  /** Listeners given to clients; wildcard hosts replaced by 127.0.0.1. Port 0: use the bound port. */
  readonly advertisedListeners: readonly Listener[]
  /** Listener used between brokers (replication). */
  readonly interBrokerListenerName: string

  private constructor(
    private readonly settings: Map<string, ConfigSetting>,
    /** The settings without the dynamic layers (what the file, environment and flags gave). */
    private readonly staticSettings: Map<string, ConfigSetting> = settings,
    private readonly dynamic: DynamicLayers = NO_DYNAMIC,
  ) {
    this.nodeId = this.get('node.id')
    this.logDirs = this.get('log.dirs') ?? [this.get('log.dir')]
    if (this.logDirs.length === 0) throw new ConfigError('log.dirs is empty: give at least one directory', 'log.dirs', '')
    const { listeners, advertised, interBroker } = resolveListeners(this)
    this.listeners = listeners
    this.advertisedListeners = advertised
    this.interBrokerListenerName = interBroker
  }

  /** @internal Builds from explicitly set values (already parsed); resolves synonyms and checks cross-key rules. */
  static fromSettings(explicit: Map<string, ConfigSetting>): BrokerConfig {
    const settings = new Map(DEFAULTS)
    for (const [k, s] of explicit) settings.set(k, s)
    // node.id and broker.id are one setting (KRaft: broker.id defaults to node.id).
    const node = explicit.get('node.id')
    const broker = explicit.get('broker.id')
    if (node && broker && node.value !== broker.value) {
      throw new ConfigError(
        `node.id (${node.text}) and broker.id (${broker.text}) are both set and differ; set only node.id`,
        'broker.id',
        broker.text ?? '',
      )
    }
    if (node && !broker) settings.set('broker.id', node)
    if (broker && !node) settings.set('node.id', broker)
    checkCrossKeyRules(settings)
    return new BrokerConfig(settings)
  }

  /**
   * This config's static settings under the given dynamic layers (each a full set: name → text).
   * Throws ConfigError for an unknown name, an invalid value or a broken cross-key rule; which
   * keys may be dynamic is the caller's check (config-dynamic.ts).
   */
  withDynamic(clusterDefault: Readonly<Record<string, string>>, broker: Readonly<Record<string, string>>): BrokerConfig {
    const parseLayer = (set: Readonly<Record<string, string>>, origin: ConfigOrigin, where: string) => {
      const out = new Map<string, ConfigSetting>()
      for (const [k, raw] of Object.entries(set)) {
        const def = brokerKeyDef(k)
        if (!def) throw new ConfigError(`Unknown broker config name: ${k}`, k, raw)
        const p = parseConfigValue(def, raw, where)
        out.set(k, { value: p.value, text: p.text, origin })
      }
      return out
    }
    const layers: DynamicLayers = {
      clusterDefault: parseLayer(clusterDefault, 'dynamic-default', 'the cluster-wide dynamic config'),
      broker: parseLayer(broker, 'dynamic-broker', 'the dynamic config of this broker'),
    }
    const merged = new Map(this.staticSettings)
    for (const [k, v] of layers.clusterDefault) merged.set(k, v)
    for (const [k, v] of layers.broker) merged.set(k, v)
    checkCrossKeyRules(merged)
    return new BrokerConfig(merged, this.staticSettings, layers)
  }

  /** The texts of one dynamic layer (KIP-226): 'default' is resource "", 'broker' this node's. */
  dynamicTexts(level: 'default' | 'broker'): Record<string, string> {
    const layer = level === 'default' ? this.dynamic.clusterDefault : this.dynamic.broker
    const out: Record<string, string> = {}
    for (const [k, s] of layer) out[k] = s.text ?? ''
    return out
  }

  /**
   * Where the key is set, highest level first: this broker's dynamic value, the cluster-wide
   * dynamic default, the static value. Empty when only the built-in default applies.
   */
  layered(name: string): LayeredValue[] {
    const out: LayeredValue[] = []
    const b = this.dynamic.broker.get(name)
    if (b) out.push({ text: b.text, source: ConfigSource.DYNAMIC_BROKER_CONFIG })
    const d = this.dynamic.clusterDefault.get(name)
    if (d) out.push({ text: d.text, source: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG })
    const s = this.staticSettings.get(name)
    if (s && s.origin !== 'default') out.push({ text: s.text, source: ConfigSource.STATIC_BROKER_CONFIG })
    return out
  }

  /** The DescribeConfigs source of the key's current value. */
  sourceOf(name: string): ConfigSourceId {
    return SOURCE_OF_ORIGIN[this.settings.get(name)?.origin ?? 'default']
  }

  /** The typed value of a broker config (null for an unset key without default). */
  get<N extends BrokerConfigName>(name: N): BrokerConfigValue<N> {
    const s = this.settings.get(name)
    if (!s) throw new Error(`unknown broker config ${name}`)
    return s.value as BrokerConfigValue<N>
  }

  /**
   * A key's value for one listener, and mechanism (listener-scoped.ts): the most specific of
   * listener.name.<l>.<mechanism>.<key>, listener.name.<l>.<key> and <key> that is set.
   */
  listenerValue<N extends BrokerConfigName>(listener: string, name: N, mechanism?: string): BrokerConfigValue<N> {
    const keys = mechanism ? [listenerScopedKey(listener, name, mechanism)] : []
    keys.push(listenerScopedKey(listener, name))
    for (const k of keys) {
      const s = this.settings.get(k)
      if (s) return s.value as BrokerConfigValue<N>
    }
    return this.get(name)
  }

  /** The key listenerValue() took its value from (for error messages). */
  listenerKey(listener: string, name: BrokerConfigName, mechanism?: string): string {
    if (mechanism && this.settings.has(listenerScopedKey(listener, name, mechanism))) {
      return listenerScopedKey(listener, name, mechanism)
    }
    return this.settings.has(listenerScopedKey(listener, name)) ? listenerScopedKey(listener, name) : name
  }

  /** True when the key was given by a file, the environment, the program or an override. */
  isSet(name: BrokerConfigName): boolean {
    return this.settings.get(name)!.origin !== 'default'
  }

  origin(name: BrokerConfigName): ConfigOrigin {
    return this.settings.get(name)!.origin
  }

  /** Canonical text of a value, as DescribeConfigs shows it (null when unset). */
  text(name: BrokerConfigName): string | null {
    return this.settings.get(name)!.text
  }

  /**
   * Every broker config, in table order, as DescribeConfigs on a broker lists them; then the
   * listener-prefixed keys that are set (listener.name.<l>.max.connections, …), as Kafka lists them.
   */
  entries(): DescribedConfig[] {
    const out = (BROKER_CONFIG_DEFS as readonly ConfigKeyDef[]).map((d) => this.describeKey(d))
    for (const name of this.settings.keys()) {
      if (brokerConfigDef(name)) continue
      const d = brokerKeyDef(name)
      if (d) out.push(this.describeKey(d))
    }
    return out
  }

  /** DescribeConfigs on this broker: every config, or only `names` (unknown names left out, as Kafka does). */
  describeKeys(names?: readonly string[] | null): DescribedConfig[] {
    if (!names || names.length === 0) return this.entries()
    const out: DescribedConfig[] = []
    for (const n of names) {
      const d = this.describe(n)
      if (d) out.push(d)
    }
    return out
  }

  /** One broker config as DescribeConfigs shows it, or undefined for an unknown name. */
  describe(name: string): DescribedConfig | undefined {
    const d = brokerKeyDef(name)
    return d && this.settings.has(name) ? this.describeKey(d) : undefined
  }

  /**
   * DescribeConfigs on the cluster-wide default (resource name ""): only the keys set at that
   * level (or only `names` among them), each with its dynamic default value and, as Kafka answers
   * there, only the synonyms of that level.
   */
  describeDynamicDefaults(names?: readonly string[] | null): DescribedConfig[] {
    const wanted = names && names.length > 0 ? names : [...this.dynamic.clusterDefault.keys()]
    const out: DescribedConfig[] = []
    for (const n of wanted) {
      const s = this.dynamic.clusterDefault.get(n)
      const d = brokerKeyDef(n)
      if (!s || !d) continue
      const full = this.describeKey(d)
      out.push({
        ...full,
        value: full.isSensitive ? null : s.text,
        source: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG,
        isDefault: false,
        synonyms: full.synonyms.filter((y) => y.source === ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG),
      })
    }
    return out
  }

  private describeKey(d: ConfigKeyDef): DescribedConfig {
    const s = this.settings.get(d.name)!
    const sensitive = d.type === 'password' || d.sensitive === true
    const source = SOURCE_OF_ORIGIN[s.origin]
    // Kafka's order: every level first (this broker's dynamic value, the dynamic default, the
    // static config), and within a level the synonyms by priority; then the built-in default.
    // A listener-prefixed key's synonyms: itself, then its base key's (Kafka's listener synonyms).
    const base = brokerConfigDef(d.name) ? undefined : parseListenerScopedKey(d.name)?.def.name
    const names = base === undefined ? brokerSynonymsOf(d.name) : [d.name, ...brokerSynonymsOf(base)]
    const set: Array<LayeredValue & { name: string }> = []
    for (const n of names) for (const l of this.layered(n)) set.push({ name: n, ...l })
    set.sort((a, b) => a.source - b.source) // stable: names keep their priority order within a level
    const synonyms: DescribedConfig['synonyms'] = set.map((l) => ({
      name: l.name,
      value: sensitive ? null : l.text,
      source: l.source,
    }))
    for (const n of names) {
      const def = DEFAULTS.get(n)
      if (def !== undefined && def.text !== null) {
        synonyms.push({ name: n, value: sensitive ? null : def.text, source: ConfigSource.DEFAULT_CONFIG })
        break
      }
    }
    return {
      name: d.name,
      value: sensitive ? null : s.text,
      source,
      readOnly: !isDynamicBrokerConfig(d.name),
      isDefault: s.origin === 'default',
      isSensitive: sensitive,
      synonyms,
      type: TYPE_ID[d.type],
      documentation: d.doc,
    }
  }
}

const SOURCE_OF_ORIGIN: Record<ConfigOrigin, ConfigSourceId> = {
  default: ConfigSource.DEFAULT_CONFIG,
  file: ConfigSource.STATIC_BROKER_CONFIG,
  env: ConfigSource.STATIC_BROKER_CONFIG,
  programmatic: ConfigSource.STATIC_BROKER_CONFIG,
  override: ConfigSource.STATIC_BROKER_CONFIG,
  'dynamic-default': ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG,
  'dynamic-broker': ConfigSource.DYNAMIC_BROKER_CONFIG,
}

/** Rules across keys, checked on the static config and again under dynamic layers. */
function checkCrossKeyRules(settings: ReadonlyMap<string, ConfigSetting>): void {
  const get = (k: string) => settings.get(k)!.value as number
  if (get('group.min.session.timeout.ms') > get('group.max.session.timeout.ms')) {
    throw new ConfigError(
      `group.min.session.timeout.ms (${get('group.min.session.timeout.ms')}) must not exceed group.max.session.timeout.ms (${get('group.max.session.timeout.ms')})`,
      'group.min.session.timeout.ms',
      String(get('group.min.session.timeout.ms')),
    )
  }
  // Kafka's KafkaConfig.validateValues: a per-ip maximum of 0 is only for "everyone but the overrides".
  if (get('max.connections.per.ip') === 0 && settings.get('max.connections.per.ip.overrides')!.value === '') {
    throw new ConfigError(
      'max.connections.per.ip can be set to zero only if max.connections.per.ip.overrides property is set.',
      'max.connections.per.ip',
      '0',
    )
  }
  if (get('log.cleaner.min.compaction.lag.ms') > get('log.cleaner.max.compaction.lag.ms')) {
    throw new ConfigError(
      'log.cleaner.min.compaction.lag.ms must not exceed log.cleaner.max.compaction.lag.ms',
      'log.cleaner.min.compaction.lag.ms',
      String(get('log.cleaner.min.compaction.lag.ms')),
    )
  }
}

// Listener syntax (NAME://host:port, IPv6 in brackets, names upper-cased, the protocol map) is
// parsed by network/listeners.ts, the one parser of it; its errors become ConfigErrors naming the key.
const WILDCARD_HOSTS = new Set(['', '0.0.0.0', '::'])

function resolveListeners(c: BrokerConfig): {
  listeners: Listener[]
  advertised: Listener[]
  interBroker: string
} {
  const fail = (key: BrokerConfigName, expected: string) =>
    new ConfigError(`Invalid value ${JSON.stringify(c.text(key) ?? '')} for configuration ${key}: ${expected}`, key, c.text(key) ?? '')
  const mapText = c.text('listener.security.protocol.map') ?? ''
  const controllerNames = new Set((c.get('controller.listener.names') ?? []).map((n) => n.toUpperCase()))
  // KRaft controller listeners are not ours to bind or advertise (and need no protocol mapping).
  const isController = (entry: string) => controllerNames.has(entry.split('://')[0]!.trim().toUpperCase())
  const parse = (key: 'listeners' | 'advertised.listeners'): Listener[] => {
    try {
      parseSecurityProtocolMap(mapText)
    } catch (err) {
      throw fail('listener.security.protocol.map', (err as Error).message)
    }
    const entries = (c.get(key) ?? []).filter((e) => !isController(e))
    if (entries.length === 0) throw fail(key, 'expected at least one listener that is not a controller listener')
    try {
      return parseListeners(entries.join(','), mapText)
    } catch (err) {
      throw fail(key, (err as Error).message)
    }
  }

  const listeners = parse('listeners')

  let advertised: Listener[]
  if (c.get('advertised.listeners') === null) {
    advertised = listeners.map((l) => (WILDCARD_HOSTS.has(l.host) ? { ...l, host: '127.0.0.1' } : { ...l }))
  } else {
    advertised = parse('advertised.listeners')
    for (const l of advertised) {
      if (WILDCARD_HOSTS.has(l.host)) {
        throw fail('advertised.listeners', `${l.name} advertises the non-routable address "${l.host}" (Kafka refuses it too)`)
      }
      const bound = listeners.find((b) => b.name === l.name)
      if (!bound) throw fail('advertised.listeners', `${l.name} is not one of the listeners`)
      if (l.port === 0) l.port = bound.port
    }
  }

  // Kafka: inter.broker.listener.name, else the listener named like security.inter.broker.protocol.
  // Unlike Kafka we fall back to the first listener with that protocol, then the first listener,
  // so a single custom-named listener works without more settings.
  let interBroker: string
  const ibName = c.get('inter.broker.listener.name')
  if (ibName !== null) {
    if (c.isSet('security.inter.broker.protocol')) {
      throw new ConfigError(
        'Only one of inter.broker.listener.name and security.inter.broker.protocol may be set',
        'security.inter.broker.protocol',
        c.text('security.inter.broker.protocol') ?? '',
      )
    }
    interBroker = ibName.toUpperCase()
    if (!advertised.some((l) => l.name === interBroker)) {
      throw fail('inter.broker.listener.name', `expected a listener name from advertised.listeners; ${interBroker} is not`)
    }
  } else {
    const proto = c.get('security.inter.broker.protocol')
    interBroker = (advertised.find((l) => l.name === proto) ?? advertised.find((l) => l.securityProtocol === proto) ?? advertised[0]!).name
  }
  return { listeners, advertised, interBroker }
}

// ---------------------------------------------------------------------------------------------
// Loading
// ---------------------------------------------------------------------------------------------

export interface LoadBrokerConfigOptions {
  /** Path of a server.properties file. */
  file?: string
  /** --override values: a map, or `key=value` strings. */
  overrides?: Record<string, string> | readonly string[]
  /** Environment to read TRIBUTARY_* variables from; default process.env, `{}` to ignore it. */
  env?: NodeJS.ProcessEnv
  /** Programmatic values (startBroker({config})). */
  values?: Record<string, string | number | boolean>
  /** File system port used to read `file` (tests). */
  fs?: Fs
}

export interface LoadedBrokerConfig {
  config: BrokerConfig
  /** Unknown keys and similar notes, one line each, for the caller to log at WARN. */
  warnings: string[]
}

export const ENV_PREFIX = 'TRIBUTARY_'

/** TRIBUTARY_LOG_RETENTION_HOURS → log.retention.hours; `__` → `_`, `___` → `-`. Undefined if not ours. */
export function envVarToConfigKey(name: string): string | undefined {
  if (!name.startsWith(ENV_PREFIX) || name.length === ENV_PREFIX.length) return undefined
  return name
    .slice(ENV_PREFIX.length)
    .toLowerCase()
    .split('___')
    .map((dashPart) =>
      dashPart
        .split('__')
        .map((p) => p.replaceAll('_', '.'))
        .join('_'),
    )
    .join('-')
}

/** log.retention.hours → TRIBUTARY_LOG_RETENTION_HOURS (inverse of envVarToConfigKey). */
export function configKeyToEnvVar(key: string): string {
  return ENV_PREFIX + key.replace(/_/g, '__').replace(/-/g, '___').replace(/\./g, '_').toUpperCase()
}

/** Splits `key=value` (at the first `=`); throws ConfigError when there is no `=`. */
export function parseOverride(arg: string): [string, string] {
  const i = arg.indexOf('=')
  if (i <= 0) throw new ConfigError(`Invalid override "${arg}": expected key=value`)
  return [arg.slice(0, i).trim(), arg.slice(i + 1)]
}

export interface RawConfigSetting {
  key: string
  raw: string | number | boolean
  origin: ConfigOrigin
  where: string
}

/** Builds a BrokerConfig synchronously from already-read sources (no file, no environment by default). */
export function buildBrokerConfig(
  opts: Omit<LoadBrokerConfigOptions, 'file' | 'fs'> & { fileEntries?: RawConfigSetting[] } = {},
): LoadedBrokerConfig {
  const raws: RawConfigSetting[] = [...(opts.fileEntries ?? [])]
  const env = opts.env ?? {}
  for (const name of Object.keys(env).sort()) {
    const key = envVarToConfigKey(name)
    const v = env[name]
    if (key !== undefined && v !== undefined) {
      raws.push({ key, raw: v, origin: 'env', where: `environment variable ${name}` })
    }
  }
  for (const [key, raw] of Object.entries(opts.values ?? {})) {
    if (raw === undefined || raw === null) continue
    raws.push({ key, raw, origin: 'programmatic', where: 'startBroker config' })
  }
  const ov = opts.overrides
  const overridePairs: [string, string][] = Array.isArray(ov)
    ? (ov as readonly string[]).map(parseOverride)
    : Object.entries((ov ?? {}) as Record<string, string>)
  for (const [key, raw] of overridePairs) raws.push({ key, raw, origin: 'override', where: `--override ${key}` })

  const warnings: string[] = []
  const explicit = new Map<string, ConfigSetting>()
  for (const r of raws) {
    // listener.name.<l>.[<mechanism>.]<key> is kept under its full name, parsed as <key>.
    const def = brokerKeyDef(r.key)
    if (!def) {
      const t = topicConfigDef(r.key)
      const hint = t?.brokerSynonyms?.length ? ` (the broker-wide setting is ${t.brokerSynonyms[0]!.name})` : ''
      warnings.push(`The configuration '${r.key}' (from ${r.where}) was supplied but isn't a known config; ignored${hint}`)
      continue
    }
    const p = parseConfigValue(def, r.raw, r.where)
    explicit.set(r.key, { value: p.value, text: p.text, origin: r.origin })
  }
  return { config: BrokerConfig.fromSettings(explicit), warnings }
}

/** Reads server.properties (if any), TRIBUTARY_* variables, values and overrides; see the header. */
export async function loadBrokerConfig(opts: LoadBrokerConfigOptions = {}): Promise<LoadedBrokerConfig> {
  const fileEntries: RawConfigSetting[] = []
  if (opts.file !== undefined) {
    let text: string
    try {
      text = (await (opts.fs ?? nodeFs).readFile(opts.file)).toString('utf8')
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      throw new ConfigError(`Cannot read config file ${opts.file}: ${code ?? (err as Error).message}`)
    }
    try {
      for (const e of parsePropertiesEntries(text)) {
        fileEntries.push({ key: e.key, raw: e.value, origin: 'file', where: `${opts.file} line ${e.line}` })
      }
    } catch (err) {
      if (err instanceof PropertiesSyntaxError) throw new ConfigError(`Config file ${opts.file} ${err.message}`)
      throw err
    }
  }
  return buildBrokerConfig({
    fileEntries,
    env: opts.env ?? process.env,
    ...(opts.values ? { values: opts.values } : {}),
    ...(opts.overrides ? { overrides: opts.overrides } : {}),
  })
}

/** A BrokerConfig with every key at its default plus `values` (tests, embedded use). */
export function defaultBrokerConfig(values: Record<string, string | number | boolean> = {}): BrokerConfig {
  return buildBrokerConfig({ values }).config
}
