// A group's committed offsets in memory, and how durable writes reach them.
//
// The table changes only once a write is durable (GroupPersistence resolves), and in the order
// the writes were issued — which is the order they reach `__consumer_offsets` — even if their
// acknowledgements come back in another order (OrderedWrites). So what the coordinator serves is
// always what a restart would replay.
//
// Expiry (offsets.retention.minutes, KIP-211 / KIP-496), as Kafka's offsetExpirationCondition:
// - a group with a protocol type that is Empty: every offset expires once the group has been
//   empty for the retention (or, without a state timestamp, retention after its commit);
// - a Stable consumer group whose subscriptions are known: offsets of topics no member
//   subscribes to expire retention after their commit;
// - a group that never had members (simple consumers, admin resets): retention after commit;
// - otherwise nothing expires.
// An offset committed with an explicit retention (OffsetCommit v2–4) expires at that time instead.
import type { CommittedOffset } from './persistence.js'

export class OffsetTable {
  private readonly byTopic = new Map<string, Map<number, CommittedOffset>>()

  get(topic: string, partition: number): CommittedOffset | undefined {
    return this.byTopic.get(topic)?.get(partition)
  }

  set(topic: string, partition: number, value: CommittedOffset): void {
    let t = this.byTopic.get(topic)
    if (!t) this.byTopic.set(topic, (t = new Map()))
    t.set(partition, value)
  }

  delete(topic: string, partition: number): boolean {
    const t = this.byTopic.get(topic)
    if (!t?.delete(partition)) return false
    if (t.size === 0) this.byTopic.delete(topic)
    return true
  }

  get isEmpty(): boolean {
    return this.byTopic.size === 0
  }

  topics(): string[] {
    return [...this.byTopic.keys()]
  }

  /** Partitions of the topic, ascending. */
  partitions(topic: string): Array<[number, CommittedOffset]> {
    return [...(this.byTopic.get(topic) ?? [])].sort((a, b) => a[0] - b[0])
  }

  *entries(): Generator<{ topic: string; partition: number; value: CommittedOffset }> {
    for (const [topic, parts] of this.byTopic) {
      for (const [partition, value] of parts) yield { topic, partition, value }
    }
  }

  clear(): void {
    this.byTopic.clear()
  }
}

/** Starts every transactional in-flight key; no topic-partition key can (topic names have no NUL). */
const TXN_KEY_PREFIX = '\u0000txn\u0000'

/**
 * Applies the outcome of asynchronous writes in the order they were issued. Each write gets a
 * slot when issued; its outcome is applied once it and every earlier write have settled.
 */
export class OrderedWrites {
  private readonly queue: Array<{ settled: boolean; apply: () => void }> = []
  /** Topic-partitions ("topic\0partition") with a commit in flight: expiry leaves them alone. */
  private readonly inFlight = new Map<string, number>()

  /**
   * Issues `write` now and applies `onDone(error, result)` in issue order (result undefined when
   * the write failed). Resolves (never rejects) with the write's error, or null, once applied.
   */
  run<T>(write: () => Promise<T>, onDone: (err: unknown, result: T | undefined) => void, keys: readonly string[] = []): Promise<unknown> {
    for (const k of keys) this.inFlight.set(k, (this.inFlight.get(k) ?? 0) + 1)
    return new Promise<unknown>((resolve) => {
      const slot = { settled: false, apply: () => {} }
      this.queue.push(slot)
      const settle = (err: unknown, result?: T) => {
        for (const k of keys) {
          const n = (this.inFlight.get(k) ?? 1) - 1
          if (n === 0) this.inFlight.delete(k)
          else this.inFlight.set(k, n)
        }
        slot.apply = () => {
          onDone(err, result)
          resolve(err)
        }
        slot.settled = true
        this.drain()
      }
      let p: Promise<T>
      try {
        p = write()
      } catch (err) {
        p = Promise.reject(err)
      }
      p.then(
        (result) => settle(null, result),
        (err: unknown) => settle(err ?? new Error('write failed')),
      )
    })
  }

  /** Some write has not been applied yet. */
  get pending(): boolean {
    return this.queue.length > 0
  }

  isInFlight(key: string): boolean {
    return this.inFlight.has(key)
  }

  /** A transactional commit (keys from txnOffsetKey) is in flight. */
  get hasInFlightTxn(): boolean {
    for (const k of this.inFlight.keys()) if (k.startsWith(TXN_KEY_PREFIX)) return true
    return false
  }

  private drain(): void {
    while (this.queue.length > 0 && this.queue[0]!.settled) this.queue.shift()!.apply()
  }
}

export const offsetKey = (topic: string, partition: number): string => `${topic}\u0000${partition}`
/** The in-flight key of a transactional commit of the partition (OffsetFetch's require_stable sees it). */
export const txnOffsetKey = (topic: string, partition: number): string => `${TXN_KEY_PREFIX}${topic}\u0000${partition}`

/** The log offset of entry `index` of a batch stored at `baseOffset` (-1: unknown). */
export const recordOffsetAt = (baseOffset: number | undefined, index: number): number =>
  baseOffset !== undefined && baseOffset >= 0 ? baseOffset + index : -1
