// Long-poll support (a small "purgatory"): a Fetch that found fewer than min_bytes parks here
// until one of its partitions is appended to, its max_wait_ms passes, or its connection closes.
// Appends wake waiters directly — no polling timers (docs/architecture.md §4).
import type { Clock } from '../util/clock.js'

type Wake = () => void

export class AppendWaiters {
  private readonly byKey = new Map<string, Set<Wake>>()

  constructor(private readonly clock: Clock) {}

  /** Wakes every fetch waiting on this partition. */
  notify(key: string): void {
    const set = this.byKey.get(key)
    if (!set) return
    this.byKey.delete(key)
    for (const wake of set) wake()
  }

  /**
   * Resolves when any of the keys is appended to, after timeoutMs, or when signal aborts —
   * whichever comes first. Returns true if woken by an append. `changed`, checked once the waiter
   * is registered, closes the gap between the caller's last read and the registration: if it
   * reports that an append already happened, the wait ends at once.
   */
  wait(keys: string[], timeoutMs: number, signal?: AbortSignal, changed?: () => boolean): Promise<boolean> {
    return new Promise((resolve) => {
      if (signal?.aborted || timeoutMs <= 0) return resolve(false)
      let done = false
      const finish = (appended: boolean) => {
        if (done) return
        done = true
        timer.cancel()
        signal?.removeEventListener('abort', onAbort)
        for (const k of keys) {
          const set = this.byKey.get(k)
          if (!set) continue
          set.delete(wake)
          if (set.size === 0) this.byKey.delete(k)
        }
        resolve(appended)
      }
      const wake = () => finish(true)
      const onAbort = () => finish(false)
      const timer = this.clock.setTimeout(() => finish(false), timeoutMs)
      signal?.addEventListener('abort', onAbort, { once: true })
      for (const k of keys) {
        let set = this.byKey.get(k)
        if (!set) this.byKey.set(k, (set = new Set()))
        set.add(wake)
      }
      if (changed?.()) finish(true)
    })
  }

  get size(): number {
    let n = 0
    for (const s of this.byKey.values()) n += s.size
    return n
  }
}
