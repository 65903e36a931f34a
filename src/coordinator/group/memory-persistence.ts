// An in-memory GroupPersistence: for unit tests and for embedding a coordinator without a log.
// It keeps every store call in order, as the `__consumer_offsets` log would, and load() replays
// them (last record per key wins, null removes). Values are copied in and out, so nothing the
// coordinator later mutates can change what was "written".
//
// Test hooks: failNext() makes the next store call reject with the given error; pause() holds
// store calls until resume(), to observe what happens while a write is in flight; holdLoads()
// holds loadPartition calls until releaseLoads(), to observe a partition while it loads.
import type { CommittedOffset, GroupPersistence, GroupSnapshot, LoadSink, OffsetEntry } from './persistence.js'
import { partitionForGroup } from './persistence.js'

export type StoredRecord =
  | { kind: 'group'; groupId: string; snapshot: GroupSnapshot | null }
  | { kind: 'offsets'; groupId: string; entries: OffsetEntry[] }

const copySnapshot = (s: GroupSnapshot | null): GroupSnapshot | null =>
  s && {
    ...s,
    members: s.members.map((m) => ({ ...m, subscription: Buffer.from(m.subscription), assignment: Buffer.from(m.assignment) })),
  }

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

  constructor(private readonly numPartitions = 50) {}

  get partitionCount(): number {
    return this.numPartitions
  }

  partitionFor(groupId: string): number {
    return partitionForGroup(groupId, this.numPartitions)
  }

  async storeGroup(groupId: string, snapshot: GroupSnapshot | null): Promise<void> {
    // Recorded at call time (the log's order is the call order), made visible after the gate.
    const rec: StoredRecord = { kind: 'group', groupId, snapshot: copySnapshot(snapshot) }
    await this.write(rec)
  }

  async storeOffsets(groupId: string, entries: OffsetEntry[]): Promise<void> {
    const rec: StoredRecord = { kind: 'offsets', groupId, entries: entries.map((e) => ({ ...e, value: copyOffset(e.value) })) }
    await this.write(rec)
  }

  async load(sink: LoadSink): Promise<void> {
    for (const r of this.records) this.replay(r, sink)
  }

  async loadPartition(partition: number, sink: LoadSink): Promise<void> {
    this.partitionLoads.push(partition)
    if (this.loadGate) await this.loadGate
    // What was stored until the load completes, as a log read to its end would see it.
    for (const r of this.records) if (this.partitionFor(r.groupId) === partition) this.replay(r, sink)
  }

  private replay(r: StoredRecord, sink: LoadSink): void {
    if (r.kind === 'group') sink.group(r.groupId, copySnapshot(r.snapshot))
    else for (const e of r.entries) sink.offset(r.groupId, e.topic, e.partition, copyOffset(e.value))
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

  private async write(rec: StoredRecord): Promise<void> {
    const failure = this.failures.shift()
    if (!failure) this.records.push(rec)
    if (this.gate) await this.gate
    if (failure) throw failure
  }
}
