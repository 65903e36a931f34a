// `tributary transactions list | describe | abort | find-hanging` run in-process (runCli with fake
// process deps) against a scripted broker (test/unit/client/fake-kafka.ts): the requests each
// subcommand sends (filters, the version a duration filter needs, the marker an abort writes and
// where its producer comes from), the text and --json output, Kafka's find-hanging rule, and the
// exit codes (1 for an unknown id or no open transaction at the offset, 2 for bad usage).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { hangingAmong, type OpenTransaction } from '../../../src/client/admin-transactions.js'
import { type CliDeps, runCli } from '../../../src/cli/program.js'
import { ErrorCode } from '../../../src/protocol/errors.js'
import { silentLogger } from '../../../src/util/logger.js'
import { type FakeKafka, startFakeKafka } from '../client/fake-kafka.js'

const OLD = Date.now() - 60 * 60_000 // an hour ago
const START = 1_700_000_000_000

function run(bootstrap: string, ...args: string[]) {
  const out: string[] = []
  const err: string[] = []
  const exits: number[] = []
  const deps: CliDeps = {
    version: '0',
    startBroker: async () => {
      throw new Error('not here')
    },
    onSignal: () => {},
    exit: (code) => exits.push(code),
    stdout: (t) => out.push(String(t)),
    stderr: (t) => err.push(t),
    createLogger: () => silentLogger,
  }
  return runCli(['node', 'tributary', 'transactions', ...args, '--bootstrap-server', bootstrap], deps).then(() => ({
    code: exits[0],
    stdout: out.join(''),
    stderr: err.join(''),
  }))
}

describe('tributary transactions', () => {
  let fake: FakeKafka
  const cli = (...args: string[]) => run(fake.bootstrap, ...args)
  const requests = (name: string) => fake.log.filter((r) => r.name === name)

  before(async () => {
    fake = await startFakeKafka({
      topics: { out: 2 },
      handlers: {
        10: (body: any, v: number) => {
          const keys: string[] = v >= 4 ? body.coordinatorKeys : [body.key]
          return {
            throttleTimeMs: 0,
            errorCode: 0,
            errorMessage: null,
            nodeId: 0,
            host: '127.0.0.1',
            port: fake.port,
            coordinators: keys.map((key) => ({ key, nodeId: 0, host: '127.0.0.1', port: fake.port, errorCode: 0, errorMessage: null })),
          }
        },
        65: (body: any) => ({
          throttleTimeMs: 0,
          transactionStates: body.transactionalIds.map((id: string) =>
            id === 'copier'
              ? {
                  errorCode: 0,
                  transactionalId: id,
                  transactionState: 'Ongoing',
                  transactionTimeoutMs: 60_000,
                  transactionStartTimeMs: START,
                  producerId: 4000,
                  producerEpoch: 2,
                  topics: [{ topic: 'out', partitions: [0] }],
                }
              : {
                  errorCode: ErrorCode.TRANSACTIONAL_ID_NOT_FOUND.code,
                  transactionalId: id,
                  transactionState: '',
                  transactionTimeoutMs: 0,
                  transactionStartTimeMs: -1,
                  producerId: -1,
                  producerEpoch: -1,
                  topics: [],
                },
          ),
        }),
        66: (body: any) => {
          const all = [
            { transactionalId: 'copier', producerId: 4000, transactionState: 'Ongoing' },
            { transactionalId: 'idle', producerId: 4010, transactionState: 'Empty' },
          ]
          const known = ['Ongoing', 'Empty', 'PrepareCommit', 'PrepareAbort', 'CompleteCommit', 'CompleteAbort']
          return {
            throttleTimeMs: 0,
            errorCode: 0,
            unknownStateFilters: body.stateFilters.filter((s: string) => !known.includes(s)),
            transactionStates: all.filter(
              (t) =>
                (body.stateFilters.length === 0 || body.stateFilters.includes(t.transactionState)) &&
                (body.producerIdFilters.length === 0 || body.producerIdFilters.includes(t.producerId)),
            ),
          }
        },
        61: (body: any) => ({
          throttleTimeMs: 0,
          topics: body.topics.map((t: any) => ({
            name: t.name,
            partitions: t.partitionIndexes.map((p: number) => ({
              partitionIndex: p,
              errorCode: 0,
              errorMessage: null,
              activeProducers:
                p === 0
                  ? [
                      {
                        producerId: 4000,
                        producerEpoch: 2,
                        lastSequence: 3,
                        lastTimestamp: OLD,
                        coordinatorEpoch: -1,
                        currentTxnStartOffset: 120,
                      },
                    ]
                  : [
                      {
                        producerId: 4001,
                        producerEpoch: 9,
                        lastSequence: 0,
                        lastTimestamp: OLD,
                        coordinatorEpoch: 4,
                        currentTxnStartOffset: 7,
                      },
                      {
                        producerId: 4002,
                        producerEpoch: 0,
                        lastSequence: 5,
                        lastTimestamp: OLD,
                        coordinatorEpoch: -1,
                        currentTxnStartOffset: -1,
                      },
                    ],
            })),
          })),
        }),
        27: (body: any) => ({
          markers: body.markers.map((m: any) => ({
            producerId: m.producerId,
            topics: m.topics.map((t: any) => ({
              name: t.name,
              partitions: t.partitionIndexes.map((p: number) => ({ partitionIndex: p, errorCode: 0 })),
            })),
          })),
        }),
      },
    })
  })
  after(() => fake.close())

  it('list: every coordinator’s transactions, with the filters sent and unknown states reported', async () => {
    const all = await cli('list')
    assert.equal(all.code, 0, all.stderr)
    const lines = all.stdout.trim().split('\n')
    assert.match(lines[0]!, /^TRANSACTIONAL ID\s+COORDINATOR\s+PRODUCER ID\s+STATE$/)
    assert.deepEqual(
      lines.slice(1).map((l) => l.trim().split(/\s+/)),
      [
        ['copier', '0', '4000', 'Ongoing'],
        ['idle', '0', '4010', 'Empty'],
      ],
    )

    const filtered = await cli(
      'list',
      '--state',
      'Ongoing',
      '--state',
      'Bogus',
      '--producer-id',
      '4000',
      '--duration-filter',
      '5000',
      '--json',
    )
    assert.equal(filtered.code, 0, filtered.stderr)
    assert.deepEqual(JSON.parse(filtered.stdout), {
      transactions: [{ transactionalId: 'copier', producerId: 4000, state: 'Ongoing', coordinator: 0 }],
      unknownStateFilters: ['Bogus'],
    })
    assert.match(filtered.stderr, /unknown state "Bogus"/)
    const sent = requests('ListTransactions').at(-1)!
    assert.ok(sent.version >= 1, `a duration filter needs v1, sent v${sent.version}`)
    assert.deepEqual([sent.body.stateFilters, sent.body.producerIdFilters, sent.body.durationFilter], [['Ongoing', 'Bogus'], [4000], 5000])

    const byPattern = await cli('list', '--transactional-id-pattern', 'cop.*')
    assert.equal(byPattern.code, 0, byPattern.stderr)
    const patterned = requests('ListTransactions').at(-1)!
    assert.deepEqual([patterned.version, patterned.body.transactionalIdPattern], [2, 'cop.*'])
  })

  it('describe: the coordinator’s view of one id; an unknown id exits 1', async () => {
    const text = await cli('describe', 'copier')
    assert.equal(text.code, 0, text.stderr)
    const [head, row] = text.stdout.trim().split('\n')
    assert.match(
      head!,
      /^COORDINATOR\s+TRANSACTIONAL ID\s+PRODUCER ID\s+EPOCH\s+STATE\s+TIMEOUT MS\s+START TIME\s+DURATION MS\s+PARTITIONS$/,
    )
    const cells = row!.trim().split(/\s+/)
    assert.deepEqual(
      [cells[0], cells[1], cells[2], cells[3], cells[4], cells[5], cells[6], cells[8]],
      ['0', 'copier', '4000', '2', 'Ongoing', '60000', new Date(START).toISOString(), 'out-0'],
    )
    const json = JSON.parse((await cli('describe', 'copier', '--json')).stdout)
    assert.deepEqual(
      [json.state, json.producerId, json.producerEpoch, json.startTimeMs, json.partitions],
      ['Ongoing', 4000, 2, START, [{ topic: 'out', partition: 0 }]],
    )
    assert.ok(json.durationMs >= Date.now() - START - 60_000)
    assert.equal(requests('FindCoordinator').at(-1)!.body.keyType, 1)

    const missing = await cli('describe', 'nobody')
    assert.equal(missing.code, 1)
    assert.match(missing.stderr, /transactional id 'nobody' is not known to its coordinator/)
  })

  it('abort --start-offset: the producer from DescribeProducers, an ABORT marker to the leader (coordinator epoch -1 taken as 0)', async () => {
    const r = await cli('abort', '--topic', 'out', '--partition', '0', '--start-offset', '120')
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stdout, /Aborted the transaction of producer 4000 \(epoch 2, coordinator epoch 0\) on out-0/)
    const m = requests('WriteTxnMarkers').at(-1)!.body.markers
    assert.deepEqual(m, [
      {
        producerId: 4000,
        producerEpoch: 2,
        transactionResult: false,
        topics: [{ name: 'out', partitionIndexes: [0] }],
        coordinatorEpoch: 0,
        transactionVersion: 0,
      },
    ])
    assert.deepEqual(requests('DescribeProducers').at(-1)!.body.topics, [{ name: 'out', partitionIndexes: [0] }])
  })

  it('abort by producer: the marker as given; no open transaction at the offset exits 1; bad usage 2', async () => {
    const before = requests('WriteTxnMarkers').length
    const r = await cli(
      'abort',
      '--topic',
      'out',
      '--partition',
      '1',
      '--producer-id',
      '4001',
      '--producer-epoch',
      '9',
      '--coordinator-epoch',
      '4',
      '--json',
    )
    assert.equal(r.code, 0, r.stderr)
    assert.deepEqual(JSON.parse(r.stdout), {
      aborted: { topic: 'out', partition: 1, producerId: 4001, producerEpoch: 9, coordinatorEpoch: 4 },
    })
    assert.equal(requests('WriteTxnMarkers').length, before + 1)
    assert.equal(requests('WriteTxnMarkers').at(-1)!.body.markers[0].coordinatorEpoch, 4)

    const none = await cli('abort', '--topic', 'out', '--partition', '0', '--start-offset', '999')
    assert.equal(none.code, 1)
    assert.match(none.stderr, /no open transaction starts at offset 999 of out-0/)
    for (const args of [
      ['abort', '--topic', 'out', '--partition', '0'],
      ['abort', '--topic', 'out', '--partition', '0', '--producer-id', '4000'],
      [
        'abort',
        '--topic',
        'out',
        '--partition',
        '0',
        '--start-offset',
        '1',
        '--producer-id',
        '4000',
        '--producer-epoch',
        '1',
        '--coordinator-epoch',
        '0',
      ],
      ['abort', '--topic', 'out', '--partition', 'x', '--start-offset', '1'],
    ]) {
      const u = await cli(...args)
      assert.equal(u.code, 2, `${args.join(' ')}: ${u.stderr}`)
    }
    assert.equal(requests('WriteTxnMarkers').length, before + 1, 'no marker written by a refused command')
  })

  it('find-hanging: open transactions the coordinators do not account for', async () => {
    const r = await cli('find-hanging', '--json')
    assert.equal(r.code, 0, r.stderr)
    const { hanging } = JSON.parse(r.stdout)
    // 4000 on out-0 is in copier's transaction; 4001 is listed by no coordinator; 4002 has no open transaction.
    assert.deepEqual(
      hanging.map((h: any) => [h.topic, h.partition, h.producerId, h.producerEpoch, h.coordinatorEpoch, h.startOffset]),
      [['out', 1, 4001, 9, 4, 7]],
    )
    const text = await cli('find-hanging', '--topic', 'out', '--partition', '1')
    assert.equal(text.code, 0, text.stderr)
    assert.match(text.stdout, /^TOPIC\s+PARTITION\s+PRODUCER ID/)
    assert.match(text.stderr, /tributary transactions abort --topic out --partition 1 --start-offset 7/)
    const recent = await cli('find-hanging', '--max-transaction-timeout', '120')
    assert.equal(recent.stdout, 'no hanging transactions\n')
    assert.equal((await cli('find-hanging', '--partition', '1')).code, 2)
  })
})

describe('hangingAmong (Kafka’s find-hanging rule)', () => {
  const open = (topic: string, partition: number, producerId: number): OpenTransaction => ({
    topic,
    partition,
    producer: { producerId, producerEpoch: 0, lastSequence: 0, lastTimestamp: 0, coordinatorEpoch: 0, currentTxnStartOffset: 5 },
  })
  const described = (id: string, partitions: Array<[string, number]>, error: 'TRANSACTIONAL_ID_NOT_FOUND' | null = null) => ({
    transactionalId: id,
    coordinator: 0,
    error,
    state: 'Ongoing',
    timeoutMs: 0,
    startTimeMs: 0,
    producerId: 1,
    producerEpoch: 0,
    partitions: partitions.map(([topic, partition]) => ({ topic, partition })),
  })

  it('hangs without a listed producer, with an unknown id, or outside the described partitions', () => {
    const candidates = [open('a', 0, 1), open('a', 1, 1), open('b', 0, 2), open('c', 0, 3)]
    const listings = [
      { transactionalId: 'one', producerId: 1, state: 'Ongoing', coordinator: 0 },
      { transactionalId: 'two', producerId: 2, state: 'Ongoing', coordinator: 0 },
    ]
    const result = hangingAmong(candidates, listings, [described('one', [['a', 0]]), described('two', [], 'TRANSACTIONAL_ID_NOT_FOUND')])
    assert.deepEqual(
      result.map((c) => `${c.topic}-${c.partition}:${c.producer.producerId}`),
      ['a-1:1', 'b-0:2', 'c-0:3'],
    )
  })
})
