// The arithmetic of `tributary group reset-offsets`, apart from any I/O so it can be tested alone:
// which new offset each partition gets, and the parsing of --topic and --to-datetime.
//
// Rules are those of Kafka's kafka-consumer-groups.sh (ConsumerGroupCommand / OffsetsUtils):
//   --to-earliest / --to-latest   the partition's log start / end offset
//   --to-offset N, --shift-by N   clamped to [earliest, latest]; shifting a partition that has no
//                                 committed offset is an error
//   --to-datetime T               the first offset whose timestamp is ≥ T; a partition with no such
//                                 record falls back to its end offset
// Every result is kept within [earliest, latest], so a consumer never resumes out of range.
import { ToolError, UsageError } from './common.js'

export type ResetSpec =
  | { kind: 'earliest' }
  | { kind: 'latest' }
  | { kind: 'datetime'; timestampMs: number }
  | { kind: 'offset'; offset: number }
  | { kind: 'shift'; by: number }

/** What is known of one partition before planning. */
export interface PartitionState {
  topic: string
  partition: number
  /** The group's committed offset, null when it has none. */
  current: number | null
  /** Log start offset (ListOffsets -2). */
  earliest: number
  /** Log end offset (ListOffsets -1, the high watermark). */
  latest: number
  /** For --to-datetime: ListOffsets by timestamp; -1 or null when no record is that recent. */
  atTimestamp?: number | null
}

export interface PlannedReset {
  topic: string
  partition: number
  current: number | null
  target: number
}

/** The new offset of every partition, in the order given. */
export function planReset(spec: ResetSpec, partitions: readonly PartitionState[]): PlannedReset[] {
  return partitions.map((p) => ({ topic: p.topic, partition: p.partition, current: p.current, target: clamp(requested(spec, p), p) }))
}

function requested(spec: ResetSpec, p: PartitionState): number {
  switch (spec.kind) {
    case 'earliest':
      return p.earliest
    case 'latest':
      return p.latest
    case 'offset':
      return spec.offset
    case 'datetime':
      return p.atTimestamp === undefined || p.atTimestamp === null || p.atTimestamp < 0 ? p.latest : p.atTimestamp
    case 'shift':
      if (p.current === null) {
        throw new ToolError(
          `cannot shift partition ${p.topic}:${p.partition}: the group has no committed offset there`,
          'reset it with --to-earliest, --to-latest, --to-offset or --to-datetime, or leave it out with --topic TOPIC:PARTITIONS',
        )
      }
      return p.current + spec.by
  }
}

function clamp(offset: number, p: PartitionState): number {
  if (offset > p.latest) return p.latest
  if (offset < p.earliest) return p.earliest
  return offset
}

/** One --topic value: `TOPIC` (every partition) or `TOPIC:P[,P…]`, as kafka-consumer-groups.sh takes it. */
export interface TopicSelection {
  topic: string
  /** null: every partition of the topic. */
  partitions: number[] | null
}

export function parseTopicSelection(value: string): TopicSelection {
  const parts = value.split(':')
  const topic = parts[0]!.trim()
  if (topic === '' || parts.length > 2) {
    throw new UsageError(`--topic ${JSON.stringify(value)}: expected TOPIC or TOPIC:PARTITION[,PARTITION…], e.g. orders:0,2`)
  }
  if (parts.length === 1) return { topic, partitions: null }
  const partitions: number[] = []
  for (const item of parts[1]!.split(',')) {
    const s = item.trim()
    const n = Number(s)
    if (!/^\d+$/.test(s) || !Number.isSafeInteger(n) || n > 0x7fffffff) {
      throw new UsageError(`--topic ${JSON.stringify(value)}: partition ${JSON.stringify(item)} is not a partition number`)
    }
    if (!partitions.includes(n)) partitions.push(n)
  }
  return { topic, partitions }
}

/** Merges --topic values naming the same topic: `a:0 --topic a:1` is `a:0,1`, and `a` wins over both. */
export function mergeTopicSelections(selections: readonly TopicSelection[]): TopicSelection[] {
  const byTopic = new Map<string, number[] | null>()
  for (const s of selections) {
    const before = byTopic.get(s.topic)
    if (s.partitions === null || before === null) byTopic.set(s.topic, null)
    else byTopic.set(s.topic, [...new Set([...(before ?? []), ...s.partitions])])
  }
  return [...byTopic].map(([topic, partitions]) => ({ topic, partitions }))
}

const DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/

/**
 * Parses --to-datetime: `YYYY-MM-DD[THH:mm[:ss[.sss]]]` with an optional zone (`Z`, `+02:00`,
 * `-0500`). Without a zone the time is local, as kafka-consumer-groups.sh reads it.
 * Returns epoch milliseconds.
 */
export function parseDatetime(text: string): number {
  const m = DATETIME_RE.exec(text.trim())
  const bad = () =>
    new UsageError(
      `--to-datetime ${JSON.stringify(text)}: expected YYYY-MM-DDTHH:mm:ss[.sss] with an optional zone (Z, +02:00), e.g. 2024-05-01T12:00:00Z`,
    )
  if (!m) throw bad()
  const num = (x: string | undefined) => (x === undefined ? 0 : Number(x))
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(num) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ]
  const ms = m[7] === undefined ? 0 : Number(m[7].padEnd(3, '0'))
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) throw bad()
  const zone = m[8]
  // setFullYear, not the Date constructor, which reads years 0–99 as 1900–1999.
  const d = new Date(0)
  if (zone === undefined) {
    d.setFullYear(year, month - 1, day)
    d.setHours(hour, minute, second, ms)
    return d.getTime()
  }
  d.setUTCFullYear(year, month - 1, day)
  d.setUTCHours(hour, minute, second, ms)
  const utc = d.getTime()
  if (zone === 'Z') return utc
  const sign = zone[0] === '-' ? -1 : 1
  const digits = zone.slice(1).replace(':', '')
  const zoneHours = Number(digits.slice(0, 2))
  const zoneMinutes = Number(digits.slice(2))
  if (zoneHours > 23 || zoneMinutes > 59) throw bad()
  return utc - sign * (zoneHours * 60 + zoneMinutes) * 60_000
}

function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28
  return [4, 6, 9, 11].includes(month) ? 30 : 31
}
