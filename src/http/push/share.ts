// Share-group push streams (KIP-932 queues over HTTP): each stream is one member of the share group,
// a ShareConsumer (client/share-consumer.ts) of its own, so every record goes to one subscriber of
// the group, as share groups deliver.
//
// - SSE (implicit acknowledgement): a record is acknowledged ACCEPT once its event is queued to the
//   subscriber; records of a fetch the stream could not send (it closed or was cut) are RELEASEd so
//   that another member gets them at once.
// - WebSocket (explicit acknowledgement): the subscriber sends {type:"ack", kind} for each record;
//   the next fetch waits until every record of the last one is acknowledged, or until the
//   acquisition lock has run out, after which what is still unacknowledged is RELEASEd — delivered
//   again, as share groups redeliver a record whose lock expired.
// close() of the consumer sends what was acknowledged and releases what the member still holds.
// The event cursor of a share record is {partition: offset + 1}: it names the record (for "ack"),
// it is no resume point (the group's state is).
import { setTimeout as sleep } from 'node:timers/promises'
import { type AckKind, ShareConsumer, type ShareRecord } from '../../client/share-consumer.js'
import { encodeCursor, PushError } from './cursor.js'
import type { PushPlan } from './plan.js'
import { errorText, type PushContext, type PushSink, paced } from './sink.js'

const DEFAULT_LOCK_MS = 30_000
/** Most records one ShareFetch acquires for a stream. */
const MAX_RECORDS = 500

export function shareCursor(r: { partition: number; offset: number }): string {
  return encodeCursor(new Map([[r.partition, r.offset + 1]]))
}

const heldKey = (partition: number, offset: number) => `${partition}:${offset}`

/** One share-group member feeding one stream. */
export class ShareStream {
  private readonly consumer: ShareConsumer
  /** Explicit mode: the records of the last fetch not acknowledged yet. */
  private readonly held = new Map<string, ShareRecord>()
  private settled: (() => void) | null = null

  constructor(
    private readonly ctx: PushContext,
    private readonly plan: PushPlan,
    private readonly sink: PushSink,
    private readonly explicit: boolean,
  ) {
    this.consumer = new ShareConsumer({
      ...ctx.clientOptions(),
      groupId: plan.shareGroup!,
      maxWaitMs: 500,
      maxRecords: MAX_RECORDS,
    })
  }

  async run(): Promise<void> {
    try {
      await this.consumer.subscribe([this.plan.topic])
      while (this.sink.open) {
        const records = await this.consumer.poll()
        for (const r of records) {
          if (!this.sink.open) {
            this.consumer.acknowledge(r, 'release')
            continue
          }
          this.sink.send(r, shareCursor(r))
          if (this.explicit) this.held.set(heldKey(r.partition, r.offset), r)
          else this.consumer.acknowledge(r, 'accept')
          await paced(this.sink)
        }
        await this.sink.drained()
        if (this.explicit) await this.awaitAcks()
      }
    } catch (err) {
      if (this.sink.open) this.sink.fail(errorText(err))
    } finally {
      await this.consumer.close().catch(() => {})
    }
  }

  /** Explicit mode: an acknowledgement from the subscriber. Throws a PushError for a record it does not hold. */
  acknowledge(partition: number, offset: number, kind: AckKind): void {
    const r = this.held.get(heldKey(partition, offset))
    if (!r) throw new PushError(400, 40001, `partition ${partition} offset ${offset} is not a record waiting for an acknowledgement`)
    this.held.delete(heldKey(partition, offset))
    this.consumer.acknowledge(r, kind)
    if (this.held.size === 0) this.settled?.()
  }

  private async awaitAcks(): Promise<void> {
    if (this.held.size === 0) return
    const lockMs = this.consumer.acquisitionLockTimeoutMs ?? DEFAULT_LOCK_MS
    const abort = new AbortController()
    const allAcked = new Promise<void>((resolve) => (this.settled = resolve))
    await Promise.race([allAcked, this.sink.closed, sleep(lockMs, undefined, { signal: abort.signal }).catch(() => {})])
    abort.abort()
    this.settled = null
    for (const r of this.held.values()) this.consumer.acknowledge(r, 'release')
    if (this.held.size > 0)
      this.ctx.logger.debug('HTTP push: unacknowledged share records released', { topic: this.plan.topic, records: this.held.size })
    this.held.clear()
  }
}
