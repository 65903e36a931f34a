// The splitter of REST Proxy's streaming produce bodies (src/http/rest/concatenated-json.ts) and
// the record parser of produce.ts: values back to back or spaced, braces inside strings, escaped
// quotes, deep nesting, a value cut short; base64, types and timestamps of a record.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { splitConcatenatedJson } from '../../../src/http/rest/concatenated-json.js'
import { RestError } from '../../../src/http/rest/errors.js'
import { parseRecord } from '../../../src/http/rest/produce.js'

describe('splitConcatenatedJson', () => {
  it('splits objects written back to back or separated by whitespace', () => {
    assert.deepEqual(splitConcatenatedJson('{"a":1}{"b":[2,{"c":3}]}\n  {"d":"}{"}'), [
      { text: '{"a":1}' },
      { text: '{"b":[2,{"c":3}]}' },
      { text: '{"d":"}{"}' },
    ])
  })

  it('keeps escaped quotes and backslashes inside strings', () => {
    const s = '{"v":"a\\"}\\\\"}{"w":1}'
    assert.deepEqual(
      splitConcatenatedJson(s).map((p) => ('text' in p ? JSON.parse(p.text) : p)),
      [{ v: 'a"}\\' }, { w: 1 }],
    )
  })

  it('ends with an error after the complete values when the last one is cut short', () => {
    const out = splitConcatenatedJson('{"a":1} {"b":')
    assert.equal(out.length, 2)
    assert.deepEqual(out[0], { text: '{"a":1}' })
    assert.match((out[1] as { error: string }).error, /offset 8 is not closed/)
  })

  it('handles deep nesting without recursion and returns nothing for a blank body', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`
    assert.deepEqual(splitConcatenatedJson(deep), [{ text: deep }])
    assert.deepEqual(splitConcatenatedJson(' \n\t'), [])
  })
})

describe('parseRecord', () => {
  it('reads BINARY, STRING and JSON data, headers, partition and timestamp', () => {
    const p = parseRecord(
      JSON.stringify({
        partition_id: 2,
        headers: [{ name: 'h', value: Buffer.from('hv').toString('base64') }, { name: 'n' }],
        key: { type: 'STRING', data: 'k€' },
        value: { type: 'JSON', data: { x: [1, 'y'] } },
        timestamp: '2021-02-05T19:14:42Z',
      }),
    )
    assert.equal(p.record.key?.toString(), 'k€')
    assert.equal(p.record.value?.toString(), '{"x":[1,"y"]}')
    assert.deepEqual(p.record.headers, [
      { key: 'h', value: Buffer.from('hv') },
      { key: 'n', value: null },
    ])
    assert.equal(p.record.partition, 2)
    assert.equal(p.record.timestamp, Date.UTC(2021, 1, 5, 19, 14, 42))
    assert.deepEqual(p.key, { type: 'STRING', size: 4 })
    assert.deepEqual(p.value, { type: 'JSON', size: 13 })
    const b = parseRecord('{"value":{"type":"BINARY","data":"AAEC"}}')
    assert.deepEqual([...b.record.value!], [0, 1, 2])
    assert.equal(b.record.key, null)
    assert.equal(b.key, null)
  })

  it('rejects bad base64, bad types, bad timestamps and bad JSON with 400', () => {
    for (const [body, pattern] of [
      ['{"value":{"type":"BINARY","data":"not base64!"}}', /data=not base64! is not a base64 string/],
      ['{"value":{"type":"BINARY","data":"QUJD"},"headers":[{"name":"h","value":"Q"}]}', /headers\[0\]\.value=Q is not a base64/],
      ['{"value":{"type":"AVRO","data":1}}', /value\.type must be BINARY, JSON or STRING/],
      ['{"value":{"type":"STRING","data":1}}', /value\.data must be a string/],
      ['{"timestamp":"yesterday"}', /timestamp must be an ISO 8601/],
      ['{"partition_id":"1"}', /partition_id must be an integer/],
      ['{"value":', /not valid JSON/],
      ['[1]', /record must be a JSON object/],
    ] as const) {
      assert.throws(
        () => parseRecord(body),
        (err: unknown) => err instanceof RestError && err.status === 400 && err.errorCode === 400 && pattern.test(err.message),
        body,
      )
    }
  })
})
