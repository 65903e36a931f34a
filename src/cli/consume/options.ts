// Options of `tributary consume`: parsers for single values (a bad value is a usage error, exit 2)
// and the checks that span several options, turning commander's output into ConsumeSettings.
import { InvalidArgumentError } from 'commander'
import type { ConsumedRecord, IsolationLevel } from '../../client/consumer.js'
import { ACK_KINDS, type AckKind } from '../../client/share-acks.js'
import { type ConnectionOptions, UsageError } from '../common.js'
import { compileTemplate, DEFAULT_TEMPLATE, type Encoding, ENCODINGS, jsonLine } from './format.js'

/** Where reading starts in each partition (without a committed offset, with --group). */
export type StartSpec =
  | { kind: 'earliest' }
  | { kind: 'latest' }
  | { kind: 'offset'; offset: number }
  /** The last `count` records of each partition. */
  | { kind: 'last'; count: number }
  | { kind: 'timestamp'; timestampMs: number }

/** What commander hands the action. */
export interface ConsumeCliOptions extends ConnectionOptions {
  fromBeginning: boolean
  offset?: StartSpec
  timestamp?: number
  partition: string[]
  group?: string
  shareGroup?: string
  ack?: AckKind
  maxMessages?: number
  follow?: boolean
  exitAtEnd: boolean
  format?: string
  json: boolean
  encoding: Encoding
  quiet: boolean
  isolation: IsolationLevel
}

export interface ConsumeSettings {
  topic: string
  connection: ConnectionOptions
  start: StartSpec
  /** Whether the start was given (--from-beginning, --offset, --timestamp) or is the default. */
  startGiven: boolean
  /** null: every partition. */
  partitions: number[] | null
  group: string | null
  /** --share-group: consume as a member of this share group (KIP-932). */
  shareGroup: string | null
  /** How each printed record is acknowledged in a share group. */
  ack: AckKind
  maxMessages: number
  exitAtEnd: boolean
  /** Renders one record (--format template or --json line). */
  format: (r: ConsumedRecord) => Buffer
  quiet: boolean
  /** read_committed: only records of committed transactions, up to the last stable offset. */
  isolation: IsolationLevel
}

export { ISOLATION_LEVELS, isolationOption } from '../options.js'

/** --offset: N, earliest, latest, or -N (the last N records of each partition). */
export function offsetOption(value: string): StartSpec {
  const v = value.trim().toLowerCase()
  if (v === 'earliest' || v === 'beginning') return { kind: 'earliest' }
  if (v === 'latest' || v === 'end') return { kind: 'latest' }
  if (/^\d+$/.test(v) && Number.isSafeInteger(Number(v))) return { kind: 'offset', offset: Number(v) }
  if (/^-\d+$/.test(v) && Number.isSafeInteger(Number(v))) {
    const count = -Number(v)
    return count === 0 ? { kind: 'latest' } : { kind: 'last', count }
  }
  throw new InvalidArgumentError('expected an offset N, earliest, latest, or -N for the last N records of each partition')
}

/** --timestamp: ms since the epoch, or a date Date.parse understands (ISO 8601). */
export function timestampOption(value: string): number {
  const v = value.trim()
  if (/^\d+$/.test(v)) {
    const n = Number(v)
    if (Number.isSafeInteger(n)) return n
  }
  const parsed = /^\d{4}-\d{2}-\d{2}/.test(v) ? Date.parse(v) : Number.NaN
  if (Number.isNaN(parsed) || parsed < 0) {
    throw new InvalidArgumentError('expected ms since the epoch or an ISO date such as 2024-05-01T12:00:00Z')
  }
  return parsed
}

/** --ack: accept, release or reject. */
export function ackOption(value: string): AckKind {
  const v = value.trim().toLowerCase()
  if (!(ACK_KINDS as readonly string[]).includes(v)) throw new InvalidArgumentError(`expected one of ${ACK_KINDS.join(', ')}`)
  return v as AckKind
}

export function encodingOption(value: string): Encoding {
  const v = value.trim().toLowerCase().replace('utf-8', 'utf8')
  if (!(ENCODINGS as readonly string[]).includes(v)) throw new InvalidArgumentError(`expected one of ${ENCODINGS.join(', ')}`)
  return v as Encoding
}

/** Repeated and comma-separated --partition values, deduplicated and sorted. */
export function parsePartitions(values: string[]): number[] | null {
  if (values.length === 0) return null
  const out = new Set<number>()
  for (const item of values.flatMap((v) => v.split(','))) {
    const s = item.trim()
    if (!/^\d+$/.test(s) || Number(s) > 0x7fffffff)
      throw new UsageError(`--partition ${JSON.stringify(item)}: expected a partition number (0, 1, …)`)
    out.add(Number(s))
  }
  return [...out].sort((a, b) => a - b)
}

export function settingsFrom(topic: string, o: ConsumeCliOptions): ConsumeSettings {
  if (o.fromBeginning && o.offset) throw new UsageError('give --from-beginning or --offset, not both')
  if (o.fromBeginning && o.timestamp !== undefined) throw new UsageError('give --from-beginning or --timestamp, not both')
  if (o.offset && o.timestamp !== undefined) throw new UsageError('give --offset or --timestamp, not both')
  if (o.follow === true && o.exitAtEnd) throw new UsageError('give --follow or --exit-at-end, not both')
  if (o.json && o.format !== undefined) throw new UsageError('give --format or --json, not both')
  const partitions = parsePartitions(o.partition)
  if (partitions && o.group !== undefined) {
    throw new UsageError('--partition cannot be used with --group: the group assigns the partitions; drop one of them')
  }
  if (o.group !== undefined && o.group.trim() === '') throw new UsageError('--group is empty')
  checkShareOptions(o, partitions)
  const start: StartSpec =
    o.offset ??
    (o.timestamp !== undefined
      ? { kind: 'timestamp', timestampMs: o.timestamp }
      : o.fromBeginning
        ? { kind: 'earliest' }
        : { kind: 'latest' })
  const encoding = o.encoding
  const template = compileTemplate(o.format ?? DEFAULT_TEMPLATE, encoding)
  return {
    topic,
    connection: {
      bootstrapServer: o.bootstrapServer,
      clientId: o.clientId,
      requestTimeoutMs: o.requestTimeoutMs,
      ...(o.commandConfig !== undefined ? { commandConfig: o.commandConfig } : {}),
    },
    start,
    startGiven: o.fromBeginning || o.offset !== undefined || o.timestamp !== undefined,
    partitions,
    group: o.group ?? null,
    shareGroup: o.shareGroup ?? null,
    ack: o.ack ?? 'accept',
    maxMessages: o.maxMessages ?? Number.POSITIVE_INFINITY,
    exitAtEnd: o.exitAtEnd,
    format: o.json ? (r) => jsonLine(r, encoding) : template,
    quiet: o.quiet,
    isolation: o.isolation,
  }
}

/** --share-group takes no start, partition, end or isolation option: the share group decides those. */
function checkShareOptions(o: ConsumeCliOptions, partitions: number[] | null): void {
  if (o.shareGroup === undefined) {
    if (o.ack !== undefined && o.ack !== 'accept')
      throw new UsageError('--ack needs --share-group: records are acknowledged in share groups only')
    return
  }
  if (o.shareGroup.trim() === '') throw new UsageError('--share-group is empty')
  const hint = "a share group starts where its share.auto.offset.reset config says (Kafka's default: latest)"
  const refused: Array<[boolean, string]> = [
    [o.group !== undefined, '--group (a share group is not a consumer group; give one of them)'],
    [partitions !== null, '--partition (the share group assigns the partitions)'],
    [o.fromBeginning, `--from-beginning (${hint})`],
    [o.offset !== undefined, `--offset (${hint})`],
    [o.timestamp !== undefined, `--timestamp (${hint})`],
    [o.exitAtEnd, '--exit-at-end (a share group has no end to reach; use --max-messages)'],
    [
      o.isolation !== undefined && o.isolation !== 'read_uncommitted',
      "--isolation (the share group's share.isolation.level config decides)",
    ],
  ]
  const bad = refused.filter(([given]) => given).map(([, what]) => what)
  if (bad.length > 0) throw new UsageError(`--share-group cannot be used with ${bad.join('; ')}`)
}
