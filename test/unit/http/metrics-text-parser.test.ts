// The strict parser of Prometheus' text format the /metrics tests read scrapes with
// (metrics-text-parser.ts): it takes what prom-client writes, and refuses what the format does not allow.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Counter, Histogram, Registry } from 'prom-client'
import { parsePrometheusText, sampleValue } from './metrics-text-parser.js'

test('reads what prom-client writes: counters with escaped labels, histograms', async () => {
  const registry = new Registry()
  const c = new Counter({ name: 'a_total', help: 'A "counter"\\ with\nlines', labelNames: ['l'], registers: [registry] })
  c.labels('x"y\\z\nw').inc(3)
  const h = new Histogram({ name: 'b_seconds', help: 'B', buckets: [0.1, 1], registers: [registry] })
  h.observe(0.5)
  const families = parsePrometheusText(await registry.metrics())
  assert.equal(families.get('a_total')?.type, 'counter')
  assert.equal(sampleValue(families, 'a_total', { l: 'x"y\\z\nw' }), 3)
  assert.equal(families.get('b_seconds')?.type, 'histogram')
  assert.equal(sampleValue(families, 'b_seconds_bucket', { le: '0.1' }), 0)
  assert.equal(sampleValue(families, 'b_seconds_bucket', { le: '+Inf' }), 1)
  assert.equal(sampleValue(families, 'b_seconds_count'), 1)
})

test('refuses what the format does not allow', () => {
  const bad = [
    '# TYPE a counter\na{l="1"} one\n', // value
    '# TYPE a counter\na 0x10\n', // value
    '# TYPE a counter\na{l=1} 1\n', // unquoted label value
    '# TYPE a counter\na{1l="1"} 1\n', // label name
    '# TYPE a counter\na{l="1",l="2"} 1\n', // label twice
    '# TYPE a counter\na{l="\\t"} 1\n', // escape
    '# TYPE a counter\nb 1\n', // sample of another family
    'a 1\n', // no family declared
    '# TYPE a counter\na 1\na 2\n', // series twice
    '# TYPE a counter\n# TYPE b gauge\n# TYPE a counter\n', // not contiguous
    '# TYPE a wrong\n', // type
    '# TYPE h histogram\nh_bucket 1\n', // bucket without le
  ]
  for (const text of bad) assert.throws(() => parsePrometheusText(text), /line \d+|not contiguous/, JSON.stringify(text))
})
