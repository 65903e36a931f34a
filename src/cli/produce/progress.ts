// Progress of `tributary produce` on stderr.
//
// On a terminal (stderr is a TTY and stdin is not one being typed into) a single line is redrawn in
// place every 200 ms: a bar with the percentage when the input's size is known (--file, or stdin
// redirected from a file), else the counts; it appears at once for a file, and for a pipe once more
// than a screenful of records has been read, so short inputs print nothing but the summary. When
// stderr is not a terminal nothing is printed unless --progress asks for a plain line every 2 s
// (for logs and CI). The line is erased before the summary is printed.
//
// Sizes use binary multiples (1 KB = 1024 bytes, 1 MB = 2^20), as Kafka's tools do.

export const BAR_INTERVAL_MS = 200
export const PLAIN_INTERVAL_MS = 2000
/** Records read before a progress bar appears when the input's size is unknown. */
export const SCREENFUL_RECORDS = 50
const BAR_WIDTH = 20

export interface ProgressCounts {
  /** Records read from the input. */
  read: number
  /** Input bytes consumed. */
  inputBytes: number
  /** Records acknowledged (sent, with acks=0). */
  acked: number
}

export type ProgressMode = 'bar' | 'plain' | 'off'

export interface ProgressTarget {
  stderr(text: string): void
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`
  const units = ['KB', 'MB', 'GB', 'TB']
  let v = n / 1024
  let u = 0
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024
    u++
  }
  return `${v.toFixed(v < 10 ? 2 : 1)} ${units[u]}`
}

const rate = (count: number, elapsedMs: number) => (elapsedMs > 0 ? Math.round((count * 1000) / elapsedMs) : 0)

/** The terminal line: `[#####...............]  25%  1200 records  1.2 MB/4.8 MB  3000 records/s`. */
export function barLine(c: ProgressCounts, totalBytes: number | undefined, elapsedMs: number): string {
  const counts = `${c.read} records  ${c.acked} acked`
  const speed = `${rate(c.read, elapsedMs)} records/s`
  if (totalBytes === undefined || totalBytes <= 0) return `produce: ${counts}  ${formatBytes(c.inputBytes)}  ${speed}`
  const fraction = Math.min(1, c.inputBytes / totalBytes)
  const filled = Math.round(fraction * BAR_WIDTH)
  const bar = `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}]`
  const pct = `${Math.floor(fraction * 100)}%`.padStart(4)
  return `${bar} ${pct}  ${counts}  ${formatBytes(c.inputBytes)}/${formatBytes(totalBytes)}  ${speed}`
}

/** The plain line for logs: `produce: 1200 records read, 1000 acknowledged, 1.2 MB, 3000 records/s, 25% of 4.8 MB`. */
export function plainLine(c: ProgressCounts, totalBytes: number | undefined, elapsedMs: number): string {
  let line = `produce: ${c.read} records read, ${c.acked} acknowledged, ${formatBytes(c.inputBytes)}, ${rate(c.read, elapsedMs)} records/s`
  if (totalBytes !== undefined && totalBytes > 0) {
    line += `, ${Math.floor(Math.min(1, c.inputBytes / totalBytes) * 100)}% of ${formatBytes(totalBytes)}`
  }
  return line
}

/** One progress line: tick() draws it (or not yet), finish() erases a drawn bar. */
export class ProgressLine {
  private drawn = false
  private readonly startedAt: number

  constructor(
    private readonly out: ProgressTarget,
    private readonly mode: ProgressMode,
    private readonly totalBytes: number | undefined,
    private readonly counts: () => ProgressCounts,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.startedAt = now()
  }

  tick(): void {
    if (this.mode === 'off') return
    const c = this.counts()
    const elapsed = this.now() - this.startedAt
    if (this.mode === 'plain') {
      this.out.stderr(`${plainLine(c, this.totalBytes, elapsed)}\n`)
      return
    }
    if (this.totalBytes === undefined && c.read <= SCREENFUL_RECORDS) return
    this.out.stderr(`\r${barLine(c, this.totalBytes, elapsed)}\x1b[K`)
    this.drawn = true
  }

  finish(): void {
    if (this.drawn) this.out.stderr('\r\x1b[K')
    this.drawn = false
  }
}

/** Ticks a ProgressLine on a timer; call the returned function to stop (it erases a drawn bar). */
export function startProgress(
  out: ProgressTarget,
  mode: ProgressMode,
  totalBytes: number | undefined,
  counts: () => ProgressCounts,
): () => void {
  if (mode === 'off') return () => {}
  const line = new ProgressLine(out, mode, totalBytes, counts)
  const timer = setInterval(() => line.tick(), mode === 'bar' ? BAR_INTERVAL_MS : PLAIN_INTERVAL_MS)
  timer.unref()
  return () => {
    clearInterval(timer)
    line.finish()
  }
}
