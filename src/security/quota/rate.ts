// The two measures client quotas are checked against, as Kafka's metrics library computes them.
//
// SampledRate (Kafka's Rate over a SampledStat of sums): `samples` windows of `windowMs` each; a
// value goes into the current window, a window is replaced once it is windowMs old, and one that
// saw no event for samples × windowMs is reset. The rate is the sum of the windows divided by the
// time they cover, counted as at least samples − 1 full windows (so a first burst is not measured
// over a few milliseconds), in units per second. When the rate is over the quota the throttle time
// is Kafka's QuotaUtils.throttleTime: (rate − quota) / quota × window, the delay that brings the
// rate back to the quota if nothing more is recorded.
//
// TokenBucket (KIP-599, controller mutations): `quota` tokens per second refill a bucket of
// samples × windowSeconds × quota; a mutation takes its count (the bucket may go negative); it is
// exceeded while negative, for −tokens / quota seconds.
//
// Both take the time as an argument (monotonic milliseconds): pure, for unit tests.

interface Sample {
  value: number
  startMs: number
  lastEventMs: number
}

export class SampledRate {
  private readonly windows: Sample[] = []
  private current = 0

  constructor(
    readonly samples: number,
    readonly windowMs: number,
  ) {}

  record(value: number, nowMs: number): void {
    let sample = this.currentSample(nowMs)
    if (nowMs - sample.startMs >= this.windowMs) sample = this.advance(nowMs)
    sample.value += value
    sample.lastEventMs = nowMs
  }

  /** Units per second over the retained windows. */
  rate(nowMs: number): number {
    this.purge(nowMs)
    let total = 0
    for (const s of this.windows) total += s.value
    return total / (this.windowSize(nowMs) / 1000)
  }

  /** Kafka's Rate.windowSize: time since the oldest window, at least samples − 1 windows, ≥ 1 ms. */
  windowSize(nowMs: number): number {
    this.purge(nowMs)
    let oldest = this.currentSample(nowMs).startMs
    for (const s of this.windows) oldest = Math.min(oldest, s.startMs)
    let elapsed = nowMs - oldest
    const full = Math.floor(elapsed / this.windowMs)
    if (full < this.samples - 1) elapsed += (this.samples - 1 - full) * this.windowMs
    return Math.max(elapsed, 1)
  }

  /** 0 when within `quota` (units per second), else the milliseconds that bring the rate back to it. */
  throttleMs(quota: number, nowMs: number): number {
    const rate = this.rate(nowMs)
    if (rate <= quota) return 0
    return Math.round(((rate - quota) / quota) * this.windowSize(nowMs))
  }

  /** The last event, for expiring idle measures. */
  lastEventMs(): number {
    let last = -Infinity
    for (const s of this.windows) last = Math.max(last, s.lastEventMs)
    return last
  }

  private currentSample(nowMs: number): Sample {
    if (this.windows.length === 0) this.windows.push({ value: 0, startMs: nowMs, lastEventMs: nowMs })
    return this.windows[this.current]!
  }

  private advance(nowMs: number): Sample {
    // One extra window for the one overlapping the start of the measured span (as Kafka keeps).
    this.current = (this.current + 1) % (this.samples + 1)
    if (this.current >= this.windows.length) {
      const s = { value: 0, startMs: nowMs, lastEventMs: nowMs }
      this.windows.push(s)
      return s
    }
    const s = this.windows[this.current]!
    s.value = 0
    s.startMs = s.lastEventMs = nowMs
    return s
  }

  private purge(nowMs: number): void {
    const expireMs = this.samples * this.windowMs
    for (const s of this.windows) {
      if (nowMs - s.lastEventMs >= expireMs) {
        s.value = 0
        s.startMs = s.lastEventMs = nowMs
      }
    }
  }
}

export class TokenBucket {
  private tokens: number | undefined
  private lastMs = 0
  lastEventMs = -Infinity

  constructor(
    readonly samples: number,
    readonly windowMs: number,
  ) {}

  /** Tokens left at `quota` per second (negative: exhausted). */
  measure(quota: number, nowMs: number): number {
    const burst = (this.samples * this.windowMs * quota) / 1000
    const tokens = this.tokens ?? burst
    this.tokens = Math.min(burst, tokens + (quota * (nowMs - this.lastMs)) / 1000)
    this.lastMs = nowMs
    return this.tokens
  }

  record(value: number, quota: number, nowMs: number): void {
    this.tokens = this.measure(quota, nowMs) - value
    this.lastEventMs = nowMs
  }

  /** 0 while tokens remain, else the milliseconds until the bucket is back at zero. */
  throttleMs(quota: number, nowMs: number): number {
    const tokens = this.measure(quota, nowMs)
    return tokens >= 0 ? 0 : Math.round((-tokens / quota) * 1000)
  }
}
