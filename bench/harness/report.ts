// Results of `npm run bench`: the side-by-side table (terminal and Markdown), the JSON files under
// bench/results/, the SVG chart, and the generated part of docs/benchmarks.md.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BrokerName } from './brokers.js'
import type { Machine } from './machine.js'
import type { Metric } from './scenarios.js'
import { fmtNum, median, ROOT } from './util.js'

export interface ScenarioResult {
  name: string
  title: string
  generator: string
  params: Record<string, unknown>
  metrics: Metric[]
  runs: Record<BrokerName, Record<string, number>[]>
  errors: Record<BrokerName, string[]>
  median: Record<BrokerName, Record<string, number>>
  /** Why this scenario did not run at all (e.g. no Java). */
  skipped?: string
  notes: string[]
}

export interface BenchReport {
  date: string
  startedAt: string
  finishedAt: string
  durationSec: number
  mode: 'quick' | 'full'
  runsPerScenario: number
  command: string
  machine: Machine
  tributary: { version: string; commit: string | null; command: string }
  kafka: { version: string | null; skipped: string | null; brokerJvm: string[] | null; command: string | null }
  loadGenerators: { kafkaTools: string | null; tributaryPerf: string }
  scenarios: ScenarioResult[]
}

export function medians(runs: Record<string, number>[]): Record<string, number> {
  const keys = new Set(runs.flatMap((r) => Object.keys(r)))
  const out: Record<string, number> = {}
  for (const k of keys) out[k] = median(runs.map((r) => r[k] ?? Number.NaN))
  return out
}

interface Row {
  scenario: string
  metric: string
  tributary: string
  kafka: string
  ratio: string
  ahead: string
  spread: string
}

/** max/min of one broker's runs for a metric ('' with fewer than 2 runs). */
function spreadOf(runs: Record<string, number>[], key: string): string {
  const xs = runs.map((r) => r[key]).filter((x): x is number => x !== undefined && Number.isFinite(x) && x > 0)
  if (xs.length < 2) return ''
  return (Math.max(...xs) / Math.min(...xs)).toFixed(2)
}

function fmtValue(x: number | undefined, unit: string): string {
  if (x === undefined || !Number.isFinite(x)) return '—'
  if (unit === 'records/s') return Math.round(x).toLocaleString('en-US')
  if (unit === 'ms') return x >= 100 ? fmtNum(x, 0) : x >= 10 ? fmtNum(x, 1) : fmtNum(x, 2)
  return fmtNum(x)
}

function rows(report: BenchReport): Row[] {
  const out: Row[] = []
  for (const s of report.scenarios) {
    if (s.skipped) {
      out.push({ scenario: s.name, metric: `skipped: ${s.skipped}`, tributary: '', kafka: '', ratio: '', ahead: '', spread: '' })
      continue
    }
    for (const m of s.metrics) {
      const t = s.median.tributary[m.key]
      const k = s.median.kafka[m.key]
      const both = t !== undefined && k !== undefined && Number.isFinite(t) && Number.isFinite(k) && k !== 0
      const ratio = both ? t! / k! : Number.NaN
      const ahead = !both ? '' : m.better === 'higher' ? (ratio >= 1 ? 'yes' : 'no') : ratio <= 1 ? 'yes' : 'no'
      const tCell = s.errors.tributary.length > 0 && !Number.isFinite(t ?? Number.NaN) ? 'failed' : fmtValue(t, m.unit)
      const kCell = report.kafka.skipped
        ? 'skipped'
        : s.errors.kafka.length > 0 && !Number.isFinite(k ?? Number.NaN)
          ? 'failed'
          : fmtValue(k, m.unit)
      out.push({
        scenario: s.name,
        metric: `${m.label} (${m.unit}, ${m.better} is better${m.target ? `; target ${m.target.op === '>=' ? '≥' : '≤'} ${m.target.value} ${m.unit}` : ''})`,
        tributary: tCell,
        kafka: kCell,
        ratio: both ? `${ratio >= 10 ? ratio.toFixed(1) : ratio.toFixed(2)}×` : '—',
        ahead,
        spread: [spreadOf(s.runs.tributary, m.key), spreadOf(s.runs.kafka, m.key)].filter(Boolean).join(' / '),
      })
    }
  }
  // Peak RSS over every load, each broker.
  const pt = peakOf(report, 'tributary')
  const pk = peakOf(report, 'kafka')
  if (Number.isFinite(pt)) {
    const both = Number.isFinite(pk)
    out.push({
      scenario: 'all loads',
      metric: 'broker peak RSS, highest of all runs (MiB, lower is better)',
      tributary: fmtNum(pt),
      kafka: report.kafka.skipped ? 'skipped' : fmtNum(pk),
      ratio: both ? `${(pt / pk).toFixed(2)}×` : '—',
      ahead: both ? (pt <= pk ? 'yes' : 'no') : '',
      spread: '',
    })
  }
  return out
}

const HEAD: Row = {
  scenario: 'scenario',
  metric: 'metric',
  tributary: 'Tributary',
  kafka: 'Kafka',
  ratio: 'ratio T/K',
  ahead: 'Tributary ahead',
  spread: 'max/min of runs T / K',
}
const COLS: (keyof Row)[] = ['scenario', 'metric', 'tributary', 'kafka', 'ratio', 'ahead', 'spread']

export function terminalTable(report: BenchReport): string {
  const all = [HEAD, ...rows(report)]
  const width = COLS.map((c) => Math.max(...all.map((r) => (r.metric.startsWith('skipped') && c === 'metric' ? 0 : r[c].length))))
  const right = new Set<keyof Row>(['tributary', 'kafka', 'ratio'])
  const line = (r: Row) => {
    if (r.metric.startsWith('skipped')) return `${r.scenario.padEnd(width[0]!)}  ${r.metric}`
    return COLS.map((c, i) => (right.has(c) ? r[c].padStart(width[i]!) : r[c].padEnd(width[i]!))).join('  ')
  }
  const sep = COLS.map((_, i) => '-'.repeat(width[i]!)).join('  ')
  return [line(HEAD), sep, ...all.slice(1).map(line)].join('\n')
}

export function markdownTable(report: BenchReport): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|')
  const out = [
    '| scenario | metric | Tributary | Kafka | ratio T/K | Tributary ahead | max/min of runs T / K |',
    '|---|---|---:|---:|---:|:---:|:---:|',
  ]
  for (const r of rows(report)) out.push(`| ${COLS.map((c) => esc(r[c])).join(' | ')} |`)
  return out.join('\n')
}

export function machineLine(report: BenchReport): string {
  const m = report.machine
  return `${m.cores} cores (${m.cpuModel}), ${m.memoryGiB} GiB, ${m.os}; Node ${m.node}; ${m.java ?? 'no Java'}`
}

// ---------------------------------------------------------------------------------------------
// SVG chart: one row per (scenario, metric), two bars (Tributary, Kafka) scaled to the larger of
// the two in that row, so rows of very different magnitudes stay readable; the values are written
// beside the bars.

interface ChartRow {
  label: string
  unit: string
  t: number
  k: number
}

function chartRows(report: BenchReport, pick: (s: ScenarioResult, m: Metric) => boolean): ChartRow[] {
  const out: ChartRow[] = []
  for (const s of report.scenarios) {
    if (s.skipped) continue
    for (const m of s.metrics) {
      if (!pick(s, m)) continue
      const t = s.median.tributary[m.key] ?? Number.NaN
      const k = s.median.kafka[m.key] ?? Number.NaN
      if (!Number.isFinite(t) && !Number.isFinite(k)) continue
      out.push({ label: `${s.name}: ${m.label}`, unit: m.unit, t, k })
    }
  }
  return out
}

function peakOf(report: BenchReport, b: BrokerName): number {
  const xs = report.scenarios.flatMap((s) => s.runs[b].map((r) => r.peak_rss_mb ?? r.idle_rss_mb ?? Number.NaN)).filter(Number.isFinite)
  return xs.length ? Math.max(...xs) : Number.NaN
}

function peakRow(report: BenchReport): ChartRow[] {
  const t = peakOf(report, 'tributary')
  const k = peakOf(report, 'kafka')
  return Number.isFinite(t) || Number.isFinite(k) ? [{ label: 'all loads: broker peak RSS', unit: 'MiB', t, k }] : []
}

const xmlEsc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/** Throughput keys charted: the load scenarios' and the size scenario's two partitions. */
const CHART_THROUGHPUT = new Set(['records_per_sec', 'empty_records_per_sec', 'full_records_per_sec'])
/** Latency keys charted besides every p99_ms (and the e2e p50s): the random reads in the large partition. */
const CHART_LATENCY = new Set(['fetch_large_p50_ms', 'lookup_large_p50_ms'])

export function svgChart(report: BenchReport): string {
  const sections: { title: string; rows: ChartRow[] }[] = [
    { title: 'Throughput (higher is better)', rows: chartRows(report, (_s, m) => m.unit === 'records/s' && CHART_THROUGHPUT.has(m.key)) },
    {
      title: 'Latency (lower is better)',
      rows: chartRows(
        report,
        (s, m) =>
          m.unit === 'ms' &&
          m.key !== 'startup_ms' &&
          (m.key === 'p99_ms' || (m.key === 'p50_ms' && s.name.includes('e2e')) || CHART_LATENCY.has(m.key)),
      ),
    },
    { title: "Against the same broker's baseline (%, targets in the table)", rows: chartRows(report, (_s, m) => m.unit === '%') },
    {
      title: 'Start-up and memory (lower is better)',
      rows: [...chartRows(report, (_s, m) => m.key === 'startup_ms' || m.key === 'idle_rss_mb'), ...peakRow(report)],
    },
  ].filter((s) => s.rows.length > 0)
  const W = 980
  const labelW = 390
  const barMax = 420
  const barH = 13
  const rowH = 2 * barH + 14
  const colors = { t: '#1f77b4', k: '#7f7f7f' }
  let y = 58
  const parts: string[] = []
  const runs = report.runsPerScenario === 1 ? 'single run' : `median of ${report.runsPerScenario}`
  const title = `Tributary vs Apache Kafka ${report.kafka.version ?? ''} — ${report.date} (${report.mode}, ${runs})`
  parts.push(`<text x="16" y="24" font-size="16" font-weight="bold">${xmlEsc(title)}</text>`)
  parts.push(`<text x="16" y="42" font-size="11" fill="#555">${xmlEsc(machineLine(report))}. Bars are scaled per row.</text>`)
  parts.push(
    `<rect x="${W - 230}" y="12" width="12" height="12" fill="${colors.t}"/><text x="${W - 213}" y="22" font-size="12">Tributary</text>`,
  )
  parts.push(
    `<rect x="${W - 130}" y="12" width="12" height="12" fill="${colors.k}"/><text x="${W - 113}" y="22" font-size="12">Apache Kafka</text>`,
  )
  for (const sec of sections) {
    y += 22
    parts.push(`<text x="16" y="${y}" font-size="14" font-weight="bold">${xmlEsc(sec.title)}</text>`)
    y += 10
    for (const r of sec.rows) {
      const max = Math.max(Number.isFinite(r.t) ? r.t : 0, Number.isFinite(r.k) ? r.k : 0) || 1
      parts.push(`<text x="16" y="${y + barH + 4}" font-size="12">${xmlEsc(r.label)}</text>`)
      const bar = (v: number, dy: number, color: string, who: string) => {
        if (!Number.isFinite(v)) {
          parts.push(`<text x="${labelW}" y="${y + dy + barH - 2}" font-size="11" fill="#999">${who}: n/a</text>`)
          return
        }
        const w = Math.max(1, (v / max) * barMax)
        parts.push(`<rect x="${labelW}" y="${y + dy}" width="${w.toFixed(1)}" height="${barH}" fill="${color}"/>`)
        parts.push(
          `<text x="${(labelW + w + 6).toFixed(1)}" y="${y + dy + barH - 2}" font-size="11">${xmlEsc(`${fmtValue(v, r.unit)} ${r.unit}`)}</text>`,
        )
      }
      bar(r.t, 0, colors.t, 'Tributary')
      bar(r.k, barH + 2, colors.k, report.kafka.skipped ? 'Kafka skipped' : 'Kafka')
      y += rowH
    }
  }
  y += 10
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${y}" viewBox="0 0 ${W} ${y}" font-family="Helvetica, Arial, sans-serif" role="img">\n<title>Tributary beside Apache Kafka: throughput, latency, start-up and memory</title>\n<rect width="100%" height="100%" fill="#fff"/>\n${parts.join('\n')}\n</svg>\n`
}

// ---------------------------------------------------------------------------------------------

export const RESULTS_DIR = join(ROOT, 'bench/results')

/** Writes <dir>/<date>-<scenario>.json (quick runs: <date>-quick-<scenario>.json) and the chart; returns the paths. */
export function writeResults(report: BenchReport, dir = RESULTS_DIR): { files: string[]; chart: string } {
  mkdirSync(dir, { recursive: true })
  const prefix = report.mode === 'quick' ? `${report.date}-quick` : report.date
  const files: string[] = []
  const { scenarios, ...common } = report
  for (const s of scenarios) {
    const f = join(dir, `${prefix}-${s.name}.json`)
    writeFileSync(f, `${JSON.stringify({ ...common, scenario: s }, null, 2)}\n`)
    files.push(f)
  }
  return { files, chart: writeChart(report, dir).chart }
}

export function writeChart(report: BenchReport, dir = RESULTS_DIR): { chart: string } {
  mkdirSync(dir, { recursive: true })
  const prefix = report.mode === 'quick' ? `${report.date}-quick` : report.date
  const chart = join(dir, `${prefix}-chart.svg`)
  writeFileSync(chart, svgChart(report))
  return { chart }
}

const START = '<!-- bench:results:start (generated by `npm run bench`; edit outside these markers) -->'
const END = '<!-- bench:results:end -->'

function resultsSection(report: BenchReport, chartRel: string): string {
  const kafkaLine = report.kafka.skipped
    ? `**The Apache Kafka side was skipped: ${report.kafka.skipped}.**`
    : `Apache Kafka ${report.kafka.version} from Maven Central, KRaft combined mode, \`${(report.kafka.brokerJvm ?? []).join(' ')}\`.`
  const skipped = report.scenarios.filter((s) => s.skipped).map((s) => `- \`${s.name}\` skipped: ${s.skipped}`)
  const errors = report.scenarios.flatMap((s) =>
    (['tributary', 'kafka'] as const).flatMap((b) => s.errors[b].map((e) => `- \`${s.name}\` on ${b}: ${e.split('\n')[0]}`)),
  )
  // Set-up notes (how the consume topic was filled) stay in the JSON.
  const notes = report.scenarios.flatMap((s) => s.notes.filter((n) => !n.includes('untimed set-up')).map((n) => `- \`${s.name}\`: ${n}`))
  return [
    START,
    `### Latest run: ${report.date}, ${report.mode} mode, median of ${report.runsPerScenario} run${report.runsPerScenario === 1 ? '' : 's'} per scenario`,
    '',
    `- Machine: ${machineLine(report)}.`,
    `- Tributary ${report.tributary.version}${report.tributary.commit ? ` at ${report.tributary.commit}` : ''}. ${kafkaLine}`,
    `- Whole run: ${Math.round(report.durationSec)} s (\`${report.command}\`). Raw numbers: \`bench/results/${report.mode === 'quick' ? `${report.date}-quick` : report.date}-*.json\`.`,
    '',
    markdownTable(report),
    '',
    ...(skipped.length || errors.length || notes.length ? [...skipped, ...errors, ...notes, ''] : []),
    `![Throughput and latency, Tributary vs Apache Kafka](${chartRel})`,
    END,
  ].join('\n')
}

export const DOC = join(ROOT, 'docs/benchmarks.md')

/** Replaces the generated section of docs/benchmarks.md (creates the file from the template if missing). */
export function updateDocs(report: BenchReport, template: string, chartPath: string): void {
  const chartRel = `../${chartPath.slice(ROOT.length).replace(/^\/+/, '')}`
  const section = resultsSection(report, chartRel)
  let doc = existsSync(DOC) ? readFileSync(DOC, 'utf8') : template
  const a = doc.indexOf(START.slice(0, 30))
  const b = doc.indexOf(END)
  if (a >= 0 && b > a) doc = doc.slice(0, a) + section + doc.slice(b + END.length)
  else doc = `${doc.trimEnd()}\n\n## Results\n\n${section}\n`
  mkdirSync(join(ROOT, 'docs'), { recursive: true })
  writeFileSync(DOC, doc)
}

export const RESULTS_MARKERS = { START, END }

/** Rebuilds a full run's report from its bench/results/<prefix>-*.json files (for --render). */
export function readResults(prefix: string, order: readonly string[]): BenchReport {
  const scenarios: ScenarioResult[] = []
  let common: Omit<BenchReport, 'scenarios'> | undefined
  for (const name of order) {
    const f = join(RESULTS_DIR, `${prefix}-${name}.json`)
    if (!existsSync(f)) continue
    const { scenario, ...rest } = JSON.parse(readFileSync(f, 'utf8')) as Omit<BenchReport, 'scenarios'> & { scenario: ScenarioResult }
    common ??= rest
    scenarios.push(scenario)
  }
  if (!common) throw new Error(`no bench/results/${prefix}-<scenario>.json files`)
  return { ...common, scenarios }
}
