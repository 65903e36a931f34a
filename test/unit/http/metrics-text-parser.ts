// A strict parser of Prometheus' text exposition format 0.0.4, for the tests of /metrics (no such
// parser is installed: prom-client only writes the format). Strict on purpose — a line it does not
// understand is an error, not skipped — so that a malformed exposition fails the tests:
// - `# HELP name text` and `# TYPE name counter|gauge|histogram|summary|untyped`, at most one of
//   each per family, before the family's samples; other `#` lines are comments;
// - `name{label="value",...} value [timestamp]`: names and label names as the format allows them,
//   label values with the \\, \" and \n escapes only, values as Go's ParseFloat takes them (+Inf,
//   -Inf, NaN in any case included);
// - a family's samples are contiguous; a histogram's are name_bucket (with `le`), name_sum and
//   name_count, a summary's name (with `quantile`), name_sum and name_count; no series twice.
export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

export interface Family {
  name: string
  type: string
  help: string | undefined
  samples: Sample[]
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped'])
/** As Go's strconv.ParseFloat, which Prometheus reads values with: Inf, Infinity and NaN in any case. */
const FLOAT = /^[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|inf|infinity)$/i
const NAN = /^nan$/i

export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>()
  const done = new Set<string>()
  const series = new Set<string>()
  let current: Family | undefined
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  lines.forEach((line, i) => {
    const fail = (why: string): never => {
      throw new Error(`line ${i + 1}: ${why}: ${JSON.stringify(line)}`)
    }
    if (line.trim() === '') return
    if (line.startsWith('#')) {
      const m = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(line)
      if (!m) return // a comment
      const [, kind, name, rest = ''] = m
      if (!METRIC_NAME.test(name!)) fail('bad metric name')
      const family = familyFor(name!)
      if (kind === 'HELP') {
        if (family.help !== undefined) fail('second HELP')
        family.help = rest.replace(/\\(\\|n)/g, (_, c: string) => (c === 'n' ? '\n' : '\\'))
      } else {
        if (family.type !== 'untyped' || family.samples.length > 0) fail('TYPE after samples or twice')
        if (!TYPES.has(rest.trim())) fail('unknown type')
        family.type = rest.trim()
      }
      return
    }
    const sample = parseSample(line, fail)
    const family = familyOfSample(sample.name)
    if (!family) fail('sample of no declared family')
    if (family!.type === 'histogram' && sample.name.endsWith('_bucket') && sample.labels.le === undefined) fail('bucket without le')
    const key = `${sample.name}{${Object.entries(sample.labels)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(',')}}`
    if (series.has(key)) fail('series given twice')
    series.add(key)
    family!.samples.push(sample)
  })
  return families

  function familyFor(name: string): Family {
    let f = families.get(name)
    if (f) return f
    if (done.has(name)) throw new Error(`family ${name} is not contiguous`)
    if (current) done.add(current.name)
    f = { name, type: 'untyped', help: undefined, samples: [] }
    families.set(name, f)
    current = f
    return f
  }

  function familyOfSample(name: string): Family | undefined {
    if (!current) return undefined
    const base = current.name
    const suffixes =
      current.type === 'histogram' ? ['_bucket', '_sum', '_count'] : current.type === 'summary' ? ['', '_sum', '_count'] : ['']
    return suffixes.some((s) => name === base + s) ? current : undefined
  }
}

function parseSample(line: string, fail: (why: string) => never): Sample {
  const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)(?:\s+(-?\d+))?$/.exec(line)
  if (!m) fail('not a sample')
  const [, name, labelText, valueText] = m!
  const labels: Record<string, string> = {}
  if (labelText !== undefined) {
    let rest = labelText.slice(1, -1)
    while (rest.length > 0) {
      const l = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,?)/.exec(rest)
      if (!l || !LABEL_NAME.test(l[1]!)) fail('bad label')
      if (labels[l![1]!] !== undefined) fail('label given twice')
      labels[l![1]!] = l![2]!.replace(/\\([\\"n])/g, (_, c: string) => (c === 'n' ? '\n' : c))
      rest = rest.slice(l![0].length)
      if (l![3] === '' && rest.length > 0) fail('labels not separated by a comma')
    }
  }
  if (!NAN.test(valueText!) && !FLOAT.test(valueText!)) fail('bad value')
  const value = NAN.test(valueText!) ? Number.NaN : Number(valueText!.replace(/inf(inity)?$/i, 'Infinity'))
  return { name: name!, labels, value }
}

/** The value of the one sample of `name` whose labels include `labels`; undefined when none. */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const f of families.values()) {
    for (const s of f.samples) {
      if (s.name !== name) continue
      if (Object.entries(labels).every(([k, v]) => s.labels[k] === v)) return s.value
    }
  }
  return undefined
}

/** Scrapes a /metrics URL and parses it (the content type must be the text format's). */
export async function scrape(url: string): Promise<Map<string, Family>> {
  const res = await fetch(url)
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`)
  const type = res.headers.get('content-type') ?? ''
  if (!/^text\/plain; version=0\.0\.4/.test(type)) throw new Error(`GET ${url}: content-type ${type}`)
  return parsePrometheusText(await res.text())
}
