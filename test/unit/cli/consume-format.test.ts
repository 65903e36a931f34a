// `tributary consume` output and options: the --format template (every field, escapes, nulls,
// errors), --json lines, --encoding, --isolation, and the option parsers and their cross-checks.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { InvalidArgumentError } from 'commander'
import type { ConsumedRecord } from '../../../src/client/consumer.js'
import { UsageError } from '../../../src/cli/common.js'
import { compileTemplate, DEFAULT_TEMPLATE, type Encoding, jsonLine } from '../../../src/cli/consume/format.js'
import {
  ackOption,
  type ConsumeCliOptions,
  encodingOption,
  isolationOption,
  offsetOption,
  parsePartitions,
  settingsFrom,
  timestampOption,
} from '../../../src/cli/consume/options.js'
import { formatPartitions } from '../../../src/cli/consume/start.js'

const record: ConsumedRecord = {
  topic: 'events',
  partition: 2,
  offset: 41,
  timestamp: 1_700_000_000_123,
  key: Buffer.from('user-1'),
  value: Buffer.from('signed up'),
  headers: [
    { key: 'source', value: Buffer.from('web') },
    { key: 'trace', value: null },
  ],
}
const nulls: ConsumedRecord = { ...record, key: null, value: null, headers: [] }
const binary: ConsumedRecord = {
  ...record,
  key: Buffer.from([0xff, 0x00]),
  value: Buffer.from([0xde, 0xad, 0xbe]),
  headers: [{ key: 'b', value: Buffer.from([1]) }],
}

const baseOptions: ConsumeCliOptions = {
  bootstrapServer: 'localhost:9092',
  clientId: 'tributary-cli',
  requestTimeoutMs: 30_000,
  fromBeginning: false,
  partition: [],
  exitAtEnd: false,
  json: false,
  encoding: 'utf8',
  quiet: false,
  isolation: 'read_uncommitted',
}

/** The formatter's output as text (it writes bytes). */
const tpl =
  (template: string, encoding?: Encoding) =>
  (r: ConsumedRecord): string =>
    compileTemplate(template, encoding)(r).toString()
const json = (r: ConsumedRecord, encoding?: Encoding): string => jsonLine(r, encoding).toString()

describe('consume --format', () => {
  it('the default prints the value and a newline', () => {
    assert.equal(tpl(DEFAULT_TEMPLATE)(record), 'signed up\n')
  })

  it('substitutes every field', () => {
    const f = tpl('%t/%p/%o/%T %k=%v {%h}')
    assert.equal(f(record), 'events/2/41/1700000000123 user-1=signed up {source=web,trace=}')
  })

  it('turns escapes into characters and %% into %, and adds nothing at the end', () => {
    assert.equal(tpl('%k\\t%v\\r\\n100%% \\\\')(record), 'user-1\tsigned up\r\n100% \\')
    assert.equal(tpl('plain')(record), 'plain')
  })

  it('prints null keys, values and headers as nothing', () => {
    assert.equal(tpl('[%k][%v][%h]')(nulls), '[][][]')
  })

  it('refuses unknown fields and escapes, and a lone % or \\ at the end', () => {
    for (const t of ['%x', '%', 'a\\', '\\q', '%K']) {
      assert.throws(() => compileTemplate(t), UsageError, t)
    }
  })

  it('utf8 writes the stored bytes untouched, even when they are not valid UTF-8', () => {
    const raw = { ...record, key: Buffer.from([0xc3, 0x28]), value: Buffer.from([0xff, 0xfe, 0x0a]) }
    assert.deepEqual(compileTemplate('%k|%v')(raw), Buffer.from([0xc3, 0x28, 0x7c, 0xff, 0xfe, 0x0a]))
  })

  it('--encoding applies to keys, values and header values', () => {
    assert.equal(tpl('%k %v %h', 'hex')(binary), 'ff00 deadbe b=01')
    assert.equal(tpl('%k %v %h', 'base64')(binary), '/wA= 3q2+ b=AQ==')
  })
})

describe('consume --json', () => {
  it('one object per line, fields in order, headers as key/value objects', () => {
    assert.equal(
      json(record),
      '{"topic":"events","partition":2,"offset":41,"timestamp":1700000000123,"key":"user-1","value":"signed up",' +
        '"headers":[{"key":"source","value":"web"},{"key":"trace","value":null}]}\n',
    )
  })

  it('null key and value are null; binary per --encoding', () => {
    assert.deepEqual(JSON.parse(json(nulls)), {
      topic: 'events',
      partition: 2,
      offset: 41,
      timestamp: 1_700_000_000_123,
      key: null,
      value: null,
      headers: [],
    })
    const b = JSON.parse(json(binary, 'base64'))
    assert.equal(b.key, '/wA=')
    assert.equal(b.value, '3q2+')
    assert.deepEqual(b.headers, [{ key: 'b', value: 'AQ==' }])
  })
})

describe('consume options', () => {
  it('--offset: N, earliest, latest, -N', () => {
    assert.deepEqual(offsetOption('17'), { kind: 'offset', offset: 17 })
    assert.deepEqual(offsetOption('earliest'), { kind: 'earliest' })
    assert.deepEqual(offsetOption('LATEST'), { kind: 'latest' })
    assert.deepEqual(offsetOption('-5'), { kind: 'last', count: 5 })
    assert.deepEqual(offsetOption('-0'), { kind: 'latest' })
    for (const bad of ['', 'soon', '1.5', '--3', '99999999999999999999']) assert.throws(() => offsetOption(bad), InvalidArgumentError, bad)
  })

  it('--timestamp: ms or an ISO date', () => {
    assert.equal(timestampOption('1700000000000'), 1_700_000_000_000)
    assert.equal(timestampOption('2024-05-01T12:00:00Z'), Date.UTC(2024, 4, 1, 12))
    assert.equal(timestampOption('2024-05-01'), Date.UTC(2024, 4, 1))
    for (const bad of ['yesterday', '-5', '2024-13-45', '12 May']) assert.throws(() => timestampOption(bad), InvalidArgumentError, bad)
  })

  it('--encoding', () => {
    assert.equal(encodingOption('UTF-8'), 'utf8')
    assert.equal(encodingOption('base64'), 'base64')
    assert.throws(() => encodingOption('latin1'), InvalidArgumentError)
  })

  it("--isolation: Kafka's isolation.level values", () => {
    assert.equal(isolationOption('read_committed'), 'read_committed')
    assert.equal(isolationOption('READ-COMMITTED'), 'read_committed')
    assert.equal(isolationOption('uncommitted'), 'read_uncommitted')
    for (const bad of ['', 'serializable', 'read committed']) assert.throws(() => isolationOption(bad), InvalidArgumentError, bad)
    assert.equal(settingsFrom('t', { ...baseOptions, isolation: 'read_committed' }).isolation, 'read_committed')
  })

  it('--partition: repeated and comma lists, sorted without duplicates', () => {
    assert.equal(parsePartitions([]), null)
    assert.deepEqual(parsePartitions(['3', '0,1', '1']), [0, 1, 3])
    for (const bad of ['x', '-1', '1,,2', '']) assert.throws(() => parsePartitions([bad]), UsageError, bad)
  })

  it('the start: latest by default, else what was given', () => {
    assert.deepEqual(settingsFrom('t', baseOptions).start, { kind: 'latest' })
    assert.equal(settingsFrom('t', baseOptions).startGiven, false)
    assert.deepEqual(settingsFrom('t', { ...baseOptions, fromBeginning: true }).start, { kind: 'earliest' })
    assert.deepEqual(settingsFrom('t', { ...baseOptions, timestamp: 5 }).start, { kind: 'timestamp', timestampMs: 5 })
    assert.deepEqual(settingsFrom('t', { ...baseOptions, offset: { kind: 'last', count: 3 } }).start, { kind: 'last', count: 3 })
    assert.equal(settingsFrom('t', baseOptions).maxMessages, Number.POSITIVE_INFINITY)
  })

  it('refuses options that exclude each other', () => {
    const bad: Array<Partial<ConsumeCliOptions>> = [
      { fromBeginning: true, offset: { kind: 'offset', offset: 1 } },
      { fromBeginning: true, timestamp: 1 },
      { offset: { kind: 'latest' }, timestamp: 1 },
      { follow: true, exitAtEnd: true },
      { json: true, format: '%v' },
      { group: 'g', partition: ['0'] },
      { group: ' ' },
    ]
    for (const o of bad) assert.throws(() => settingsFrom('t', { ...baseOptions, ...o }), UsageError, JSON.stringify(o))
  })

  it('--json formats JSON lines', () => {
    assert.equal(
      settingsFrom('t', { ...baseOptions, json: true })
        .format(nulls)
        .toString(),
      json(nulls),
    )
  })

  it('partition lists print as ranges', () => {
    assert.equal(formatPartitions([]), 'none')
    assert.equal(formatPartitions([3]), '3')
    assert.equal(formatPartitions([5, 0, 1, 2, 7, 8]), '0-2,5,7-8')
  })

  it('--share-group with --ack; the options a share group decides are refused', () => {
    const share = settingsFrom('t', { ...baseOptions, shareGroup: 'workers', ack: 'release' })
    assert.equal(share.shareGroup, 'workers')
    assert.equal(share.ack, 'release')
    assert.equal(settingsFrom('t', { ...baseOptions, shareGroup: 'w' }).ack, 'accept')
    assert.equal(settingsFrom('t', baseOptions).shareGroup, null)
    const refused: Array<Partial<ConsumeCliOptions>> = [
      { group: 'g' },
      { partition: ['0'] },
      { fromBeginning: true },
      { offset: { kind: 'earliest' } },
      { timestamp: 5 },
      { exitAtEnd: true },
      { isolation: 'read_committed' },
      { shareGroup: ' ' },
    ]
    for (const o of refused)
      assert.throws(() => settingsFrom('t', { ...baseOptions, shareGroup: 'w', ...o }), UsageError, JSON.stringify(o))
    assert.throws(() => settingsFrom('t', { ...baseOptions, ack: 'reject' }), UsageError, '--ack without --share-group')
    assert.equal(ackOption(' Reject '), 'reject')
    assert.throws(() => ackOption('renew'), InvalidArgumentError)
  })

  it('--json adds the delivery count of a share-group record', () => {
    const line = JSON.parse(jsonLine({ ...nulls, deliveryCount: 3 } as ConsumedRecord).toString())
    assert.equal(line.deliveryCount, 3)
    assert.equal('deliveryCount' in JSON.parse(jsonLine(nulls).toString()), false)
  })
})
