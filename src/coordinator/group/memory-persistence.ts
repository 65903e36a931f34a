// An in-memory GroupPersistence: for unit tests and for embedding a coordinator without a log.
// It keeps every store call in order, as the `__consumer_offsets` log would, and load() replays
// them (last record per key wins, null removes). Values are copied in and out, so nothing the
// coordinator later mutates can change what was "written".
//
// Each record takes log offsets as in `__consumer_offsets` (one per offset entry, one for a group
// record or a marker), so replayed offsets carry their record offset. Transactional offsets are
// kept with their producer; writeMarker() appends what the transaction coordinator's marker would
// (it is written outside the GroupPersistence port), so a load replays it where it is.
// A consumer-protocol group's records (storeConsumerGroupRecords) are kept as one stored record
// per call and replayed to sink.consumerGroupRecord one by one, in order.
//
// Test hooks: failNext() makes the next store call reject with the given error; pause() holds
// store calls until resume(), to observe what happens while a write is in flight; holdLoads()
// holds loadPartition calls until releaseLoads(), to observe a partition while it loads.
import type { CommittedOffset, GroupPersistence, GroupSnapshot, LoadSink, OffsetEntry, RawGroupRecord, TxnProducer } from './persistence.js'
import { partitionForGroup } from './persistence.js'

export type StoredRecord = { baseOffset: number } & (
  | { kind: 'group'; groupId: string; snapshot: GroupSnapshot | null }
  /** producer: a transactional batch (TxnOffsetCommit); null: committed offsets or tombstones. */
  | { kind: 'offsets'; groupId: string; entries: OffsetEntry[]; producer: TxnProducer | null }
  | { kind: 'marker'; partition: number; producerId: number; commit: boolean }
  | { kind: 'share'; groupId: string; records: Array<{ key: Buffer; value: Buffer | null }> }
  /** A consumer-protocol group's records (one batch). */
  | { kind: 'consumer'; groupId: string; records: RawGroupRecord[] }
)

const copySnapshot = (s: GroupSnapshot | null): GroupSnapshot | null =>
  s && {
    ...s,
    members: s.members.map((m) => ({ ...m, subscription: Buffer.from(m.subscription), assignment: Buffer.from(m.assignment) })),
  }

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never

const copyOffset = (v: CommittedOffset | null): CommittedOffset | null => v && { ...v }

export class MemoryGroupPersistence implements GroupPersistence {
  /** Everything stored, in call order. */
  readonly records: StoredRecord[] = []
  private failures: Error[] = []
  private gate: Promise<void> | null = null
  private openGate: (() => void) | null = null
  private loadGate: Promise<void> | null = null
  private openLoadGate: (() => void) | null = null
  /** Partitions asked for by loadPartition, in call order. */
  readonly partitionLoads: number[] = []
  /** The log offset the next record gets. */
  private nextOffset = 0

  constructor(private readonly numPartitions = 50) {}

  get partitionCount(): number {
    return this.numPartitions
  }

  partitionFor(groupId: string): number {
    return partitionForGroup(groupId, this.numPartitions)
  }

  async storeGroup(groupId: string, snapshot: GroupSnapshot | null): Promise<void> {
    // Recorded at call time (the log's order is the call order), made visible after the gate.
    await this.write({ kind: 'group', groupId, snapshot: copySnapshot(snapshot) }, 1)
  }

  storeOffsets(groupId: string, entries: OffsetEntry[]): Promise<number> {
    return this.storeBatch(groupId, entries, null)
  }

  storeTxnOffsets(groupId: string, producer: TxnProducer, entries: OffsetEntry[]): Promise<number> {
    return this.storeBatch(groupId, entries, { ...producer })
  }

  private storeBatch(groupId: string, entries: OffsetEntry[], producer: TxnProducer | null): Promise<number> {
    const copied = entries.map((e) => ({ ...e, value: copyOffset(e.value) }))
    return this.write({ kind: 'offsets', groupId, entries: copied, producer }, Math.max(1, entries.length))
  }

  async storeShareGroupRecords(groupId: string, records: ReadonlyArray<{ key: Buffer; value: Buffer | null }>): Promise<void> {
    const copied = records.map((r) => ({ key: Buffer.from(r.key), value: r.value && Buffer.from(r.value) }))
    await this.write({ kind: 'share', groupId, records: copied }, Math.max(1, records.length))
  }

  async storeConsumerGroupRecords(groupId: string, records: readonly RawGroupRecord[]): Promise<void> {
    const copied = records.map((r) => ({ key: Buffer.from(r.key), value: r.value && Buffer.from(r.value) }))
    await this.write({ kind: 'consumer', groupId, records: copied }, Math.max(1, records.length))
  }

  /** What the transaction coordinator's marker writes to the partition (it does not go through this port). */
  writeMarker(partition: number, producerId: number, commit: boolean): void {
    this.records.push({ kind: 'marker', partition, producerId, commit, baseOffset: this.nextOffset++ })
  }

  async load(sink: LoadSink): Promise<void> {
    for (const r of this.records) this.replay(r, sink)
  }

  async loadPartition(partition: number, sink: LoadSink): Promise<void> {
    this.partitionLoads.push(partition)
    if (this.loadGate) await this.loadGate
    // What was stored until the load completes, as a log read to its end would see it.
    for (const r of this.records) if (this.partitionOf(r) === partition) this.replay(r, sink)
  }

  private partitionOf(r: StoredRecord): number {
    return r.kind === 'marker' ? r.partition : this.partitionFor(r.groupId)
  }

  private replay(r: StoredRecord, sink: LoadSink): void {
    switch (r.kind) {
      case 'group':
        sink.group(r.groupId, copySnapshot(r.snapshot))
        return
      case 'marker':
        sink.txnMarker(r.producerId, r.commit)
        return
      case 'share':
        for (const rec of r.records) sink.shareGroupRecord?.(Buffer.from(rec.key), rec.value && Buffer.from(rec.value))
        return
      case 'consumer':
        for (const rec of r.records)
          sink.consumerGroupRecord?.(r.groupId, { key: Buffer.from(rec.key), value: rec.value && Buffer.from(rec.value) })
        return
      case 'offsets':
        r.entries.forEach((e, i) => {
          const at = r.baseOffset + i
          if (r.producer && e.value) sink.txnOffset(r.producer.producerId, r.groupId, e.topic, e.partition, { ...e.value }, at)
          else sink.offset(r.groupId, e.topic, e.partition, copyOffset(e.value), at)
        })
    }
  }

  /** The next store call rejects with err (queued: several calls fail in turn). */
  failNext(err: Error): void {
    this.failures.push(err)
  }

  /** Store calls wait until resume(). */
  pause(): void {
    if (this.gate) return
    this.gate = new Promise((resolve) => {
      this.openGate = resolve
    })
  }

  resume(): void {
    this.openGate?.()
    this.gate = null
    this.openGate = null
  }

  /** loadPartition calls wait until releaseLoads(). */
  holdLoads(): void {
    if (this.loadGate) return
    this.loadGate = new Promise((resolve) => {
      this.openLoadGate = resolve
    })
  }

  releaseLoads(): void {
    this.openLoadGate?.()
    this.loadGate = null
    this.openLoadGate = null
  }

  /** The last stored group snapshot of a group (undefined if never stored; null if deleted). */
  lastGroup(groupId: string): GroupSnapshot | null | undefined {
    let out: GroupSnapshot | null | undefined
    for (const r of this.records) if (r.kind === 'group' && r.groupId === groupId) out = r.snapshot
    return out
  }

  /** Resolves with the record's base offset. */
  private async write(rec: DistributiveOmit<StoredRecord, 'baseOffset'>, offsets: number): Promise<number> {
    const failure = this.failures.shift()
    const baseOffset = this.nextOffset
    if (!failure) {
      this.records.push({ ...rec, baseOffset } as StoredRecord)
      this.nextOffset += offsets
    }
    if (this.gate) await this.gate
    if (failure) throw failure
    return baseOffset
  }
}
