// `tributary consume` as a subprocess against a real broker process, with data produced by kafkajs
// (keys, headers, explicit timestamps, several partitions): every start position, --partition,
// --max-messages, --exit-at-end, --format and --json output checked exactly; that a run without
// --group creates no group; with --group, committed offsets and a second run resuming after them,
// a group shared with a kafkajs consumer (each partition read by exactly one member), and --follow
// printing records produced after it started until SIGINT.
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { after, before, describe, it } from 'node:test'
import { type Admin, Kafka, logLevel, type Producer } from 'kafkajs'
import { formatPartitions } from '../../src/cli/consume/start.js'
import { BROKER_MAIN, type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { type CliRun, tributary } from '../helpers/cli.js'
import { sleep } from '../helpers/clients.js'
import { GROUP_BROKER_OVERRIDES, kafkajsInspector, STALE_FETCH_GRACE_MS, startMember, waitUntil } from '../helpers/groups.js'

const P = 3
const PER_PARTITION = 5
const T0 = 1_700_000_000_000

/** The record at partition p, index i of the topic `data`. */
const rec = (p: number, i: number) => ({
  key: `k${p}-${i}`,
  value: `v${p}-${i}`,
  headers: { src: `p${p}`, n: String(i) },
  timestamp: T0 + i * 1000,
})

/** A consume run that runs until told to stop: its output so far, and its exit. */
class Running {
  out = ''
  err = ''
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  private readonly child: ChildProcess

  constructor(args: string[]) {
    this.child = spawn(process.execPath, [BROKER_MAIN, 'consume', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    this.child.stdout!.setEncoding('utf8').on('data', (s: string) => (this.out += s))
    this.child.stderr!.setEncoding('utf8').on('data', (s: string) => (this.err += s))
    this.exited = new Promise((resolve) => this.child.once('close', (code, signal) => resolve({ code, signal })))
  }

  get lines(): string[] {
    return this.out.split('\n').filter((l) => l !== '')
  }

  waitStderr(re: RegExp, what: string): Promise<RegExpExecArray> {
    return waitUntil(
      what,
      () => re.exec(this.err) ?? false,
      () => `stderr:\n${this.err}\nstdout:\n${this.out}`,
      30_000,
    )
  }

  waitLines(n: number, what: string): Promise<string[]> {
    return waitUntil(
      what,
      () => (this.lines.length >= n ? this.lines : false),
      () => `stdout:\n${this.out}\nstderr:\n${this.err}`,
      30_000,
    )
  }

  async interrupt(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.child.kill('SIGINT')
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 30_000)
    try {
      return await this.exited
    } finally {
      clearTimeout(timer)
    }
  }

  kill(): void {
    this.child.kill('SIGKILL')
  }
}

describe('tributary consume', () => {
  let broker: BrokerProcess
  let kafka: Kafka
  let admin: Admin
  let producer: Producer
  const running: Running[] = []

  const consume = (args: string[]): Promise<CliRun> => tributary(['consume', ...args, '--bootstrap-server', broker.bootstrap])
  const consumeOk = async (args: string[]): Promise<CliRun> => {
    const r = await consume(args)
    assert.equal(r.code, 0, `consume ${args.join(' ')} exited ${r.code}:\n${r.stderr}${r.stdout}`)
    return r
  }
  const start = (args: string[]): Running => {
    const r = new Running([...args, '--bootstrap-server', broker.bootstrap])
    running.push(r)
    return r
  }
  /** `%p %o %k %v` lines of the given (partition, index) pairs. */
  const lines = (pairs: Array<[number, number]>) => pairs.map(([p, i]) => `${p} ${i} k${p}-${i} v${p}-${i}`)
  const all = (from: number, to = PER_PARTITION, parts = [0, 1, 2]) =>
    parts.flatMap((p) => Array.from({ length: to - from }, (_, k) => [p, from + k] as [number, number]))
  /** Output lines sorted by partition, checking each partition's lines came in offset order. */
  const byPartition = (out: string): string[] => {
    const ls = out.split('\n').filter((l) => l !== '')
    for (let p = 0; p < P; p++) {
      const offsets = ls.filter((l) => l.startsWith(`${p} `)).map((l) => Number(l.split(' ')[1]))
      assert.deepEqual(
        offsets,
        [...offsets].sort((a, b) => a - b),
        `partition ${p} printed in offset order`,
      )
    }
    return [...ls].sort()
  }
  const FMT = ['--format', '%p %o %k %v\\n']

  before(async () => {
    // The records carry timestamps of 2023 (T0), for the --timestamp tests: retention by time is
    // off, or its first pass (30 s after the start) deletes them when the machine is slow enough
    // for the file to be still running then (the out-of-range test found its partition emptied).
    broker = await startBrokerProcess({ overrides: { ...GROUP_BROKER_OVERRIDES, 'log.retention.ms': '-1' } })
    kafka = new Kafka({ clientId: 'it-cli-consume', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING })
    admin = kafka.admin()
    await admin.connect()
    producer = kafka.producer({ allowAutoTopicCreation: false })
    await producer.connect()
    await admin.createTopics({
      topics: [
        { topic: 'data', numPartitions: P },
        { topic: 'nulls', numPartitions: 1 },
        { topic: 'mixed', numPartitions: 4 },
        { topic: 'tail', numPartitions: 2 },
      ],
    })
    for (let i = 0; i < PER_PARTITION; i++) {
      await producer.send({
        topic: 'data',
        acks: -1,
        messages: [0, 1, 2].map((p) => {
          const r = rec(p, i)
          return { partition: p, key: r.key, value: r.value, headers: r.headers, timestamp: String(r.timestamp) }
        }),
      })
    }
    await producer.send({
      topic: 'nulls',
      acks: -1,
      messages: [
        { key: null, value: 'no key', timestamp: String(T0) },
        { key: 'tombstone', value: null, timestamp: String(T0 + 1) },
        {
          key: Buffer.from([0xff, 0x00, 0x01]),
          value: Buffer.from([0xde, 0xad]),
          headers: { bin: Buffer.from([0x01]) },
          timestamp: String(T0 + 2),
        },
      ],
    })
  })

  after(async () => {
    for (const r of running) r.kill()
    await producer?.disconnect()
    await admin?.disconnect()
    await stopAndCheck(broker)
  })

  describe('without a group', () => {
    it('--from-beginning --exit-at-end prints every record, each partition in offset order', async () => {
      const r = await consumeOk(['data', '--from-beginning', '--exit-at-end', ...FMT])
      assert.deepEqual(byPartition(r.stdout), lines(all(0)).sort())
      assert.match(r.stderr, /Processed 15 messages/)
    })

    it('prints values one per line by default', async () => {
      const r = await consumeOk(['data', '--from-beginning', '--exit-at-end', '--partition', '1'])
      assert.equal(r.stdout, 'v1-0\nv1-1\nv1-2\nv1-3\nv1-4\n')
    })

    it('starts at the end by default: --exit-at-end alone prints nothing', async () => {
      const r = await consumeOk(['data', '--exit-at-end'])
      assert.equal(r.stdout, '')
      assert.match(r.stderr, /Processed 0 messages/)
    })

    it('--offset N, earliest, latest and -N (the last N of each partition)', async () => {
      assert.deepEqual(byPartition((await consumeOk(['data', '--offset', '3', '--exit-at-end', ...FMT])).stdout), lines(all(3)).sort())
      assert.deepEqual(
        byPartition((await consumeOk(['data', '--offset', 'earliest', '--exit-at-end', ...FMT])).stdout),
        lines(all(0)).sort(),
      )
      assert.equal((await consumeOk(['data', '--offset', 'latest', '--exit-at-end', ...FMT])).stdout, '')
      assert.deepEqual(byPartition((await consumeOk(['data', '--offset', '-2', '--exit-at-end', ...FMT])).stdout), lines(all(3)).sort())
      // More than a partition holds: from its beginning.
      assert.deepEqual(byPartition((await consumeOk(['data', '--offset', '-50', '--exit-at-end', ...FMT])).stdout), lines(all(0)).sort())
    })

    it('--timestamp in ms and as an ISO date: the first record at or after it', async () => {
      const t = T0 + 3000
      const want = lines(all(3)).sort()
      assert.deepEqual(byPartition((await consumeOk(['data', '--timestamp', String(t), '--exit-at-end', ...FMT])).stdout), want)
      assert.deepEqual(
        byPartition((await consumeOk(['data', '--timestamp', new Date(t).toISOString(), '--exit-at-end', ...FMT])).stdout),
        want,
      )
      assert.deepEqual(byPartition((await consumeOk(['data', '--timestamp', String(t - 500), '--exit-at-end', ...FMT])).stdout), want)
      // After the last record: nothing.
      assert.equal((await consumeOk(['data', '--timestamp', String(T0 + 60_000), '--exit-at-end', ...FMT])).stdout, '')
    })

    it('--partition, repeated or as a comma list', async () => {
      const one = await consumeOk(['data', '--from-beginning', '--exit-at-end', '--partition', '2', ...FMT])
      assert.deepEqual(byPartition(one.stdout), lines(all(0, PER_PARTITION, [2])))
      const two = await consumeOk(['data', '--from-beginning', '--exit-at-end', '--partition', '0,2', ...FMT])
      assert.deepEqual(byPartition(two.stdout), lines(all(0, PER_PARTITION, [0, 2])).sort())
      const rep = await consumeOk(['data', '--from-beginning', '--exit-at-end', '--partition', '0', '--partition', '1', ...FMT])
      assert.deepEqual(byPartition(rep.stdout), lines(all(0, PER_PARTITION, [0, 1])).sort())
    })

    it('--max-messages stops after exactly N records, even while following', async () => {
      const r = await consumeOk(['data', '--from-beginning', '--partition', '0', '--max-messages', '4', ...FMT])
      assert.deepEqual(r.stdout.split('\n').filter(Boolean), lines(all(0, 4, [0])))
      assert.match(r.stderr, /Processed 4 messages/)
      const across = await consumeOk(['data', '--from-beginning', '--max-messages', '7', ...FMT])
      assert.equal(across.stdout.split('\n').filter(Boolean).length, 7)
    })

    it('--format: every field and escape', async () => {
      const r = await consumeOk([
        'data',
        '--partition',
        '1',
        '--offset',
        '2',
        '--max-messages',
        '1',
        '--format',
        '%t|%p|%o|%T|%k|%v|%h|100%%\\t\\\\end\\n',
      ])
      assert.equal(r.stdout, `data|1|2|${T0 + 2000}|k1-2|v1-2|src=p1,n=2|100%\t\\end\n`)
    })

    it('--format and --json with null keys and values', async () => {
      const t = await consumeOk(['nulls', '--from-beginning', '--exit-at-end', '--format', '[%k][%v]\\n'])
      assert.equal(t.stdout.split('\n').slice(0, 2).join('\n'), '[][no key]\n[tombstone][]')
      const j = await consumeOk(['nulls', '--from-beginning', '--exit-at-end', '--max-messages', '2', '--json'])
      assert.deepEqual(
        j.stdout
          .trimEnd()
          .split('\n')
          .map((l) => JSON.parse(l)),
        [
          { topic: 'nulls', partition: 0, offset: 0, timestamp: T0, key: null, value: 'no key', headers: [] },
          { topic: 'nulls', partition: 0, offset: 1, timestamp: T0 + 1, key: 'tombstone', value: null, headers: [] },
        ],
      )
    })

    it('--json prints one exact object per line', async () => {
      const r = await consumeOk(['data', '--partition', '2', '--offset', '3', '--exit-at-end', '--json'])
      assert.equal(
        r.stdout,
        [3, 4]
          .map(
            (i) =>
              `{"topic":"data","partition":2,"offset":${i},"timestamp":${T0 + i * 1000},"key":"k2-${i}","value":"v2-${i}","headers":[{"key":"src","value":"p2"},{"key":"n","value":"${i}"}]}\n`,
          )
          .join(''),
      )
    })

    it('--encoding base64 and hex for binary keys, values and headers', async () => {
      const b = await consumeOk(['nulls', '--offset', '2', '--exit-at-end', '--json', '--encoding', 'base64'])
      const o = JSON.parse(b.stdout)
      assert.equal(o.key, Buffer.from([0xff, 0x00, 0x01]).toString('base64'))
      assert.equal(o.value, '3q0=')
      assert.deepEqual(o.headers, [{ key: 'bin', value: 'AQ==' }])
      const h = await consumeOk(['nulls', '--offset', '2', '--exit-at-end', '--encoding', 'hex', '--format', '%k %v %h\\n'])
      assert.equal(h.stdout, 'ff0001 dead bin=01\n')
    })

    it('an unknown topic or partition fails with what to do; bad usage exits 2', async () => {
      const r = await consume(['no-such-topic', '--exit-at-end'])
      assert.equal(r.code, 1)
      assert.match(r.stderr, /topic 'no-such-topic' does not exist/)
      assert.match(r.stderr, /list topics with: tributary topic list/)
      const md = await admin.fetchTopicMetadata({ topics: [] })
      assert.ok(!md.topics.some((t) => t.name === 'no-such-topic'), 'reading does not create the topic')
      const p = await consume(['data', '--partition', '9'])
      assert.equal(p.code, 1)
      assert.match(p.stderr, /partition 9 of topic 'data' does not exist/)
      assert.match(p.stderr, /has 3 partitions: 0-2/)
      for (const args of [
        ['data', '--from-beginning', '--offset', '1'],
        ['data', '--offset', '1', '--timestamp', '5'],
        ['data', '--group', 'g', '--partition', '0'],
        ['data', '--format', '%q'],
        ['data', '--format', '%v', '--json'],
        ['data', '--follow', '--exit-at-end'],
        ['data', '--offset', 'soon'],
        ['data', '--timestamp', 'yesterday'],
      ]) {
        const u = await consume(args)
        assert.equal(u.code, 2, `${args.join(' ')}: exit 2, got ${u.code}\n${u.stderr}`)
      }
    })

    it('an out-of-range offset restarts at the end, with a note', async () => {
      const r = start(['data', '--partition', '0', '--offset', '100', '--max-messages', '1', ...FMT])
      await r.waitStderr(/offset 100 of data-0 is out of range; reading from the latest offset 5 instead/, 'the reset note')
      await producer.send({ topic: 'data', acks: -1, messages: [{ partition: 0, key: 'late', value: 'after-reset' }] })
      const { code } = await r.exited
      assert.equal(code, 0, r.err)
      assert.equal(r.out, '0 5 late after-reset\n')
    })

    it('none of the runs above created or joined a group', async () => {
      const { groups } = await admin.listGroups()
      assert.deepEqual(groups, [])
    })
  })

  describe('with --group', () => {
    it('commits what it printed; a second run resumes right after it; the group is left empty', async () => {
      const first = await consumeOk(['data', '--group', 'resume', '--from-beginning', '--max-messages', '7', ...FMT])
      const printed = first.stdout.split('\n').filter(Boolean)
      assert.equal(printed.length, 7)
      const committed = await admin.fetchOffsets({ groupId: 'resume', topics: ['data'] })
      const next = new Map(committed[0]!.partitions.map((x) => [x.partition, Number(x.offset)]))
      for (let p = 0; p < P; p++) {
        const mine = printed.filter((l) => l.startsWith(`${p} `)).map((l) => Number(l.split(' ')[1]))
        assert.equal(
          next.get(p),
          mine.length === 0 ? 0 : Math.max(...mine) + 1,
          `committed offset of partition ${p} follows the last printed`,
        )
      }
      const desc = await admin.describeGroups(['resume'])
      assert.equal(desc.groups[0]!.state, 'Empty', 'the member left the group on exit')

      const second = await consumeOk(['data', '--group', 'resume', '--exit-at-end', ...FMT])
      const rest = second.stdout.split('\n').filter(Boolean)
      const everything = [...lines(all(0)), '0 5 late after-reset']
      assert.deepEqual([...printed, ...rest].sort(), everything.sort(), 'the two runs together print every record once')
      const third = await consumeOk(['data', '--group', 'resume', '--exit-at-end', ...FMT])
      assert.equal(third.stdout, '', 'nothing left after the committed offsets')
    })

    it('a committed offset out of range restarts at the earliest offset with --from-beginning', async () => {
      await admin.setOffsets({ groupId: 'stale', topic: 'data', partitions: [{ partition: 1, offset: '1000' }] })
      const r = await consumeOk(['data', '--group', 'stale', '--from-beginning', '--exit-at-end', ...FMT])
      assert.match(r.stderr, /offset 1000 of data-1 is out of range; reading from the earliest offset 0 instead/)
      assert.deepEqual(byPartition(r.stdout), [...lines(all(0)), '0 5 late after-reset'].sort())
    })

    it('shares a group with a kafkajs consumer: each partition read by exactly one member', async () => {
      const inspector = kafkajsInspector(admin)
      const cli = start(['mixed', '--group', 'mixed-group', '--from-beginning', ...FMT])
      const js = await startMember({
        client: 'kafkajs',
        name: 'js',
        bootstrap: broker.bootstrap,
        groupId: 'mixed-group',
        topic: 'mixed',
        sessionTimeoutMs: 10_000,
        heartbeatIntervalMs: 500,
        reset: 'earliest',
      })
      try {
        const settled = await waitUntil(
          'the group to settle on two members sharing the four partitions',
          async () => {
            const d = await inspector.describe('mixed-group', 'mixed')
            if (d.state !== 'Stable' || d.members.length !== 2 || js.memberId === null) return false
            const parts = d.members.flatMap((m) => m.partitions).sort()
            if (parts.join() !== '0,1,2,3' || d.members.some((m) => m.partitions.length === 0)) return false
            const mine = d.members.find((m) => m.memberId === js.memberId)
            if (!mine || mine.partitions.join() !== (js.assigned ?? []).join()) return false
            return d
          },
          () => `cli stderr:\n${cli.err}\n${js.summary()}`,
          60_000,
        )
        assert.equal(settled.protocol, 'RoundRobinAssigner', 'the protocol both offer')
        const cliParts = settled.members.find((m) => m.memberId !== js.memberId)!.partitions
        const lastAssigned = () => [...cli.err.matchAll(/assigned mixed partitions (\S+)/g)].at(-1)?.[1]
        await waitUntil(
          'the CLI to report the same assignment',
          () => lastAssigned() === formatPartitions(cliParts),
          () => cli.err,
          30_000,
        )
        await sleep(STALE_FETCH_GRACE_MS)

        const N = 40
        await producer.send({
          topic: 'mixed',
          acks: -1,
          messages: Array.from({ length: N }, (_, i) => ({ partition: i % 4, key: `m${i}`, value: `mixed-${i}` })),
        })
        await waitUntil(
          `all ${N} records to be consumed`,
          () => cli.lines.length + js.records.length >= N,
          () => `cli: ${cli.lines.length} lines; js: ${js.records.length}\n${cli.err}`,
          30_000,
        )
        await sleep(500) // a duplicate delivered late would show here
        const fromCli = cli.lines.map((l) => {
          const [p, o, , v] = l.split(' ')
          return { partition: Number(p), offset: Number(o), value: v! }
        })
        const values = [...fromCli.map((r) => r.value), ...js.records.map((r) => r.value!)]
        assert.equal(values.length, N, 'no record consumed twice')
        assert.deepEqual([...new Set(values)].sort(), Array.from({ length: N }, (_, i) => `mixed-${i}`).sort())
        for (const r of fromCli) assert.ok(cliParts.includes(r.partition), `the CLI read only its partitions (got ${r.partition})`)
        for (const r of js.records) assert.ok(!cliParts.includes(r.partition), `kafkajs read only its partitions (got ${r.partition})`)
        assert.ok(fromCli.length > 0 && js.records.length > 0, 'both members consumed')

        const exit = await cli.interrupt()
        assert.equal(exit.code, 0, `SIGINT exits 0:\n${cli.err}`)
        assert.match(cli.err, new RegExp(`Processed ${fromCli.length} messages`))
        const committed = await inspector.committed('mixed-group', 'mixed', 4)
        for (const p of cliParts) assert.equal(committed[p], N / 4, `the CLI committed partition ${p} on exit`)
      } finally {
        await js.stop()
      }
    })
  })

  it('--follow (the default) prints records produced after it started, until SIGINT', async () => {
    await producer.send({ topic: 'tail', acks: -1, messages: [{ partition: 0, value: 'old' }] })
    const r = start(['tail'])
    await r.waitStderr(/Reading tail partitions 0-1 from the end/, 'the start note')
    await producer.send({
      topic: 'tail',
      acks: -1,
      messages: [
        { partition: 0, value: 'new-1' },
        { partition: 1, value: 'new-2' },
      ],
    })
    await r.waitLines(2, 'the two new records')
    await producer.send({ topic: 'tail', acks: -1, messages: [{ partition: 1, value: 'new-3' }] })
    await r.waitLines(3, 'the third record')
    const exit = await r.interrupt()
    assert.equal(exit.code, 0, r.err)
    assert.deepEqual([...r.lines].sort(), ['new-1', 'new-2', 'new-3'])
    assert.match(r.err, /Processed 3 messages/)
  })
})
