// The checker of a chaos run: Jepsen's Kafka anomaly classes over a history (history.ts), each
// anomaly reported with the operations that show it. Pure: a history in, a report out.
//
// What counts as an observation of "offset o of partition p holds value v": an acknowledged send
// (the offset the broker reported), a record a consumer polled, a record a replica stores. Over
// all of them:
//   inconsistent-offsets  one (partition, offset) observed with two values
//   duplicate             one value observed at two offsets (an idempotent producer must write once)
//   lost-write            an acknowledged (and, in a transaction, committed) send whose value no
//                         consumer ever read, although some consumer read that partition past it
//   unseen                the same, but no consumer read that far (the final read stopped short)
//   nonmonotonic-send     a producer's acknowledged offsets on a partition not increasing
//   nonmonotonic-poll     a consumer's offsets on a partition going back or repeating, within a
//                         poll or from one poll to the next, with no new assignment between
//   poll-skip             the same consumer jumping over an offset known to hold a record it should
//                         see (any record read_uncommitted; not an aborted or undecided one
//                         read_committed)
//   aborted-read          a read_committed poll returning a value of an aborted transaction
//   precommitted-read     a read_committed poll returning a value of a transaction before its
//                         commit was even asked for
// A send whose outcome is unknown (info) may or may not be stored: never lost, but its value
// still counts for duplicates and offsets. Kafka gives no promise across partitions for
// non-transactional writes, so nothing here compares partitions.
//
// Share groups (KIP-932) promise at-least-once delivery, not exactly-once: a record comes back
// after its lock expired, after a RELEASE, after its member crashed or closed while holding it,
// after an acknowledgement that failed or got no answer, and after a share-partition leader
// failover (acquisition is not persisted, so the new leader hands out again what the old one had
// handed out; the delivery count it shows is then the persisted one, so counts may repeat).
// Duplicate deliveries are therefore never an anomaly. What is promised, and checked over the
// share-delivery and share-ack ops:
//   share-lost                     an acknowledged send no member was ever handed, although the
//                                  members drained the topic after the faults healed (checked only
//                                  when the history has a share-group op)
//   share-redelivered-after-accept a record handed out again after an ACCEPT of it was confirmed
//                                  (the leader persists the transition before it answers)
//   share-rejected-redelivered     the same after a confirmed REJECT (archived for good)
//   share-delivery-count-exceeded  a delivery count above share.delivery.count.limit, or a record
//                                  handed out again after a confirmed RELEASE of a delivery that
//                                  had reached the limit (that release archives it)
//   share-unknown-record           a record handed out whose value no producer sent, or that is
//                                  not the value its offset holds (by a send, a poll, a replica)
// Only confirmed (ok) acknowledgements constrain what comes after; a failed or unknown one does
// not. The limit is the group's share.delivery.count.limit, from the share-group op.
import type { History, Op, PollOp, SendOp, ShareAckOp, ShareDeliveryOp, TxnOp } from './history.js'

export const ANOMALY_CLASSES = [
  'lost-write',
  'duplicate',
  'inconsistent-offsets',
  'nonmonotonic-send',
  'nonmonotonic-poll',
  'poll-skip',
  'unseen',
  'aborted-read',
  'precommitted-read',
  'replica-divergence',
  'share-lost',
  'share-redelivered-after-accept',
  'share-rejected-redelivered',
  'share-delivery-count-exceeded',
  'share-unknown-record',
] as const

export type AnomalyClass = (typeof ANOMALY_CLASSES)[number]

export interface Anomaly {
  class: AnomalyClass
  partition?: number
  description: string
  /** The operations that show it (a few, not every one). */
  ops: Op[]
}

export interface CheckReport {
  counts: Record<AnomalyClass, number>
  anomalies: Anomaly[]
  stats: {
    sendsOk: number
    sendsFailed: number
    sendsUnknown: number
    polls: number
    recordsRead: number
    txns: number
    /** Records handed to share-group members, redeliveries included. */
    shareDeliveries: number
    /** Redeliveries among them (deliveries of a record handed out before). */
    shareRedeliveries: number
  }
}

/** At most this many anomalies of one class are kept with their ops (all are counted). */
const KEEP_PER_CLASS = 20
/** At most this many ops are attached to one anomaly. */
const OPS_PER_ANOMALY = 6

interface Sighting {
  partition: number
  offset: number
  value: string
  op: Op
}

export function emptyCounts(): Record<AnomalyClass, number> {
  return Object.fromEntries(ANOMALY_CLASSES.map((c) => [c, 0])) as Record<AnomalyClass, number>
}

function sightingsOf(history: History): Sighting[] {
  const out: Sighting[] = []
  for (const op of history) {
    if (op.type === 'send' && op.outcome === 'ok' && op.offset !== undefined) {
      out.push({ partition: op.partition, offset: op.offset, value: op.value, op })
    } else if (op.type === 'poll' || op.type === 'replica') {
      for (const r of op.records) out.push({ partition: op.partition, offset: r.offset, value: r.value, op })
    }
  }
  return out
}

const uniqueOps = (ops: Op[]): Op[] => [...new Set(ops)].slice(0, OPS_PER_ANOMALY)

export function check(history: History, extra: Anomaly[] = []): CheckReport {
  const counts = emptyCounts()
  const anomalies: Anomaly[] = []
  const report = (a: Anomaly) => {
    counts[a.class]++
    if (counts[a.class] <= KEEP_PER_CLASS) anomalies.push({ ...a, ops: uniqueOps(a.ops) })
  }
  for (const a of extra) report(a)

  const txns = new Map<string, TxnOp>()
  for (const op of history) if (op.type === 'txn') txns.set(op.txn, op)
  /** A send's value should be visible to read_committed readers. */
  const visible = (s: SendOp | undefined) => s === undefined || s.txn === undefined || txns.get(s.txn)?.outcome === 'committed'
  const sendOf = new Map<string, SendOp>()
  for (const op of history) if (op.type === 'send') sendOf.set(op.value, op)

  // One offset, one value; one value, one offset.
  const sightings = sightingsOf(history)
  const atOffset = new Map<string, Map<string, Op[]>>()
  const offsetsOfValue = new Map<string, Map<string, Op[]>>()
  for (const s of sightings) {
    const where = `${s.partition}:${s.offset}`
    const values = atOffset.get(where) ?? new Map<string, Op[]>()
    atOffset.set(where, values)
    values.set(s.value, [...(values.get(s.value) ?? []), s.op])
    const offsets = offsetsOfValue.get(s.value) ?? new Map<string, Op[]>()
    offsetsOfValue.set(s.value, offsets)
    offsets.set(where, [...(offsets.get(where) ?? []), s.op])
  }
  for (const [where, values] of atOffset) {
    if (values.size < 2) continue
    const [partition] = where.split(':').map(Number)
    report({
      class: 'inconsistent-offsets',
      partition,
      description: `offset ${where} holds ${[...values.keys()].map((v) => JSON.stringify(v)).join(' and ')}`,
      ops: [...values.values()].flatMap((ops) => ops.slice(0, 2)),
    })
  }
  for (const [value, offsets] of offsetsOfValue) {
    if (offsets.size < 2) continue
    const [partition] = [...offsets.keys()][0]!.split(':').map(Number)
    report({
      class: 'duplicate',
      partition,
      description: `${JSON.stringify(value)} is at ${[...offsets.keys()].join(' and ')}`,
      ops: [...offsets.values()].flatMap((ops) => ops.slice(0, 2)),
    })
  }

  // Lost and unseen writes: what consumers read, per partition.
  const read = new Set<string>()
  const maxRead = new Map<number, { offset: number; op: PollOp }>()
  for (const op of history) {
    if (op.type !== 'poll') continue
    for (const r of op.records) {
      read.add(r.value)
      const m = maxRead.get(op.partition)
      if (!m || r.offset > m.offset) maxRead.set(op.partition, { offset: r.offset, op })
    }
  }
  for (const op of history) {
    if (op.type !== 'send' || op.outcome !== 'ok' || op.offset === undefined || !visible(op) || read.has(op.value)) continue
    const m = maxRead.get(op.partition)
    if (m && m.offset > op.offset) {
      report({
        class: 'lost-write',
        partition: op.partition,
        description: `${JSON.stringify(op.value)} acknowledged at ${op.partition}:${op.offset}, never read; ${m.op.process} read up to offset ${m.offset}`,
        ops: [op, m.op],
      })
    } else {
      report({
        class: 'unseen',
        partition: op.partition,
        description: `${JSON.stringify(op.value)} acknowledged at ${op.partition}:${op.offset}, never read; reads stop at ${m?.offset ?? 'nothing'}`,
        ops: m ? [op, m.op] : [op],
      })
    }
  }

  // Per producer: acknowledged offsets increase.
  const lastSend = new Map<string, SendOp>()
  for (const op of history) {
    if (op.type !== 'send' || op.outcome !== 'ok' || op.offset === undefined) continue
    const key = `${op.process}\u0000${op.partition}`
    const prev = lastSend.get(key)
    if (prev && prev.offset! >= op.offset) {
      report({
        class: 'nonmonotonic-send',
        partition: op.partition,
        description: `${op.process} got offset ${op.offset} after ${prev.offset} on partition ${op.partition}`,
        ops: [prev, op],
      })
    }
    lastSend.set(key, op)
  }

  // Per consumer: offsets increase, and no offset that holds a record it should see is jumped over.
  const knownOffsets = new Map<number, Map<number, string>>()
  for (const s of sightings) {
    const m = knownOffsets.get(s.partition) ?? new Map<number, string>()
    knownOffsets.set(s.partition, m)
    m.set(s.offset, s.value)
  }
  const sorted = new Map([...knownOffsets].map(([p, m]) => [p, [...m.keys()].sort((a, b) => a - b)]))
  const skipped = (poll: PollOp, from: number, to: number): number | undefined => {
    const offsets = sorted.get(poll.partition) ?? []
    const values = knownOffsets.get(poll.partition)!
    for (const o of offsets) {
      if (o <= from) continue
      if (o >= to) break
      const value = values.get(o)!
      if (poll.isolation === 'read_uncommitted' || visible(sendOf.get(value))) return o
    }
    return undefined
  }
  const position = new Map<string, { offset: number; op: PollOp }>()
  for (const op of history) {
    if (op.type === 'assign') {
      for (const p of op.partitions) position.delete(`${op.process}\u0000${p}`)
      continue
    }
    if (op.type !== 'poll') continue
    const key = `${op.process}\u0000${op.partition}`
    for (const r of op.records) {
      const prev = position.get(key)
      if (prev && r.offset <= prev.offset) {
        report({
          class: 'nonmonotonic-poll',
          partition: op.partition,
          description: `${op.process} read offset ${r.offset} after ${prev.offset} on partition ${op.partition}`,
          ops: [prev.op, op],
        })
      } else if (prev) {
        const o = skipped(op, prev.offset, r.offset)
        if (o !== undefined) {
          report({
            class: 'poll-skip',
            partition: op.partition,
            description: `${op.process} went from offset ${prev.offset} to ${r.offset} on partition ${op.partition}, over ${o} (${JSON.stringify(knownOffsets.get(op.partition)!.get(o))})`,
            ops: [prev.op, op],
          })
        }
      }
      position.set(key, { offset: r.offset, op })
    }
  }

  // Transactions seen by read_committed consumers.
  for (const op of history) {
    if (op.type !== 'poll' || op.isolation !== 'read_committed') continue
    for (const r of op.records) {
      const send = sendOf.get(r.value)
      const txn = send?.txn === undefined ? undefined : txns.get(send.txn)
      if (!send?.txn) continue
      if (txn?.outcome === 'aborted') {
        report({
          class: 'aborted-read',
          partition: op.partition,
          description: `${op.process} read ${JSON.stringify(r.value)} at ${op.partition}:${r.offset}, written in aborted transaction ${send.txn}`,
          ops: [send, txn, op],
        })
      } else if (txn === undefined || txn.time > op.time) {
        report({
          class: 'precommitted-read',
          partition: op.partition,
          description: `${op.process} read ${JSON.stringify(r.value)} of transaction ${send.txn} at ${op.time} ms, ${txn ? `its end asked for at ${txn.time} ms` : 'never ended'}`,
          ops: txn ? [send, op, txn] : [send, op],
        })
      }
    }
  }

  const share = checkShare(history, sendOf, atOffset, report)

  const sends = history.filter((o): o is SendOp => o.type === 'send')
  return {
    counts,
    anomalies,
    stats: {
      sendsOk: sends.filter((s) => s.outcome === 'ok').length,
      sendsFailed: sends.filter((s) => s.outcome === 'fail').length,
      sendsUnknown: sends.filter((s) => s.outcome === 'info').length,
      polls: history.filter((o) => o.type === 'poll').length,
      recordsRead: history.reduce((n, o) => n + (o.type === 'poll' ? o.records.length : 0), 0),
      txns: txns.size,
      shareDeliveries: share.deliveries,
      shareRedeliveries: share.redeliveries,
    },
  }
}

/** A confirmed acknowledgement after which the record must not be handed out again. */
interface Settled {
  ack: ShareAckOp
  delivery: ShareDeliveryOp | undefined
  class: 'share-redelivered-after-accept' | 'share-rejected-redelivered' | 'share-delivery-count-exceeded'
}

/** The share-group classes (see the header); returns how many deliveries it saw. */
function checkShare(
  history: History,
  sendOf: ReadonlyMap<string, SendOp>,
  atOffset: ReadonlyMap<string, ReadonlyMap<string, Op[]>>,
  report: (a: Anomaly) => void,
): { deliveries: number; redeliveries: number } {
  let limit: number | undefined
  let grouped = false
  const deliveryKey = (process: string, where: string, count: number) => `${process}\u0000${where}\u0000${count}`
  const deliveryOf = new Map<string, ShareDeliveryOp>()
  const settled = new Map<string, Settled>()
  const handed = new Set<string>()
  const handedValues = new Set<string>()
  let deliveries = 0
  let redeliveries = 0
  for (const op of history) {
    if (op.type === 'share-group') {
      grouped = true
      limit = op.deliveryCountLimit
      continue
    }
    if (op.type === 'share-ack') {
      if (op.outcome !== 'ok') continue
      const where = `${op.partition}:${op.offset}`
      const delivery = deliveryOf.get(deliveryKey(op.process, where, op.deliveryCount))
      if (settled.has(where)) continue
      if (op.kind === 'accept') settled.set(where, { ack: op, delivery, class: 'share-redelivered-after-accept' })
      else if (op.kind === 'reject') settled.set(where, { ack: op, delivery, class: 'share-rejected-redelivered' })
      else if (limit !== undefined && op.deliveryCount >= limit)
        settled.set(where, { ack: op, delivery, class: 'share-delivery-count-exceeded' })
      continue
    }
    if (op.type !== 'share-delivery') continue
    deliveries++
    const where = `${op.partition}:${op.offset}`
    if (handed.has(where)) redeliveries++
    handed.add(where)
    handedValues.add(op.value)
    deliveryOf.set(deliveryKey(op.process, where, op.deliveryCount), op)
    const send = sendOf.get(op.value)
    const values = atOffset.get(where)
    if (send === undefined) {
      report({
        class: 'share-unknown-record',
        partition: op.partition,
        description: `${op.process} was handed ${JSON.stringify(op.value)} at ${where}, a value no producer sent`,
        ops: [op],
      })
    } else if (values !== undefined && !values.has(op.value)) {
      report({
        class: 'share-unknown-record',
        partition: op.partition,
        description: `${op.process} was handed ${JSON.stringify(op.value)} at ${where}, which holds ${[...values.keys()].map((v) => JSON.stringify(v)).join(' and ')}`,
        ops: [op, ...[...values.values()].flatMap((ops) => ops.slice(0, 1)), send],
      })
    }
    const over = limit !== undefined && op.deliveryCount > limit
    if (over) {
      report({
        class: 'share-delivery-count-exceeded',
        partition: op.partition,
        description: `${op.process} was handed ${where} with delivery count ${op.deliveryCount}, over the limit ${limit}`,
        ops: [op],
      })
    }
    const s = settled.get(where)
    if (s && !(over && s.class === 'share-delivery-count-exceeded')) {
      const what =
        s.class === 'share-redelivered-after-accept'
          ? 'its ACCEPT'
          : s.class === 'share-rejected-redelivered'
            ? 'its REJECT'
            : `the RELEASE of delivery ${s.ack.deliveryCount} (the limit, ${limit})`
      report({
        class: s.class,
        partition: op.partition,
        description: `${op.process} was handed ${where} (delivery count ${op.deliveryCount}) at ${op.time} ms, after ${what} by ${s.ack.process} was confirmed at ${s.ack.time} ms`,
        ops: s.delivery ? [s.delivery, s.ack, op] : [s.ack, op],
      })
    }
  }
  if (grouped) {
    for (const op of history) {
      if (op.type !== 'send' || op.outcome !== 'ok' || op.offset === undefined || handedValues.has(op.value)) continue
      report({
        class: 'share-lost',
        partition: op.partition,
        description: `${JSON.stringify(op.value)} acknowledged at ${op.partition}:${op.offset}, never handed to a share-group member`,
        ops: [op],
      })
    }
  }
  return { deliveries, redeliveries }
}

/** Total anomalies of every class. */
export function anomalyTotal(report: CheckReport): number {
  return Object.values(report.counts).reduce((a, b) => a + b, 0)
}
