// `tributary consume --isolation` as a subprocess against a real broker process, over a partition
// written by two transactional producers (the client's TransactionalProducer) whose transactions
// interleave: committed, aborted and committed again, one of them aborted while the other's is
// open around it. read_committed prints exactly the committed records, in offset order (the
// aborted ones dropped by the Fetch's aborted-transaction list, the markers never printed);
// read_uncommitted prints every record; --offset -N counts back from the last stable offset; perf
// consume counts the same way.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTopics } from '../../src/client/admin.js'
import { KafkaClient } from '../../src/client/client.js'
import { TransactionalProducer } from '../../src/client/transactional-producer.js'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { type CliRun, tributary } from '../helpers/cli.js'

const TOPIC = 'iso'

function show(r: CliRun): string {
  return `exit ${r.code ?? r.signal}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`
}

describe('tributary consume --isolation', () => {
  let broker: BrokerProcess
  let client: KafkaClient
  const producers: TransactionalProducer[] = []
  const consume = async (...args: string[]) => {
    const r = await tributary([
      'consume',
      TOPIC,
      '--exit-at-end',
      '-q',
      '--format',
      '%v\n',
      ...args,
      '--bootstrap-server',
      broker.bootstrap,
    ])
    assert.equal(r.code, 0, show(r))
    return r.stdout.split('\n').filter((l) => l !== '')
  }

  before(async () => {
    broker = await startBrokerProcess()
    client = await KafkaClient.connect({ bootstrap: [broker.bootstrap], clientId: 'it-consume-isolation' })
    await client.metadata([], { refresh: true })
    assert.deepEqual(
      (await createTopics(client, [{ name: TOPIC, numPartitions: 1, replicationFactor: 1 }])).map((c) => c.error),
      [null],
    )
    const open = async (id: string) => {
      const p = await TransactionalProducer.create(client, { transactionalId: id, lingerMs: 0 })
      await p.initTransactions()
      producers.push(p)
      return p
    }
    const a = await open('iso-a')
    const b = await open('iso-b')
    const write = async (p: TransactionalProducer, values: string[]) => {
      for (const v of values) await p.send(TOPIC, { key: null, value: Buffer.from(v), partition: 0 })
      await (await p.producer(TOPIC)).flush()
    }
    a.beginTransaction()
    await write(a, ['a1', 'a2'])
    await a.commitTransaction()
    // a's second transaction is aborted while b's is open around it.
    b.beginTransaction()
    await write(b, ['b1'])
    a.beginTransaction()
    await write(a, ['x1', 'x2'])
    await write(b, ['b2'])
    await a.abortTransaction()
    await write(b, ['b3'])
    await b.commitTransaction()
    a.beginTransaction()
    await write(a, ['a3'])
    await a.commitTransaction()
  })

  after(async () => {
    for (const p of producers) await p.close()
    await client?.close()
    await stopAndCheck(broker)
  })

  test('read_committed prints the committed records only, in offset order', async () => {
    assert.deepEqual(await consume('--from-beginning', '--isolation', 'read_committed'), ['a1', 'a2', 'b1', 'b2', 'b3', 'a3'])
  })

  test('read_uncommitted (the default) prints the aborted records too', async () => {
    const all = ['a1', 'a2', 'b1', 'x1', 'x2', 'b2', 'b3', 'a3']
    assert.deepEqual(await consume('--from-beginning'), all)
    assert.deepEqual(await consume('--from-beginning', '--isolation', 'read_uncommitted'), all)
  })

  test('--offset -N under read_committed counts back from the last stable offset', async () => {
    // The last two offsets are a3 and its COMMIT marker: from LSO - 2 on, a3 is the one record.
    assert.deepEqual(await consume('--offset', '-2', '--isolation', 'read_committed'), ['a3'])
  })

  test('perf consume --isolation read_committed counts the committed records only', async () => {
    const counted = async (isolation: string) => {
      const r = await tributary([
        'perf',
        'consume',
        '--topic',
        TOPIC,
        '--isolation',
        isolation,
        '--json',
        '--bootstrap-server',
        broker.bootstrap,
      ])
      assert.equal(r.code, 0, show(r))
      return JSON.parse(r.stdout) as { records: number; isolation: string }
    }
    assert.deepEqual(
      [await counted('read_committed'), await counted('read_uncommitted')].map((s) => [s.isolation, s.records]),
      [
        ['read_committed', 6],
        ['read_uncommitted', 8],
      ],
    )
  })

  test('a bad --isolation is a usage error', async () => {
    const r = await tributary(['consume', TOPIC, '--isolation', 'serializable', '--bootstrap-server', broker.bootstrap])
    assert.equal(r.code, 2, show(r))
  })
})
