// The soak's record checks (soak-run.ts), after the load has stopped: what the ledger
// (soak-load.ts) says was acknowledged against what the broker's logs hold at the end and what the
// group consumers saw.
//
//   - Log: every acknowledged record of a non-compacted topic at or past its partition's log start
//     offset (below it, retention deleted it, which is allowed) is at its acknowledged offset with
//     its value. Every committed transaction's values are in soak-txn (read_committed), no aborted
//     one is. In the compacted topic, for every key, the last acknowledged value is still there, or
//     a later record of the same key is (compaction keeps the latest of a key, never less).
//   - Consumers: the classic and the KIP-848 group each saw every acknowledged record of the topics
//     they read (same log-start rule; committed transactions for soak-txn), and the classic group
//     (read_committed) saw no aborted value.
// Each lost record is counted per topic; the first few are named in the problem lines.
import { listOffsets, OffsetSpec } from '../../src/client/admin.js'
import type { KafkaClient } from '../../src/client/client.js'
import { Fetcher } from '../../src/client/consumer.js'
import { COMPACTED_KEYS, CONSUMED_TOPICS, type Ledger, valueIn } from './soak-load.js'

export interface StoredRecord {
  key: string | null
  value: string
}

export interface TopicContents {
  /** Log start offset per partition, read after the records. */
  earliest: Map<number, number>
  /** partition → offset → record. */
  records: Map<number, Map<number, StoredRecord>>
}

export interface RecordFigures {
  /** topic → acknowledged records checked (at or past the log start). */
  checked: Record<string, number>
  /** topic → acknowledged records missing from the log. */
  lostInLog: Record<string, number>
  /** consumer → topic → acknowledged records it did not see. */
  unseen: Record<string, Record<string, number>>
  problems: string[]
}

/** Reads a whole topic from its log start to its end (last stable offset with readCommitted). */
export async function readTopic(client: KafkaClient, topic: string, readCommitted: boolean, timeoutMs = 60_000): Promise<TopicContents> {
  const start = await listOffsets(client, topic, null, OffsetSpec.Earliest)
  const end = await listOffsets(client, topic, null, OffsetSpec.Latest, readCommitted)
  const fetcher = new Fetcher(client, {
    maxWaitMs: 100,
    autoOffsetReset: 'earliest',
    isolationLevel: readCommitted ? 'read_committed' : 'read_uncommitted',
  })
  fetcher.assign([...start].map(([partition, offset]) => ({ topic, partition, offset })))
  const records = new Map<number, Map<number, StoredRecord>>()
  for (const p of start.keys()) records.set(p, new Map())
  const deadline = performance.now() + timeoutMs
  const behind = () => [...end].some(([p, e]) => (fetcher.position(topic, p) ?? 0) < e)
  while (behind()) {
    if (performance.now() > deadline) throw new Error(`reading ${topic} did not reach its end within ${timeoutMs} ms`)
    for (const part of await fetcher.poll())
      for (const r of part.records)
        records.get(part.partition)!.set(r.offset, { key: r.key?.toString() ?? null, value: valueIn(r.value?.toString() ?? '') })
  }
  // Retention may have deleted from the front while we read: what is below the start now was allowed to go.
  const earliest = await listOffsets(client, topic, null, OffsetSpec.Earliest)
  return { earliest, records }
}

const firstFew = (xs: string[]) => xs.slice(0, 5).join(', ') + (xs.length > 5 ? `, … (${xs.length})` : '')

/** The acknowledged values a consumer of `topic` must have seen, given the log at the end. */
export function expectedValues(ledger: Ledger, topic: string, contents: TopicContents): string[] {
  if (topic === 'soak-txn') return [...ledger.committed]
  const out: string[] = []
  for (const [v, at] of ledger.acked.get(topic) ?? []) if (at.offset >= (contents.earliest.get(at.partition) ?? 0)) out.push(v)
  return out
}

export function checkLogs(ledger: Ledger, logs: ReadonlyMap<string, TopicContents>): RecordFigures {
  const fig: RecordFigures = { checked: {}, lostInLog: {}, unseen: {}, problems: [] }
  for (const [topic, contents] of logs) {
    if (topic === 'soak-compacted' || topic === 'soak-txn') continue
    const lost: string[] = []
    const expected = expectedValues(ledger, topic, contents)
    const acked = ledger.acked.get(topic) ?? new Map()
    for (const v of expected) {
      const at = acked.get(v)!
      const stored = contents.records.get(at.partition)?.get(at.offset)
      if (stored?.value !== v) lost.push(`${v}@${at.partition}:${at.offset}${stored ? ` (holds ${stored.value})` : ''}`)
    }
    fig.checked[topic] = expected.length
    fig.lostInLog[topic] = lost.length
    if (lost.length > 0) fig.problems.push(`${topic}: ${lost.length} acknowledged records not in the log: ${firstFew(lost)}`)
  }
  const txn = logs.get('soak-txn')
  if (txn) {
    const present = new Set<string>()
    for (const m of txn.records.values()) for (const r of m.values()) present.add(r.value)
    const lost = [...ledger.committed].filter((v) => !present.has(v))
    const aborted = [...ledger.aborted].filter((v) => present.has(v))
    fig.checked['soak-txn'] = ledger.committed.size
    fig.lostInLog['soak-txn'] = lost.length
    if (lost.length > 0) fig.problems.push(`soak-txn: ${lost.length} committed records not in the log: ${firstFew(lost)}`)
    if (aborted.length > 0) fig.problems.push(`soak-txn: ${aborted.length} aborted records read with read_committed: ${firstFew(aborted)}`)
  }
  const compacted = logs.get('soak-compacted')
  if (compacted) {
    // The last acknowledged value of each key, by offset (a key always goes to the same partition).
    const last = new Map<string, { v: string; partition: number; offset: number }>()
    for (const [v, at] of ledger.acked.get('soak-compacted') ?? []) {
      const key = ledger.keyOf.get(v)!
      const prev = last.get(key)
      if (!prev || at.offset > prev.offset) last.set(key, { v, ...at })
    }
    const lost: string[] = []
    for (const [key, at] of last) {
      const part = compacted.records.get(at.partition)
      const stored = part?.get(at.offset)
      if (stored?.value === at.v) continue
      const later = [...(part ?? new Map<number, StoredRecord>())].some(([o, r]) => o > at.offset && r.key === key)
      if (!later) lost.push(`${key}=${at.v}@${at.partition}:${at.offset}`)
    }
    fig.checked['soak-compacted'] = last.size
    fig.lostInLog['soak-compacted'] = lost.length
    if (last.size < COMPACTED_KEYS) fig.problems.push(`soak-compacted: only ${last.size} of ${COMPACTED_KEYS} keys were acknowledged`)
    if (lost.length > 0) fig.problems.push(`soak-compacted: ${lost.length} keys lost their last acknowledged value: ${firstFew(lost)}`)
  }
  return fig
}

/** Per consumer and topic, the acknowledged values it has not seen (after the log-start rule). */
export function unseenBy(ledger: Ledger, logs: ReadonlyMap<string, TopicContents>): Map<string, Map<string, string[]>> {
  const out = new Map<string, Map<string, string[]>>()
  for (const consumer of ['classic', 'kip848']) {
    const m = new Map<string, string[]>()
    for (const topic of CONSUMED_TOPICS) {
      const contents = logs.get(topic)
      if (!contents) continue
      const seen = ledger.seen.get(consumer)?.get(topic) ?? new Set<string>()
      m.set(
        topic,
        expectedValues(ledger, topic, contents).filter((v) => !seen.has(v)),
      )
    }
    out.set(consumer, m)
  }
  return out
}

export function checkConsumers(ledger: Ledger, logs: ReadonlyMap<string, TopicContents>, fig: RecordFigures): void {
  for (const [consumer, byTopic] of unseenBy(ledger, logs)) {
    fig.unseen[consumer] = {}
    for (const [topic, missing] of byTopic) {
      fig.unseen[consumer]![topic] = missing.length
      if (missing.length > 0)
        fig.problems.push(`${consumer} group: ${missing.length} acknowledged records of ${topic} never seen: ${firstFew(missing)}`)
    }
  }
  const abortedSeen = [...(ledger.seen.get('classic')?.get('soak-txn') ?? [])].filter((v) => ledger.aborted.has(v))
  if (abortedSeen.length > 0)
    fig.problems.push(`classic group (read_committed): ${abortedSeen.length} aborted records seen: ${firstFew(abortedSeen)}`)
}
