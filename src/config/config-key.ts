// What a configuration key is (name, type, Kafka-style default, bounds, scope, synonyms), and the
// values and checks several key tables share. The tables are broker-keys.ts, log-keys.ts and
// topic-keys.ts; config-defs.ts puts them together and derives the types.

export type ConfigType = 'int' | 'long' | 'double' | 'boolean' | 'string' | 'list' | 'password' | 'class'

export interface ConfigValidator {
  /** Inclusive numeric bounds (int, long, double). */
  readonly min?: number
  readonly max?: number
  /** Allowed values (string); for lists, allowed elements. Compared case-sensitively, like Kafka. */
  readonly oneOf?: readonly string[]
  /** Extra check on the parsed value: returns what was expected when the value is refused. */
  readonly check?: (value: any) => string | undefined
}

export interface TopicSynonym {
  /** Broker config name. */
  readonly name: string
  /** Multiplier turning the broker value into the topic unit (hours → ms = 3_600_000). */
  readonly factor?: number
}

export interface ConfigKeyDef {
  readonly name: string
  readonly type: ConfigType
  /** Kafka-style text of the default, or null when the key has no default (unset). */
  readonly default: string | null
  readonly validator?: ConfigValidator
  readonly doc: string
  readonly scope: 'broker' | 'topic'
  /** Topic configs: the broker configs supplying the default, highest priority first (Kafka's order). */
  readonly brokerSynonyms?: readonly TopicSynonym[]
  /** Value is never shown (DescribeConfigs answers null). Passwords are always sensitive. */
  readonly sensitive?: boolean
  /** Accepted for Kafka compatibility; has no effect in Tributary. */
  readonly ignored?: boolean
}

export const LONG_MAX = '9223372036854775807'
export const INT_MAX = '2147483647'
export const HOUR_MS = 3_600_000
export const MINUTE_MS = 60_000

export const SECURITY_PROTOCOLS = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'] as const
export const COMPRESSION_TYPES = ['uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer'] as const
export const TIMESTAMP_TYPES = ['CreateTime', 'LogAppendTime'] as const
export const CLEANUP_POLICIES = ['compact', 'delete'] as const

// Compression levels (KIP-390): gzip 1..9 or -1 (zlib's default), lz4 1..17, zstd -131072..22.
export const gzipLevel = (v: number) => (v === -1 || (v >= 1 && v <= 9) ? undefined : '-1 or a level from 1 to 9')

// etcd.endpoints: URLs as the etcd client takes them; etcd.prefix: an absolute key path.
export const etcdEndpoints = (v: readonly string[]) =>
  v.every((e) => /^https?:\/\/[^\s/]+\/?$/.test(e)) ? undefined : 'a comma-separated list of http://host:port URLs'
export const etcdPrefix = (v: string) => (/^\/\S*$/.test(v) ? undefined : 'a key path starting with / and without spaces')

/**
 * max.connections.per.ip.overrides: `host:count` pairs separated by commas (Kafka's
 * Csv.parseCsvMap: split at the last colon, so an IPv6 address needs no brackets; the count is any
 * int, as Integer.parseInt takes it). Throws with what was wrong; "" is no override.
 */
export function parseConnectionOverrides(text: string): Map<string, number> {
  const out = new Map<string, number>()
  if (text === '') return out
  for (const entry of text.split(/\s*,\s*/)) {
    const colon = entry.lastIndexOf(':')
    const host = entry.slice(0, colon).trim()
    const count = entry.slice(colon + 1).trim()
    if (colon < 0) throw new Error(`"${entry}" is not a host:count pair`)
    const n = /^[+-]?\d+$/.test(count) ? Number(count) : Number.NaN
    if (!Number.isSafeInteger(n) || n < -2147483648 || n > 2147483647) throw new Error(`"${count}" is not a 32-bit integer`)
    out.set(host, n)
  }
  return out
}

export const connectionOverrides = (v: string) => {
  try {
    parseConnectionOverrides(v)
    return undefined
  } catch (err) {
    return `host:count pairs separated by commas (${(err as Error).message})`
  }
}
