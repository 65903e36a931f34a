// EtcdMirror: an in-memory copy of every key under one etcd prefix, kept current by a watch. The
// etcd metadata store and the broker membership read from it synchronously (the MetadataStore
// port's reads are synchronous) and condition their writes on the revisions it holds.
//
// Consistency: the copy is always the whole prefix as it was at one revision (`revision`). One
// range read fills it; a watch from the next revision then delivers every later change, applied one
// watch response at a time, in revision order (etcd sends all the events of one revision in one
// response, so a multi-key transaction appears at once, never half-applied). Events at or below the
// copy's revision are already in it and are skipped.
//
// Reloads: when the watch stream breaks and reconnects, and when etcd cancels the watch because the
// revision it resumes from has been compacted away, the copy is read again in full (at revision H)
// and the watch goes on from H + 1; events that arrive while the read is in flight are held and
// applied after it. Reloading after every reconnect also covers a quirk of the etcd3 client: a
// reconnected watcher resumes from the revision of its last creation response, so events between
// that revision and the ones it had delivered could otherwise be skipped.
//
// Listeners see each applied batch as a list of changed keys (entry undefined = deleted).
import type { Etcd3, IKeyValue, IWatchResponse, Watcher } from 'etcd3'
import type { Clock, Timer } from '../util/clock.js'
import type { Logger } from '../util/logger.js'

export interface MirrorEntry {
  /** The key without the mirror's prefix. */
  readonly key: string
  readonly value: Buffer
  readonly createRevision: number
  readonly modRevision: number
  /** The etcd lease id the key is attached to ("0": none). */
  readonly lease: string
}

export interface MirrorChange {
  readonly key: string
  /** The new entry, or undefined when the key was deleted. */
  readonly entry: MirrorEntry | undefined
}

export type MirrorListener = (changes: readonly MirrorChange[], revision: number) => void

/** A change written to etcd was not seen by this broker's watch in time. */
export class MirrorLagError extends Error {
  constructor(revision: number, timeoutMs: number) {
    super(`the change at etcd revision ${revision} was not seen by this broker's watch within ${timeoutMs} ms`)
    this.name = 'MirrorLagError'
  }
}

interface Waiter {
  revision: number
  resolve: () => void
  reject: (err: Error) => void
  timer: Timer
}

const RETRY_MS = 500
const MAX_RETRY_MS = 8000
const CANCEL_TIMEOUT_MS = 1000

/** 500 ms doubling up to 8 s. */
const retryDelayMs = (attempt: number) => Math.min(RETRY_MS * 2 ** attempt, MAX_RETRY_MS)

export class EtcdMirror {
  private entries = new Map<string, MirrorEntry>()
  private rev = 0
  private watcher: Watcher | undefined
  /** Set while a full read is in flight; watch responses wait in `held` meanwhile. */
  private reloading = false
  private held: IWatchResponse[] = []
  private loads: Promise<void> = Promise.resolve()
  private waiters: Waiter[] = []
  private readonly listeners: MirrorListener[] = []
  private closed = false

  private constructor(
    private readonly client: Etcd3,
    /** The full prefix, ending with '/'. */
    readonly prefix: string,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly include: (key: string) => boolean,
  ) {}

  /**
   * Reads the prefix and starts watching it. Rejects when etcd cannot be reached. Only the keys
   * (relative to the prefix) that `include` accepts are kept; by default all of them.
   */
  static async open(
    client: Etcd3,
    prefix: string,
    clock: Clock,
    logger: Logger,
    include: (key: string) => boolean = () => true,
  ): Promise<EtcdMirror> {
    const m = new EtcdMirror(client, prefix.endsWith('/') ? prefix : `${prefix}/`, clock, logger, include)
    await m.load()
    await m.watch()
    return m
  }

  /** The revision the copy reflects: every change at or below it is in. */
  get revision(): number {
    return this.rev
  }

  get(key: string): MirrorEntry | undefined {
    return this.entries.get(key)
  }

  /** Entries whose key starts with `sub` (relative to the prefix). */
  *under(sub: string): Iterable<MirrorEntry> {
    for (const e of this.entries.values()) if (e.key.startsWith(sub)) yield e
  }

  onChange(listener: MirrorListener): void {
    this.listeners.push(listener)
  }

  /** Resolves once the copy reflects `revision` (a write of ours has come back through the watch). */
  waitFor(revision: number, timeoutMs: number): Promise<void> {
    if (this.rev >= revision) return Promise.resolve()
    if (this.closed) return Promise.reject(new Error('etcd mirror is closed'))
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        revision,
        resolve,
        reject,
        timer: this.clock.setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter)
          reject(new MirrorLagError(revision, timeoutMs))
        }, timeoutMs),
      }
      this.waiters.push(waiter)
    })
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    for (const w of this.waiters) {
      w.timer.cancel()
      w.reject(new Error('etcd mirror is closed'))
    }
    this.waiters = []
    const w = this.watcher
    this.watcher = undefined
    // The cancel is answered by etcd; with etcd unreachable it never is, and closing must not hang.
    if (w)
      await new Promise<void>((resolve) => {
        const timer = this.clock.setTimeout(resolve, CANCEL_TIMEOUT_MS)
        w.cancel().then(
          () => {
            timer.cancel()
            resolve()
          },
          () => resolve(),
        )
      })
  }

  private rel(key: Buffer): string {
    return key.toString('utf8').slice(this.prefix.length)
  }

  private entryOf(kv: IKeyValue): MirrorEntry {
    return {
      key: this.rel(kv.key),
      value: kv.value,
      createRevision: Number(kv.create_revision),
      modRevision: Number(kv.mod_revision),
      lease: String(kv.lease ?? '0'),
    }
  }

  /**
   * Replaces the copy with one range read, then applies what the watch delivered meanwhile. Loads
   * run one at a time, so an older read never replaces a newer state.
   */
  private load(): Promise<void> {
    const run = this.loads.then(() => this.loadNow())
    this.loads = run.catch(() => {})
    return run
  }

  private async loadNow(): Promise<void> {
    this.reloading = true
    try {
      const res = await this.client.getAll().prefix(this.prefix).exec()
      const next = new Map<string, MirrorEntry>()
      for (const kv of res.kvs) {
        const key = this.rel(kv.key)
        if (this.include(key)) next.set(key, this.entryOf(kv))
      }
      const changes: MirrorChange[] = []
      for (const [key, e] of next) if (this.entries.get(key)?.modRevision !== e.modRevision) changes.push({ key, entry: e })
      for (const key of this.entries.keys()) if (!next.has(key)) changes.push({ key, entry: undefined })
      this.entries = next
      this.rev = Math.max(this.rev, Number(res.header.revision))
      if (changes.length > 0) this.publish(changes)
    } finally {
      this.reloading = false
    }
    const held = this.held
    this.held = []
    for (const res of held) this.apply(res)
    this.settleWaiters()
  }

  private async watch(): Promise<void> {
    const watcher = await this.client
      .watch()
      .prefix(this.prefix)
      .startRevision(String(this.rev + 1))
      .create()
    if (this.closed) {
      await watcher.cancel().catch(() => {})
      return
    }
    this.watcher = watcher
    let disconnected = false
    watcher.on('data', (res) => {
      if (this.reloading) this.held.push(res)
      else this.apply(res)
    })
    watcher.on('disconnected', (err) => {
      if (!disconnected) this.logger.warn('etcd watch disconnected; will reload on reconnect', { err })
      disconnected = true
    })
    watcher.on('connected', () => {
      if (!disconnected || this.closed) return
      disconnected = false
      void this.reloadSafely('watch reconnected')
    })
    // etcd cancels a watch whose start revision was compacted: read everything again, watch anew.
    watcher.on('error', (err) => {
      if (this.closed || this.watcher !== watcher) return
      this.logger.warn('etcd watch canceled; reloading the metadata', { err })
      this.watcher = undefined
      void watcher.cancel().catch(() => {})
      void this.restart()
    })
  }

  private async reloadSafely(reason: string, attempt = 0): Promise<void> {
    try {
      await this.load()
      this.logger.info('reloaded the metadata from etcd', { reason, revision: this.rev })
    } catch (err) {
      if (this.closed) return
      this.logRetry('reloading from etcd failed; retrying', err, attempt)
      this.clock.setTimeout(() => void this.reloadSafely(reason, attempt + 1), retryDelayMs(attempt))
    }
  }

  private async restart(): Promise<void> {
    for (let attempt = 0; !this.closed; attempt++) {
      try {
        await this.load()
        await this.watch()
        return
      } catch (err) {
        this.logRetry('re-establishing the etcd watch failed; retrying', err, attempt)
        await new Promise<void>((r) => this.clock.setTimeout(r, retryDelayMs(attempt)))
      }
    }
  }

  /** The first failure of a retry loop is a warning; the rest (etcd still away) are debug lines. */
  private logRetry(msg: string, err: unknown, attempt: number): void {
    if (attempt === 0) this.logger.warn(msg, { err })
    else this.logger.debug(msg, { err, attempt })
  }

  private apply(res: IWatchResponse): void {
    const changes: MirrorChange[] = []
    let top = this.rev
    for (const ev of res.events) {
      const modRevision = Number(ev.kv.mod_revision)
      if (modRevision <= this.rev) continue
      if (modRevision > top) top = modRevision
      const key = this.rel(ev.kv.key)
      if (!this.include(key)) continue
      if (String(ev.type).toLowerCase() === 'delete') {
        if (this.entries.delete(key)) changes.push({ key, entry: undefined })
      } else {
        const entry = this.entryOf(ev.kv)
        this.entries.set(key, entry)
        changes.push({ key, entry })
      }
    }
    this.rev = top
    if (changes.length > 0) this.publish(changes)
    this.settleWaiters()
  }

  private publish(changes: readonly MirrorChange[]): void {
    for (const l of this.listeners) {
      try {
        l(changes, this.rev)
      } catch (err) {
        this.logger.error('an etcd change listener failed', { err })
      }
    }
  }

  private settleWaiters(): void {
    if (this.waiters.length === 0) return
    const ready = this.waiters.filter((w) => w.revision <= this.rev)
    if (ready.length === 0) return
    this.waiters = this.waiters.filter((w) => w.revision > this.rev)
    for (const w of ready) {
      w.timer.cancel()
      w.resolve()
    }
  }
}
