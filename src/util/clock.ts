// The Clock port: every piece of code that needs the time or a timer takes a Clock, so tests can
// run session timeouts, long polls and segment rolls on a virtual clock (docs/architecture.md §1.8).

export interface Timer {
  cancel(): void
}

export interface Clock {
  /** Wall-clock milliseconds since the epoch (record timestamps, retention). */
  now(): number
  /** Monotonic milliseconds (timeouts, idle detection); never goes backwards. */
  monotonic(): number
  /** Calls fn once after delayMs. The returned timer never keeps the process alive. */
  setTimeout(fn: () => void, delayMs: number): Timer
}

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  setTimeout(fn, delayMs) {
    const t = setTimeout(fn, delayMs)
    t.unref()
    return { cancel: () => clearTimeout(t) }
  },
}

/** A clock that only moves when told to; timers fire in due order inside advance(). */
export class ManualClock implements Clock {
  private wall: number
  private mono = 0
  private seq = 0
  private readonly timers = new Map<number, { at: number; fn: () => void }>()

  constructor(startMs = 1_700_000_000_000) {
    this.wall = startMs
  }

  now(): number {
    return this.wall
  }

  monotonic(): number {
    return this.mono
  }

  setTimeout(fn: () => void, delayMs: number): Timer {
    const id = ++this.seq
    this.timers.set(id, { at: this.mono + Math.max(0, delayMs), fn })
    return { cancel: () => this.timers.delete(id) }
  }

  advance(ms: number): void {
    const target = this.mono + ms
    for (;;) {
      let nextId = -1
      let nextAt = Number.POSITIVE_INFINITY
      for (const [id, t] of this.timers) {
        if (t.at <= target && t.at < nextAt) {
          nextAt = t.at
          nextId = id
        }
      }
      if (nextId < 0) break
      const t = this.timers.get(nextId)!
      this.timers.delete(nextId)
      this.wall += t.at - this.mono
      this.mono = t.at
      t.fn()
    }
    this.wall += target - this.mono
    this.mono = target
  }
}
