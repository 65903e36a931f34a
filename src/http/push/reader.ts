// Record readers of the classic push streams (not share groups: share.ts).
//
// - runReader: one Fetcher (client/consumer.ts) on a connection of its own for one stream, from
//   its start positions (a cursor, a time, earliest, or a group's committed offsets). It paces
//   itself (sink.ts paced) and, between fetches, waits until the subscriber has taken what was
//   sent (sink.drained()), so a catching-up reader never runs ahead of its subscriber. With a group it commits the positions delivered
//   after each such wait (OffsetCommit without a member, admin-groups.ts commitOffsets): the HTTP
//   stream is the group's only reader, so committing "the partitions streamed" is all a group needs
//   here — a classic member would also take part in rebalances that an HTTP client cannot see.
// - TopicTail: the shared reader of every stream that starts at the log end of a topic with no
//   cursor and no group: one Fetcher over all partitions per topic, fanning each fetch out to the
//   subscribers, each of which skips what lies before its own start; subscribers at the same
//   positions share one encoding of each fetch (fanOut). A slow subscriber does not
//   hold it back: its sink cuts it at the buffer limit; fetches are capped at a sixteenth of that
//   limit so that a burst fits a subscriber that keeps up. The tail stops with its last subscriber.
//   Its partitions are the topic's when it started.
// Fetches go to each partition's leader through Tributary's client, so this works in a cluster.
import { userKey } from '../auth.js'
import { KafkaClient } from '../../client/client.js'
import { Fetcher, type FetchedPartition } from '../../client/consumer.js'
import { commitOffsets } from '../../client/admin-groups.js'
import { listOffsets, OffsetSpec } from '../../client/admin.js'
import { Positions } from './cursor.js'
import type { PushPlan } from './plan.js'
import { type EncodedBatch, errorText, type PushContext, type PushSink, paced } from './sink.js'

const FETCH_WAIT_MS = 500

/**
 * Sends a fetched partition's records the subscriber has not had, one per step (a paced caller
 * waits between steps), moving its positions past each record sent and, at the end, past the
 * whole fetch. Stops when the sink closes.
 */
function* sendUnsent(fp: FetchedPartition, positions: Positions, sink: PushSink): Generator<void> {
  const from = positions.next.get(fp.partition)
  if (from === undefined) return
  for (const r of fp.records) {
    if (r.offset < from) continue
    if (!sink.open) return
    positions.advance(r.partition, r.offset + 1)
    sink.send(r, positions.encode())
    yield
  }
  if (sink.open) positions.advance(fp.partition, fp.nextOffset)
}

/** The shared tail's delivery: all at once, it waits for no one; false once the sink closed. */
function deliver(fp: FetchedPartition, positions: Positions, sink: PushSink): boolean {
  for (const _ of sendUnsent(fp, positions, sink));
  return sink.open
}

/** A private reader's delivery, waiting for a lagging subscriber; false once the sink closed. */
async function deliverPaced(fp: FetchedPartition, positions: Positions, sink: PushSink): Promise<boolean> {
  for (const _ of sendUnsent(fp, positions, sink)) if (!(await paced(sink))) break
  return sink.open
}

/**
 * Streams a plan's partitions from its start positions until the sink closes — or, with
 * `handOff`, until a poll finds nothing new and the shared tail takes the stream over from its
 * positions (it does when it has sent nothing past them: see TopicTail.join).
 */
export async function runReader(
  ctx: PushContext,
  plan: PushPlan,
  sink: PushSink,
  handOff?: (positions: ReadonlyMap<number, number>) => Promise<boolean>,
): Promise<void> {
  if (!sink.open) return
  const client = await KafkaClient.connect(ctx.clientOptions())
  const abort = new AbortController()
  void sink.closed.then(() => abort.abort())
  const positions = new Positions(plan.start)
  let committed = new Map(plan.start)
  try {
    const fetcher = new Fetcher(client, { maxWaitMs: FETCH_WAIT_MS, autoOffsetReset: 'earliest' })
    fetcher.assign(plan.partitions.map((partition) => ({ topic: plan.topic, partition, offset: plan.start.get(partition)! })))
    while (sink.open) {
      let open = true
      const fetched = await fetcher.poll(abort.signal)
      for (const fp of fetched) if (open) open = await deliverPaced(fp, positions, sink)
      if (!open) break
      if (fetched.every((fp) => fp.records.length === 0) && handOff && sink.open && (await handOff(positions.next))) {
        ctx.logger.debug('HTTP push: a caught-up stream moved to the shared tail', { topic: plan.topic })
        return
      }
      await sink.drained()
      if (plan.group !== null && sink.open) committed = await commitMoved(ctx, plan, positions, committed)
    }
    if (plan.group !== null) await commitMoved(ctx, plan, positions, committed)
  } catch (err) {
    sink.fail(errorText(err))
  } finally {
    await client.close().catch(() => {})
  }
}

async function commitMoved(
  ctx: PushContext,
  plan: PushPlan,
  positions: Positions,
  committed: Map<number, number>,
): Promise<Map<number, number>> {
  const moved = [...positions.next].filter(([p, o]) => committed.get(p) !== o)
  if (moved.length === 0) return committed
  const outcomes = await commitOffsets(
    await ctx.admin(),
    plan.group!,
    moved.map(([partition, offset]) => ({ topic: plan.topic, partition, offset })),
  )
  const failed = outcomes.find((o) => o.error !== null)
  if (failed) throw new Error(`committing offsets for group ${plan.group}: ${failed.error}`)
  return new Map(positions.next)
}

interface TailSubscriber {
  sink: PushSink
  positions: Positions
  /** Its partitions, sorted and joined: subscribers with the same ones at the same positions get the same events. */
  readonly partitionSet: string
}

/**
 * A fetch's events for every subscriber of one sink kind and partition set at the tail's own
 * positions, encoded once (sink.encode), and the positions after them.
 */
function encodeFetch(fetched: readonly FetchedPartition[], from: Positions, sink: PushSink): { batch: EncodedBatch; after: Positions } {
  const positions = new Positions(from.next)
  const events: string[] = []
  for (const fp of fetched) {
    const start = positions.next.get(fp.partition)
    if (start === undefined) continue
    for (const r of fp.records) {
      if (r.offset < start) continue
      positions.advance(r.partition, r.offset + 1)
      events.push(sink.encode!(r, positions.encode()))
    }
    positions.advance(fp.partition, fp.nextOffset)
  }
  return { batch: { events, lastCursor: positions.encode() }, after: positions }
}

/** The shared reader of one topic's log end. */
class TopicTail {
  private readonly subscribers = new Set<TailSubscriber>()
  private readonly abort = new AbortController()
  stopped = false

  private constructor(
    private readonly ctx: PushContext,
    readonly topic: string,
    private readonly client: KafkaClient,
    private readonly fetcher: Fetcher,
    /** Next offset of each partition, as far as every subscriber has been sent. */
    private readonly next: Map<number, number>,
    private readonly onStop: () => void,
  ) {}

  static async start(ctx: PushContext, topic: string, onStop: () => void): Promise<TopicTail> {
    const ends = await listOffsets(await ctx.admin(), topic, null, OffsetSpec.Latest)
    const client = await KafkaClient.connect(ctx.clientOptions())
    // Bursts of at most a sixteenth of a subscriber's buffer in record bytes per fetch (events are
    // bigger than their records: JSON, the cursor): the tail never waits, so a burst must fit a
    // subscriber that keeps up. A batch bigger than that still comes whole (KIP-74).
    const maxBytes = Math.max(1024, Math.floor(ctx.maxBufferedBytes / 16))
    const fetcher = new Fetcher(client, {
      maxWaitMs: FETCH_WAIT_MS,
      autoOffsetReset: 'earliest',
      maxBytes,
      partitionMaxBytes: Math.max(1024, Math.floor(maxBytes / Math.max(1, ends.size))),
    })
    fetcher.assign([...ends].map(([partition, offset]) => ({ topic, partition, offset })))
    const tail = new TopicTail(ctx, topic, client, fetcher, ends, onStop)
    ctx.logger.debug('HTTP push: shared tail started', { topic, partitions: ends.size })
    void tail.run()
    return tail
  }

  /**
   * Adds a subscriber of some partitions from the tail's current positions, or from `from` — which
   * it takes only where the tail has sent nothing past them (from ≥ its positions: what lies
   * before a subscriber's start is skipped, nothing after it is missed). False when it cannot.
   */
  join(sink: PushSink, partitions: readonly number[], from?: ReadonlyMap<number, number>): boolean {
    const fits = (p: number) => this.next.has(p) && (from === undefined || (from.get(p) ?? -1) >= this.next.get(p)!)
    if (this.stopped || !partitions.every(fits)) {
      if (this.subscribers.size === 0) this.stop()
      return false
    }
    const sub: TailSubscriber = {
      sink,
      positions: new Positions(partitions.map((p) => [p, from?.get(p) ?? this.next.get(p)!] as const)),
      partitionSet: [...partitions].sort((a, b) => a - b).join(','),
    }
    this.subscribers.add(sub)
    void sink.closed.then(() => this.leave(sub))
    return true
  }

  private leave(sub: TailSubscriber): void {
    this.subscribers.delete(sub)
    if (this.subscribers.size === 0) this.stop()
  }

  private stop(): void {
    if (this.stopped) return
    this.stopped = true
    this.abort.abort()
    this.onStop()
  }

  /**
   * Gives a fetch to every subscriber. Those at the tail's positions (all of them once they had
   * one fetch) share one encoding per sink kind and partition set; a subscriber's events of one
   * fetch leave in one write of its socket, not one per record.
   */
  private fanOut(fetched: readonly FetchedPartition[]): void {
    const shared = new Map<string, { batch: EncodedBatch; after: Positions }>()
    for (const sub of this.subscribers) {
      const { sink } = sub
      if (sink.kind !== undefined && sink.encode && sink.sendEncoded && this.atTail(sub.positions)) {
        const key = `${sink.kind}|${sub.partitionSet}`
        let enc = shared.get(key)
        if (!enc) shared.set(key, (enc = encodeFetch(fetched, sub.positions, sink)))
        sink.sendEncoded(enc.batch)
        if (sink.open) sub.positions = new Positions(enc.after.next)
      } else {
        let open = true
        sink.cork?.()
        for (const fp of fetched) if (open) open = deliver(fp, sub.positions, sink)
        sink.uncork?.()
      }
      if (!sink.open) this.subscribers.delete(sub)
    }
  }

  /** Whether a subscriber's positions are the tail's own for each of its partitions. */
  private atTail(positions: Positions): boolean {
    for (const [p, o] of positions.next) if (this.next.get(p) !== o) return false
    return true
  }

  private async run(): Promise<void> {
    try {
      while (!this.stopped) {
        const fetched = await this.fetcher.poll(this.abort.signal)
        if (fetched.length === 0) continue
        this.fanOut(fetched)
        for (const fp of fetched) this.next.set(fp.partition, fp.nextOffset)
      }
    } catch (err) {
      for (const sub of this.subscribers) sub.sink.fail(errorText(err))
      this.stop()
    } finally {
      await this.client.close().catch(() => {})
      this.ctx.logger.debug('HTTP push: shared tail stopped', { topic: this.topic })
    }
  }
}

/** The shared tails, one per user (auth.ts) and topic with subscribers. */
export class TailHub {
  private readonly tails = new Map<string, Promise<TopicTail>>()

  constructor(private readonly ctx: PushContext) {}

  /**
   * Joins a sink to the topic's shared tail, at the tail's positions or at `from`; false when it
   * cannot (its partitions are newer than the tail, or the tail is past `from`).
   */
  async join(plan: PushPlan, sink: PushSink, from?: ReadonlyMap<number, number>): Promise<boolean> {
    for (let attempt = 0; attempt < 2; attempt++) {
      // A tail reads as the user who started it (auth.ts): each user has tails of their own.
      const key = `${userKey()}\u0000${plan.topic}`
      let pending = this.tails.get(key)
      if (!pending) {
        pending = TopicTail.start(this.ctx, plan.topic, () => {
          if (this.tails.get(key) === pending) this.tails.delete(key)
        })
        this.tails.set(key, pending)
        pending.catch(() => {
          if (this.tails.get(key) === pending) this.tails.delete(key)
        })
      }
      const tail = await pending
      if (tail.join(sink, plan.partitions, from)) return true
      if (!tail.stopped) return false
    }
    return false
  }
}
