// `tributary produce` as a subprocess against a real broker process (auto-creation off, so a
// missing topic is an error), with what was stored read back by kcat: keys (on the partition the
// Java client picks), values byte for byte (UTF-8 and binary), headers, delimiters; the summary and
// --json; exit codes and error hints; a record too large; a 100,000-line file; Ctrl-C (what was read
// is sent and the summary says so) and a second Ctrl-C (exit 1 at once, with what was not acknowledged).
import assert from 'node:assert/strict'
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { createTopics } from '../../src/client/admin.js'
import { KafkaClient } from '../../src/client/client.js'
import { BROKER_MAIN, type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { tributary } from '../helpers/cli.js'
import { javaPartition, kcatConsumeAll, kcatQueryOffsets, waitFor } from '../helpers/clients.js'

interface RawRecord {
  partition: number
  offset: number
  key: Buffer | null
  value: Buffer | null
}

/** Every record of a topic as raw bytes: kcat prints "partition offset keyLength valueLength\n" + key + value. */
function kcatRaw(bootstrap: string, topic: string): Promise<RawRecord[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('kcat', ['-C', '-b', bootstrap, '-t', topic, '-o', 'beginning', '-e', '-q', '-f', '%p %o %K %S\n%k%s'])
    const chunks: Buffer[] = []
    let stderr = ''
    child.stdout.on('data', (b: Buffer) => chunks.push(b))
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s))
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      if (code !== 0) return reject(new Error(`kcat exited ${code}: ${stderr}`))
      const all = Buffer.concat(chunks)
      const out: RawRecord[] = []
      let pos = 0
      while (pos < all.length) {
        const nl = all.indexOf(0x0a, pos)
        const [p, o, k, s] = all.subarray(pos, nl).toString('latin1').split(' ').map(Number) as [number, number, number, number]
        pos = nl + 1
        const key = k < 0 ? null : all.subarray(pos, pos + k)
        pos += Math.max(0, k)
        const value = s < 0 ? null : all.subarray(pos, pos + s)
        pos += Math.max(0, s)
        out.push({ partition: p, offset: o, key, value })
      }
      out.sort((a, b) => a.partition - b.partition || a.offset - b.offset)
      resolve(out)
    })
  })
}

/** A produce process whose stdin stays open, for the Ctrl-C tests. */
function spawnProduce(args: string[]): { child: ChildProcessWithoutNullStreams; stderr: () => string; done: Promise<number | null> } {
  const child = spawn(process.execPath, [BROKER_MAIN, 'produce', ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
  let err = ''
  child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s))
  child.stdout.resume()
  child.stdin.on('error', () => {})
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000)
  const done = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve(code)
    }),
  )
  return { child, stderr: () => err, done }
}

describe('tributary produce', () => {
  let broker: BrokerProcess
  let client: KafkaClient
  let dir: string
  const b = () => ['--bootstrap-server', broker.bootstrap]

  before(async () => {
    broker = await startBrokerProcess({ overrides: { 'auto.create.topics.enable': 'false' } })
    client = await KafkaClient.connect({ bootstrap: [broker.bootstrap] })
    const topics = [
      ['keyed', 3],
      ['lines', 1],
      ['binary', 1],
      ['delims', 1],
      ['big', 3],
      ['too-large', 1],
      ['interrupted', 2],
      ['killed', 1],
    ] as const
    const results = await createTopics(
      client,
      topics.map(([name, numPartitions]) => ({ name, numPartitions })),
    )
    for (const r of results) assert.equal(r.error, null, `create ${r.name}`)
    dir = mkdtempSync(join(tmpdir(), 'tributary-produce-'))
  })

  after(async () => {
    await client?.close()
    rmSync(dir, { recursive: true, force: true })
    await stopAndCheck(broker)
  })

  it('reads stdin: keys before the separator go where the Java client puts them, headers on every record, summary on stderr', async () => {
    const lines = ['alice\tsigned up', 'bob\tlogged in', 'no key here', 'carol\tpaid\twith a tab', '\tempty key', 'alice\tlogged out']
    const r = await tributary(['produce', 'keyed', ...b(), '--key-separator', '\\t', '--header', 'src=cli', '-H', 'batch=1'], {
      input: `${lines.join('\n')}\n`,
    })
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout, '')
    assert.match(
      r.stderr,
      /^produced 6 records \(\d+ B\) to 'keyed' partitions? [\d, ]+ in \d+\.\d\d s \(\d+ records\/s, [\d.]+ MB\/s\)\n$/,
    )
    const stored = await kcatConsumeAll(broker.bootstrap, 'keyed')
    assert.equal(stored.length, 6)
    const find = (value: string) => stored.find((s) => s.value === value)!
    for (const [key, value] of [
      ['alice', 'signed up'],
      ['bob', 'logged in'],
      ['carol', 'paid\twith a tab'],
      ['', 'empty key'],
      ['alice', 'logged out'],
    ] as const) {
      const s = find(value)
      assert.ok(s, `${value} stored`)
      assert.equal(s.key, key)
      assert.equal(s.partition, javaPartition(key, 3), `${key}: the Java client's partition`)
    }
    assert.equal(find('no key here').key, null)
    for (const s of stored)
      assert.deepEqual(s.headers, [
        ['src', 'cli'],
        ['batch', '1'],
      ])
    const alice = stored.filter((s) => s.key === 'alice').sort((x, y) => x.offset - y.offset)
    assert.deepEqual(
      alice.map((s) => s.value),
      ['signed up', 'logged out'],
      'in input order',
    )
  })

  it('reads --file, prints one JSON summary on stdout with --json, and keeps empty lines but not a trailing delimiter', async () => {
    const file = join(dir, 'lines.txt')
    writeFileSync(file, 'one\n\nthree\n')
    const r = await tributary(['produce', 'lines', ...b(), '--file', file, '--json'])
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stderr, '')
    const lines = r.stdout.trim().split('\n')
    assert.equal(lines.length, 1, r.stdout)
    const s = JSON.parse(lines[0]!)
    assert.equal(s.topic, 'lines')
    assert.equal(s.records, 3)
    assert.equal(s.read, 3)
    assert.equal(s.bytes, 8)
    assert.deepEqual(s.partitions, [0])
    assert.equal(s.failed, 0)
    assert.equal(s.interrupted, false)
    assert.equal(s.acks, -1)
    assert.ok(typeof s.elapsedMs === 'number' && typeof s.recordsPerSec === 'number' && typeof s.mbPerSec === 'number')
    const stored = await kcatRaw(broker.bootstrap, 'lines')
    assert.deepEqual(
      stored.map((x) => x.value!.toString()),
      ['one', '', 'three'],
    )
  })

  it('stores bytes exactly: UTF-8, CR before LF, NUL and every other byte value, a last line without a newline', async () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i).filter((i) => i !== 0x0a))
    const records = [
      Buffer.from('héllo wörld ✓ 😀'),
      Buffer.from('crlf\r'),
      bytes,
      Buffer.from([0xff, 0xfe, 0x00]),
      Buffer.from('no newline at the end'),
    ]
    const input = Buffer.concat(records.flatMap((x, i) => (i < records.length - 1 ? [x, Buffer.from('\n')] : [x])))
    const r = await tributary(['produce', 'binary', ...b(), '--acks', '1'], { input })
    assert.equal(r.code, 0, r.stderr)
    const stored = await kcatRaw(broker.bootstrap, 'binary')
    assert.equal(stored.length, records.length)
    stored.forEach((s, i) => {
      assert.equal(s.key, null)
      assert.ok(s.value!.equals(records[i]!), `record ${i}: ${s.value!.toString('hex')} != ${records[i]!.toString('hex')}`)
    })
  })

  it('splits at --delimiter (escapes, several bytes) and at a multi-byte --key-separator', async () => {
    let r = await tributary(['produce', 'delims', ...b(), '--delimiter', '\\0'], { input: Buffer.from('a\nb\0c d\0') })
    assert.equal(r.code, 0, r.stderr)
    r = await tributary(['produce', 'delims', ...b(), '--delimiter', '||', '--key-separator', '::'], { input: 'k1::v1||v2||k3::v::3' })
    assert.equal(r.code, 0, r.stderr)
    const stored = await kcatRaw(broker.bootstrap, 'delims')
    assert.deepEqual(
      stored.map((s) => [s.key?.toString() ?? null, s.value!.toString()]),
      [
        [null, 'a\nb'],
        [null, 'c d'],
        ['k1', 'v1'],
        [null, 'v2'],
        ['k3', 'v::3'],
      ],
    )
  })

  it('says a missing topic does not exist and how to create it (exit 1), without reading the input', async () => {
    const r = await tributary(['produce', 'nope', ...b()], { input: 'x\n' })
    assert.equal(r.code, 1)
    assert.match(r.stderr, /tributary produce: topic 'nope' does not exist\n {2}create it with: tributary topic create nope\n/)
    const md = await client.metadata(['nope'], { refresh: true })
    assert.equal(md.topics.get('nope')?.error, 'UNKNOWN_TOPIC_OR_PARTITION', 'not auto-created')
  })

  it('exits 2 for bad usage and 1 for a partition the topic lacks or an unreachable broker, with a hint', async () => {
    let r = await tributary(['produce', 'lines', ...b(), '--compression', 'brotli'])
    assert.equal(r.code, 2)
    assert.match(r.stderr, /--compression.*expected one of none, gzip, snappy, lz4, zstd/)
    r = await tributary(['produce', 'lines', ...b(), '--acks', '2'])
    assert.equal(r.code, 2)
    assert.match(r.stderr, /--acks/)
    r = await tributary(['produce', 'lines', ...b(), '--delimiter', '\\q'])
    assert.equal(r.code, 2)
    assert.match(r.stderr, /unknown escape/)
    r = await tributary(['produce', 'lines', ...b(), '--header', 'novalue'])
    assert.equal(r.code, 2)
    assert.match(r.stderr, /--header "novalue": expected key=value/)
    r = await tributary(['produce', 'lines', ...b(), '--partition', '5'], { input: 'x\n' })
    assert.equal(r.code, 1)
    assert.match(r.stderr, /topic 'lines' has no partition 5\n {2}it has 1 partition: give --partition 0\.\.0, or leave it out/)
    r = await tributary(['produce', 'lines', ...b(), '--file', join(dir, 'missing.txt')])
    assert.equal(r.code, 1)
    assert.match(r.stderr, /file '.*missing\.txt' does not exist/)
    r = await tributary(['produce', 'lines', '--bootstrap-server', '127.0.0.1:1'], { input: 'x\n' })
    assert.equal(r.code, 1)
    assert.match(r.stderr, /NETWORK_EXCEPTION/)
    assert.match(r.stderr, /is a broker running there\?/)
    r = await tributary(['produce', '--help'])
    assert.equal(r.code, 0)
    assert.match(r.stdout, /Examples:/)
    assert.match(r.stdout, /--key-separator/)
  })

  it('names the line of a record too large for the broker (exit 1) and still stores the others', async () => {
    const big = 'x'.repeat(1_200_000)
    const r = await tributary(['produce', 'too-large', ...b()], { input: `first\n${big}\nthird\n` })
    assert.equal(r.code, 1, r.stderr)
    assert.match(r.stderr, /produced 2 records/)
    assert.match(r.stderr, /1 of 3 records were not stored/)
    assert.match(r.stderr, /tributary produce: line 2: MESSAGE_TOO_LARGE/)
    assert.match(r.stderr, /max\.message\.bytes/)
    const stored = await kcatRaw(broker.bootstrap, 'too-large')
    assert.deepEqual(
      stored.map((s) => s.value!.toString()),
      ['first', 'third'],
    )
  })

  it('produces a 100,000-line file: every line stored once, in order within its partition', async () => {
    const file = join(dir, 'big.txt')
    const lines: string[] = []
    for (let i = 0; i < 100_000; i++) lines.push(`${i} line é ✓ ${'x'.repeat(i % 61)}`)
    writeFileSync(file, `${lines.join('\n')}\n`)
    const r = await tributary(['produce', 'big', ...b(), '--file', file, '--json'], { timeoutMs: 300_000 })
    assert.equal(r.code, 0, r.stderr)
    const s = JSON.parse(r.stdout)
    assert.equal(s.records, 100_000)
    assert.equal(s.read, 100_000)
    assert.deepEqual(s.partitions, [0, 1, 2], 'records without keys spread over the partitions')
    const stored = await kcatRaw(broker.bootstrap, 'big')
    assert.equal(stored.length, 100_000)
    const seen = new Set<number>()
    let last = [-1, -1, -1]
    for (const rec of stored) {
      const v = rec.value!.toString('utf8')
      const n = Number(v.slice(0, v.indexOf(' ')))
      assert.equal(v, lines[n], `line ${n}`)
      assert.ok(n > last[rec.partition]!, `partition ${rec.partition}: line ${n} after line ${last[rec.partition]}`)
      last = last.map((x, p) => (p === rec.partition ? n : x))
      seen.add(n)
    }
    assert.equal(seen.size, 100_000)
  })

  it('on Ctrl-C stops reading, sends what was read (a last line without newline too), exits 0 and says it was interrupted', async () => {
    // A long linger keeps the records in the producer until the interrupt sends them.
    const p = spawnProduce(['interrupted', ...b(), '--linger-ms', '600000', '--progress', '--key-separator', '='])
    const input = 'a=1\nb=2\nc=3\nd=4\nlast=5'
    p.child.stdin.write(input)
    await waitFor(() => new RegExp(`4 records read, 0 acknowledged, ${input.length} B,`).test(p.stderr()), 'a progress line', 60_000)
    const before = await kcatQueryOffsets(
      broker.bootstrap,
      'interrupted',
      [0, 1].map((partition) => ({ partition, timestamp: -1 })),
    )
    assert.deepEqual([...before.values()], [0, 0], 'nothing sent before the interrupt')
    p.child.kill('SIGINT')
    assert.equal(await p.done, 0, p.stderr())
    assert.match(p.stderr(), /interrupted; sending the 4 records read/)
    assert.match(p.stderr(), /produced 5 records/)
    assert.match(p.stderr(), /interrupted: stopped reading after line 5; every record read was sent/)
    const stored = await kcatConsumeAll(broker.bootstrap, 'interrupted')
    assert.deepEqual(stored.map((s) => `${s.key}=${s.value}`).sort(), ['a=1', 'b=2', 'c=3', 'd=4', 'last=5'])
    for (const s of stored) assert.equal(s.partition, javaPartition(s.key!, 2))
  })

  it('on a second Ctrl-C exits 1 at once and reports the records read but not acknowledged', async () => {
    const p = spawnProduce(['killed', ...b(), '--linger-ms', '600000', '--progress'])
    p.child.stdin.write('1\n2\n3\n')
    await waitFor(() => /3 records read, 0 acknowledged/.test(p.stderr()), 'a progress line', 60_000)
    // A paused broker never acknowledges: the first Ctrl-C's flush waits.
    process.kill(broker.pid, 'SIGSTOP')
    try {
      p.child.kill('SIGINT')
      await waitFor(() => /interrupted; sending the 3 records read/.test(p.stderr()), 'the first interrupt', 60_000)
      p.child.kill('SIGINT')
      assert.equal(await p.done, 1)
    } finally {
      process.kill(broker.pid, 'SIGCONT')
    }
    assert.match(p.stderr(), /exiting at once: 3 records read, 0 acknowledged, 0 failed, 3 read but not acknowledged/)
  })
})

describe('tributary produce, broker that creates topics', () => {
  let broker: BrokerProcess
  before(async () => {
    broker = await startBrokerProcess({ overrides: { 'num.partitions': '2' } })
  })
  after(async () => {
    await stopAndCheck(broker)
  })

  it('creates a missing topic through Metadata, as Kafka producers do', async () => {
    const r = await tributary(['produce', 'fresh', '--bootstrap-server', broker.bootstrap], { input: 'x\ny\n' })
    assert.equal(r.code, 0, r.stderr)
    const stored = await kcatConsumeAll(broker.bootstrap, 'fresh')
    assert.deepEqual(stored.map((s) => s.value).sort(), ['x', 'y'])
  })

  it('takes the bootstrap server from TRIBUTARY_BOOTSTRAP', async () => {
    const r = await tributary(['produce', 'fresh', '--json'], { input: 'z\n', env: { TRIBUTARY_BOOTSTRAP: broker.bootstrap } })
    assert.equal(r.code, 0, r.stderr)
    assert.equal(JSON.parse(r.stdout).records, 1)
  })
})
