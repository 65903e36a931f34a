// What of a consumer-protocol group has been written to `__consumer_offsets`, and the records that
// bring the log up to date with the group in memory (KIP-848; Kafka's GroupMetadataManager writes
// the ConsumerGroup* records of every change and answers the heartbeat once they are committed).
//
// Contract:
// - recordsFor(groupId, image) compares the group's image (ConsumerGroups.image) with what was
//   written for it, key by key (records.ts's keys), and returns only what differs: new or changed
//   member, target and current-assignment values, tombstones for the keys of members gone, and for
//   a group gone (image undefined) tombstones of every key it has, member keys first and the group's
//   epoch key last, as Kafka's ConsumerGroup.createGroupTombstoneRecords orders them. An unchanged
//   group yields nothing, so the heartbeats of a stable group write nothing.
// - The target-assignment metadata carries the time it was computed; only its epoch is compared,
//   so the record is rewritten when the target moves, not on every heartbeat.
// - written() takes the records as durable; failed() marks their keys unknown, so the next call
//   writes them again (the value in memory or a tombstone) whatever the log holds.
// - seed() takes what a load replayed (the live value of each key), so a coordinator that took the
//   partition over writes only the changes from there, and tombstones the keys of members the
//   replay dropped as incomplete.
// - Memory: one fingerprint per live key of the groups of the partitions owned; forget() drops a
//   group's (its partition left this coordinator).
import { type ConsumerGroupRecord, decodeKey, type GroupImage, groupRecords, TargetMetadataValue } from './records.js'

/** A key whose value on disk is not known (its write failed). */
const UNKNOWN = '?'

function keyHex(key: Buffer): string {
  return key.toString('hex')
}

/** What is compared: the value's bytes, but only the epoch of the target-assignment metadata. */
function fingerprint(key: Buffer, value: Buffer | null): string | null {
  if (value === null) return null
  if (key.readInt16BE(0) === 6) {
    try {
      return `epoch:${TargetMetadataValue.decode(0, value.subarray(2)).assignmentEpoch}`
    } catch {
      return UNKNOWN
    }
  }
  return value.toString('hex')
}

/** Member keys (types 5, 7, 8) before the group's own keys (6, then 3), as Kafka writes tombstones. */
function tombstoneOrder(key: Buffer): number {
  const type = key.readInt16BE(0)
  return type === 3 ? 2 : type === 6 ? 1 : 0
}

export class ConsumerGroupLog {
  /** group id → key hex → fingerprint of the value written. */
  private readonly written_ = new Map<string, Map<string, string>>()

  /**
   * The records that make the log describe `image` (undefined: the group is deleted). `only`:
   * compare just these members (and the group's own keys), no tombstones — for a change that
   * touched one member while the membership and the epochs stayed.
   */
  recordsFor(groupId: string, image: GroupImage | undefined, nowMs: number, only?: ReadonlySet<string>): ConsumerGroupRecord[] {
    const known = this.written_.get(groupId) ?? new Map<string, string>()
    const out: ConsumerGroupRecord[] = []
    const present = new Set<string>()
    const compared =
      image !== undefined && only !== undefined ? { ...image, members: image.members.filter((m) => only.has(m.memberId)) } : image
    for (const rec of compared === undefined ? [] : groupRecords(compared, nowMs)) {
      const k = keyHex(rec.key)
      present.add(k)
      if (known.get(k) !== fingerprint(rec.key, rec.value)) out.push(rec)
    }
    const gone: ConsumerGroupRecord[] = []
    if (only === undefined) for (const k of known.keys()) if (!present.has(k)) gone.push({ key: Buffer.from(k, 'hex'), value: null })
    gone.sort((a, b) => tombstoneOrder(a.key) - tombstoneOrder(b.key))
    // Tombstones of members gone first, then what changed: the epoch record stays last of a group
    // that lives on, and a deleted group's epoch tombstone is the last record.
    return [...gone, ...out]
  }

  /** The records are durable. */
  written(groupId: string, records: readonly ConsumerGroupRecord[]): void {
    const known = this.known(groupId)
    for (const r of records) {
      const f = fingerprint(r.key, r.value)
      if (f === null) known.delete(keyHex(r.key))
      else known.set(keyHex(r.key), f)
    }
    if (known.size === 0) this.written_.delete(groupId)
  }

  /** Their write failed: what the log holds for these keys is unknown. */
  failed(groupId: string, records: readonly ConsumerGroupRecord[]): void {
    const known = this.known(groupId)
    for (const r of records) known.set(keyHex(r.key), UNKNOWN)
  }

  /** What a load found for the group: the live value of each of its keys. */
  seed(groupId: string, live: Iterable<ConsumerGroupRecord>): void {
    this.written_.delete(groupId)
    this.written(groupId, [...live])
  }

  forget(groupId: string): void {
    this.written_.delete(groupId)
  }

  /** Whether anything of the group is (or may be) in the log. */
  has(groupId: string): boolean {
    return this.written_.has(groupId)
  }

  private known(groupId: string): Map<string, string> {
    let known = this.written_.get(groupId)
    if (known === undefined) this.written_.set(groupId, (known = new Map()))
    return known
  }
}

/**
 * Collects a partition's consumer-group records during a load, keeping the live value of each key
 * (a later record replaces an earlier one, a tombstone removes the key, the group's epoch
 * tombstone the whole group), so memory is bounded by the live state, not by the log's length.
 */
export class ConsumerGroupReplay {
  readonly groups = new Map<string, Map<string, ConsumerGroupRecord>>()

  apply(key: Buffer, value: Buffer | null): void {
    const k = decodeKey(key)
    if (value === null && k.type === 3) {
      this.groups.delete(k.group)
      return
    }
    let live = this.groups.get(k.group)
    if (live === undefined) this.groups.set(k.group, (live = new Map()))
    if (value === null) live.delete(keyHex(key))
    else live.set(keyHex(key), { key, value })
  }
}
