// What a perf run needs from the process (so the command can be run from tests with fakes), and
// the output: a progress line every ~2 s on stderr, then one summary line — or, with --json, one
// JSON object — on stdout.
import type { KafkaClient } from '../../client/client.js'
import { connect } from '../common.js'
import type { CommonOptions } from './options.js'
import type { Meter, Summary } from './stats.js'
import { summaryLine } from './stats.js'

export const PROGRESS_INTERVAL_MS = 2000

export interface PerfIo {
  stdout(text: string): void
  stderr(text: string): void
  /** Registers fn to run when the user asks the run to stop (SIGINT/SIGTERM). */
  onStop(fn: () => void): void
}

export function connectClient(o: CommonOptions): Promise<KafkaClient> {
  return connect(o)
}

/** Prints the meter's progress line to stderr every PROGRESS_INTERVAL_MS; returns the stop function. */
export function startProgress(io: PerfIo, meter: Meter, label: string, verb: string): () => void {
  const timer = setInterval(() => io.stderr(`${meter.progressLine(label, verb)}\n`), PROGRESS_INTERVAL_MS)
  return () => clearInterval(timer)
}

export function printSummary(
  io: PerfIo,
  json: boolean,
  text: { label: string; verb: string; latencyWhat?: string },
  summary: Summary,
  extra: Record<string, unknown>,
): void {
  if (json) io.stdout(`${JSON.stringify({ mode: extra.mode, ...summary, ...extra })}\n`)
  else io.stdout(`${summaryLine(text.label, text.verb, summary, text.latencyWhat)}\n`)
}
