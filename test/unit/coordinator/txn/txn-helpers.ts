// A transaction coordinator on a ManualClock with everything around it in memory: the
// `__transaction_state` log (a record list per partition, whose writes can be held or failed),
// producer ids counting up, and a marker sender that records what it was asked and answers with
// scripted codes.
import {
  TransactionCoordinator,
  type TxnCoordinatorConfig,
  DEFAULT_TXN_COORDINATOR_CONFIG,
} from '../../../../src/coordinator/txn/txn-coordinator.js'
import { partitionForTransactionalId, type TxnStateLog } from '../../../../src/coordinator/txn/txn-log.js'
import { toLogValue, type TxnTransit } from '../../../../src/coordinator/txn/txn-metadata.js'
import { decodeTxnValue, encodeTxnValue, type TxnLogValue } from '../../../../src/coordinator/txn/txn-records.js'
import type { MarkerPartition, MarkerResult, TxnMarker } from '../../../../src/ports/transactions.js'
import { KafkaError, type ErrorName } from '../../../../src/protocol/errors.js'
import { ManualClock } from '../../../../src/util/clock.js'
import { silentLogger } from '../../../../src/util/logger.js'

export const PARTITIONS = 4

export class MemoryTxnLog implements TxnStateLog {
  /** Per partition, every record written (encoded and decoded again, as the topic would). */
  readonly records = new Map<number, Array<{ id: string; value: TxnLogValue | null }>>()
  /** The next writes fail with these codes, one each (null: that write succeeds). */
  failures: Array<ErrorName | null> = []
  /** While set, writes wait for release(). */
  private held: Array<() => void> | null = null
  /** While set, loads wait for it. */
  loadGate: Promise<void> | null = null

  partitionFor(id: string): number {
    return partitionForTransactionalId(id, PARTITIONS)
  }

  async ensureTopic(): Promise<void> {}

  async store(id: string, value: TxnLogValue | null): Promise<void> {
    if (this.held) await new Promise<void>((resolve) => this.held!.push(resolve))
    const failure = this.failures.shift()
    if (failure) throw new KafkaError(failure)
    const p = this.partitionFor(id)
    const list = this.records.get(p) ?? []
    list.push({ id, value: value === null ? null : decodeTxnValue(encodeTxnValue(value)) })
    this.records.set(p, list)
  }

  async loadPartition(partition: number, sink: (id: string, v: TxnLogValue | null) => void): Promise<number> {
    if (this.loadGate) await this.loadGate
    const list = this.records.get(partition) ?? []
    for (const r of list) sink(r.id, r.value)
    return list.length
  }

  /**
   * A state already in the log before the coordinator starts (as a previous coordinator wrote it):
   * no previous or next producer id, no last epoch, a 60 s timeout, no partitions, transactions v1,
   * unless given.
   */
  seed(
    id: string,
    t: Pick<TxnTransit, 'producerId' | 'producerEpoch' | 'state' | 'txnStartTimestamp' | 'txnLastUpdateTimestamp'> & Partial<TxnTransit>,
  ): void {
    const p = this.partitionFor(id)
    const value = toLogValue({
      prevProducerId: -1,
      nextProducerId: -1,
      lastProducerEpoch: -1,
      txnTimeoutMs: 60_000,
      partitions: new Set(),
      clientTransactionVersion: 0,
      ...t,
    })
    this.records.set(p, [...(this.records.get(p) ?? []), { id, value }])
  }

  hold(): void {
    this.held = []
  }

  release(): void {
    const waiting = this.held ?? []
    this.held = null
    for (const w of waiting) w()
  }

  /** The states written for an id, in order (null: tombstone). */
  statesOf(id: string): Array<number | null> {
    return (this.records.get(this.partitionFor(id)) ?? []).filter((r) => r.id === id).map((r) => r.value?.transactionStatus ?? null)
  }

  last(id: string): TxnLogValue | null | undefined {
    const list = (this.records.get(this.partitionFor(id)) ?? []).filter((r) => r.id === id)
    return list.at(-1)?.value
  }
}

export class FakeMarkers {
  readonly calls: Array<{ marker: TxnMarker; partitions: MarkerPartition[] }> = []
  /** Codes to answer, per `topic:partition`, consumed one per call (then 0). */
  readonly script = new Map<string, number[]>()

  async send(marker: TxnMarker, partitions: MarkerPartition[]): Promise<MarkerResult[]> {
    this.calls.push({ marker, partitions: [...partitions] })
    return partitions.map((p) => ({ ...p, errorCode: this.script.get(`${p.topic}:${p.partition}`)?.shift() ?? 0 }))
  }
}

/** Lets pending promise chains run (the fakes resolve at once). */
export async function settle(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve))
}

export interface TxnRig {
  clock: ManualClock
  log: MemoryTxnLog
  markers: FakeMarkers
  coordinator: TransactionCoordinator
  nextProducerId: { value: number }
  /** Elects every partition at this epoch and waits for the loads. */
  electAll(epoch?: number): Promise<void>
  newCoordinator(): TransactionCoordinator
}

export function txnRig(config: Partial<TxnCoordinatorConfig> = {}, log = new MemoryTxnLog()): TxnRig {
  const clock = new ManualClock(1_700_000_000_000)
  const markers = new FakeMarkers()
  const nextProducerId = { value: 1000 }
  const make = () =>
    new TransactionCoordinator({
      clock,
      logger: silentLogger,
      log,
      producerIds: { initProducerId: async () => ({ producerId: nextProducerId.value++, producerEpoch: 0 }) },
      markers,
      config: { ...DEFAULT_TXN_COORDINATOR_CONFIG, ...config },
      transactionVersion: () => 2,
      partitionExists: (topic) => topic !== 'missing',
      offsetsPartitionFor: () => 7,
    })
  const rig: TxnRig = {
    clock,
    log,
    markers,
    coordinator: make(),
    nextProducerId,
    async electAll(epoch = 1) {
      await Promise.all(Array.from({ length: PARTITIONS }, (_, p) => rig.coordinator.onElection(p, epoch)))
    },
    newCoordinator: make,
  }
  return rig
}
