// docs/grafana/tributary-dashboard.json charts only what a broker exports: every metric name in
// its panels' expressions and its variables' queries is one that a broker's /metrics serves (a
// histogram's _bucket/_sum/_count samples included), scraped from a real broker.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { startBroker } from '../../../src/broker/start.js'
import { scrape } from './metrics-text-parser.js'

const DASHBOARD = fileURLToPath(new URL('../../../../docs/grafana/tributary-dashboard.json', import.meta.url))

/** PromQL words that are not metric names (functions, aggregations, modifiers) and Grafana's variables. */
const PROMQL_WORDS = new Set([
  'sum',
  'by',
  'without',
  'rate',
  'irate',
  'increase',
  'histogram_quantile',
  'label_values',
  'avg',
  'max',
  'min',
  'topk',
  'e9',
])

/** The metric names an expression selects: identifiers outside strings, label matchers, groupings and ranges. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\b(?:by|without)\s*\([^)]*\)/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\$\w+/g, ' ')
    .replace(/label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\s*,[^)]*\)/g, ' $1 ')
  return (bare.match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? []).filter((w) => !PROMQL_WORDS.has(w))
}

interface Panel {
  title: string
  targets: Array<{ expr: string }>
}

test('every expression of the Grafana dashboard names metrics the broker exports', async () => {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
    panels: Panel[]
    templating: { list: Array<{ name: string; query: string; type: string }> }
  }
  const b = await startBroker({ storage: 'memory', http: true })
  let exported: Set<string>
  try {
    const families = await scrape(`${b.http}/metrics`)
    exported = new Set<string>()
    for (const f of families.values()) {
      exported.add(f.name)
      if (f.type === 'histogram' || f.type === 'summary') for (const s of ['_bucket', '_sum', '_count']) exported.add(f.name + s)
    }
  } finally {
    await b.close()
  }
  const exprs: Array<[string, string]> = []
  for (const p of dashboard.panels) for (const t of p.targets) exprs.push([p.title, t.expr])
  for (const v of dashboard.templating.list) if (v.type === 'query') exprs.push([`variable ${v.name}`, v.query])
  assert.ok(exprs.length >= 14, `only ${exprs.length} expressions`)
  const unknown: string[] = []
  for (const [where, expr] of exprs) {
    const names = metricNames(expr)
    assert.ok(names.length > 0, `${where}: no metric in ${expr}`)
    for (const n of names) if (!exported.has(n)) unknown.push(`${where}: ${n}`)
  }
  assert.deepEqual(unknown, [])
  // The panels the dashboard must have.
  const all = exprs.map(([, e]) => e).join('\n')
  for (const name of [
    'kafka_network_requestmetrics_requests_total',
    'kafka_network_requestmetrics_errors_total',
    'kafka_network_requestmetrics_totaltime_seconds_bucket',
    'kafka_server_brokertopicmetrics_bytesin_total',
    'kafka_server_brokertopicmetrics_bytesout_total',
    'kafka_server_replicamanager_underreplicatedpartitions',
    'kafka_controller_kafkacontroller_offlinepartitionscount',
    'kafka_server_replicamanager_isrshrinks_total',
    'kafka_consumergroup_lag',
    'kafka_server_socketservermetrics_connection_count',
  ]) {
    assert.ok(all.includes(name), `no panel shows ${name}`)
  }
})

test('the name check finds the names, and only them', () => {
  assert.deepEqual(
    metricNames('histogram_quantile(0.99, sum by (request, le) (rate(a_bucket{instance=~"$instance",x="y{z}"}[$__rate_interval])))'),
    ['a_bucket'],
  )
  assert.deepEqual(metricNames('process_resident_memory_bytes{i="1"} / 1e9'), ['process_resident_memory_bytes'])
  assert.deepEqual(metricNames('label_values(kafka_consumergroup_lag, group)'), ['kafka_consumergroup_lag'])
  assert.deepEqual(metricNames('sum(no_such_metric)'), ['no_such_metric'])
})
