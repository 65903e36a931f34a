// What a push request asks for (GET /topics/{topic}/events and /topics/{topic}/ws), checked
// against the topic before any stream starts: every refusal is a PushError (cursor.ts) that the
// route answers as a 4xx JSON error.
//
// Query: from=earliest|latest|<ISO-8601 time> (default latest), partition=<n>, group=<id> (offsets
// committed as events are delivered, see reader.ts), share-group=<id> (queue delivery, share.ts),
// cursor=<cursor> or the Last-Event-ID header (a resume point; wins over from and the group's
// committed offsets). group and share-group exclude each other; a share group takes no cursor,
// from or partition (the share group decides what each member gets).
//
// Start positions: the cursor's offsets for the partitions it names; then, with a group, the
// group's committed offsets; the rest at `from` (ListOffsets by timestamp; a time after the last
// record means the log end). A cursor ahead of a partition's log end is refused.
import { listOffsets, OffsetSpec } from '../../client/admin.js'
import { fetchCommittedOffsets } from '../../client/admin-groups.js'
import type { KafkaClient } from '../../client/client.js'
import { decodeCursor, PushError } from './cursor.js'

export interface PushPlan {
  topic: string
  /** The partitions streamed. */
  partitions: number[]
  /** Classic delivery: where each partition starts. Empty for a share group. */
  start: Map<number, number>
  /** True when every partition starts at the log end with nothing else asked: the shared tail can serve it. */
  tail: boolean
  group: string | null
  shareGroup: string | null
}

type Query = Record<string, string | string[] | undefined>

function one(q: Query, name: string): string | undefined {
  const v = q[name]
  if (Array.isArray(v)) throw new PushError(400, 40001, `${name} is given more than once`)
  return v
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/

/** from=: a ListOffsets timestamp (OffsetSpec.Earliest, OffsetSpec.Latest or ms since the epoch). */
export function parseFrom(text: string | undefined): number {
  if (text === undefined || text === 'latest') return OffsetSpec.Latest
  if (text === 'earliest') return OffsetSpec.Earliest
  const ms = ISO_TIME.test(text) ? Date.parse(text) : Number.NaN
  if (!Number.isFinite(ms) || ms < 0)
    throw new PushError(400, 40001, `from must be earliest, latest or an ISO-8601 time, not ${JSON.stringify(text.slice(0, 64))}`)
  return ms
}

export async function planPush(client: KafkaClient, topic: string, query: Query, lastEventId: string | undefined): Promise<PushPlan> {
  const from = parseFrom(one(query, 'from'))
  const partitionText = one(query, 'partition')
  const group = one(query, 'group') ?? null
  const shareGroup = one(query, 'share-group') ?? null
  const cursorText = one(query, 'cursor') ?? lastEventId
  if (partitionText !== undefined && !/^(0|[1-9]\d{0,8})$/.test(partitionText))
    throw new PushError(400, 40001, `partition must be a partition number, not ${JSON.stringify(partitionText.slice(0, 64))}`)
  if (group !== null && shareGroup !== null) throw new PushError(400, 40001, 'group and share-group exclude each other')
  for (const [name, id] of [
    ['group', group],
    ['share-group', shareGroup],
  ] as const) {
    if (id !== null && (id.trim() === '' || id.length > 249)) throw new PushError(400, 40001, `${name} must be a non-empty group id`)
  }
  if (shareGroup !== null && (cursorText !== undefined || one(query, 'from') !== undefined || partitionText !== undefined))
    throw new PushError(
      400,
      40001,
      'a share-group stream takes no cursor, from or partition: the share group decides what each subscriber gets',
    )
  const cursor = cursorText === undefined ? null : decodeCursor(cursorText)

  const md = await client.metadata([topic], { refresh: true })
  const info = md.topics.get(topic)
  if (!info || info.error === 'UNKNOWN_TOPIC_OR_PARTITION' || info.error === 'INVALID_TOPIC_EXCEPTION')
    throw new PushError(404, 40403, `Topic ${topic} not found.`)
  if (info.error) throw new PushError(503, 50301, `topic ${topic}: ${info.error}`)
  const all = info.partitions.map((p) => p.partition).sort((a, b) => a - b)
  let partitions = all
  if (partitionText !== undefined) {
    const p = Number(partitionText)
    if (!all.includes(p)) throw new PushError(404, 40402, `Partition ${p} of topic ${topic} not found.`)
    partitions = [p]
  }
  if (shareGroup !== null) return { topic, partitions, start: new Map(), tail: false, group: null, shareGroup }
  if (cursor) {
    for (const p of cursor.keys())
      if (!partitions.includes(p)) throw new PushError(400, 40002, `the cursor names partition ${p}, which this stream does not read`)
  }

  const ends = await listOffsets(client, topic, partitions, OffsetSpec.Latest)
  const start = new Map<number, number>()
  for (const [p, o] of cursor ?? []) {
    if (o > ends.get(p)!) throw new PushError(400, 40002, `the cursor is ahead of partition ${p}'s log end (${ends.get(p)})`)
    start.set(p, o)
  }
  if (group !== null) {
    for (const c of await fetchCommittedOffsets(client, group)) {
      if (c.topic === topic && partitions.includes(c.partition) && !start.has(c.partition) && c.offset >= 0)
        start.set(c.partition, c.offset)
    }
  }
  const rest = partitions.filter((p) => !start.has(p))
  const tail = rest.length === partitions.length && from === OffsetSpec.Latest && group === null
  if (rest.length > 0) {
    const found = from === OffsetSpec.Latest ? ends : await listOffsets(client, topic, rest, from)
    for (const p of rest) {
      const o = found.get(p) ?? -1
      start.set(p, o < 0 ? ends.get(p)! : o)
    }
  }
  return { topic, partitions, start, tail, group, shareGroup }
}
