// `tributary transactions` and `tributary perf produce --transactional-id`, run as subprocesses
// against a real broker process. A transaction left open by a producer (the client's
// TransactionalProducer, with a long transaction timeout) is listed and described; it pins the
// partition's last stable offset, so a read_committed consume sees nothing, not even the plain
// records written after it; find-hanging does not report it (its coordinator accounts for it);
// `transactions abort --start-offset` writes the ABORT marker: the LSO moves to the end, and a
// read_committed consume then prints the records after the transaction and none of it. A perf run
// in transactions commits several of them, all read back read_committed. And a really hanging
// transaction — its coordinator's state lost (the broker killed and its `__transaction_state`
// directories removed before the restart) while the partition still holds it open — is what
// find-hanging reports, and aborting it as find-hanging says lets read_committed go on.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTopics } from '../../src/client/admin.js'
import { listOffsets, OffsetSpec } from '../../src/client/admin.js'
import { KafkaClient } from '../../src/client/client.js'
import { Producer } from '../../src/client/producer.js'
import { TransactionalProducer } from '../../src/client/transactional-producer.js'
import { readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { type BrokerProcess, makeTempDir, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { type CliRun, tributary } from '../helpers/cli.js'

const TOPIC = 'txn-open'

function show(r: CliRun): string {
  return `exit ${r.code ?? r.signal}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`
}

describe('tributary transactions', () => {
  let broker: BrokerProcess
  let client: KafkaClient
  let txn: TransactionalProducer
  const cli = (args: string[]) => tributary([...args, '--bootstrap-server', broker.bootstrap])
  const consumed = async (isolation: string, topic = TOPIC) => {
    const r = await cli(['consume', topic, '--from-beginning', '--exit-at-end', '--isolation', isolation, '--format', '%o:%v\n', '-q'])
    assert.equal(r.code, 0, show(r))
    return r.stdout.split('\n').filter((l) => l !== '')
  }

  before(async () => {
    broker = await startBrokerProcess()
    client = await KafkaClient.connect({ bootstrap: [broker.bootstrap], clientId: 'it-cli-transactions' })
    await client.metadata([], { refresh: true })
    const created = await createTopics(client, [{ name: TOPIC, numPartitions: 1, replicationFactor: 1 }])
    assert.deepEqual(
      created.map((c) => c.error),
      [null],
    )
    // An open transaction: three records, never committed (the coordinator would abort it only after ten minutes).
    txn = await TransactionalProducer.create(client, { transactionalId: 'it-open', transactionTimeoutMs: 600_000, lingerMs: 0 })
    await txn.initTransactions()
    txn.beginTransaction()
    for (const v of ['t1', 't2', 't3']) await txn.send(TOPIC, { key: null, value: Buffer.from(v), partition: 0 })
    await (await txn.producer(TOPIC)).flush()
    // Two plain records after it, at offsets 3 and 4.
    const plain = await Producer.create(client, { topic: TOPIC, lingerMs: 0 })
    for (const v of ['p1', 'p2']) plain.send({ key: null, value: Buffer.from(v), partition: 0 })
    await plain.flush()
    plain.close()
  })

  after(async () => {
    await txn?.abortTransaction().catch(() => {})
    await txn?.close()
    await client?.close()
    await stopAndCheck(broker)
  })

  test('list and describe show the running transaction', async () => {
    const list = await cli(['transactions', 'list', '--json'])
    assert.equal(list.code, 0, show(list))
    const listed = JSON.parse(list.stdout).transactions as Array<{ transactionalId: string; producerId: number; state: string }>
    assert.deepEqual(
      listed.filter((t) => t.transactionalId === 'it-open').map((t) => [t.producerId, t.state]),
      [[txn.producerId, 'Ongoing']],
    )
    const ongoing = await cli(['transactions', 'list', '--state', 'Ongoing'])
    assert.equal(ongoing.code, 0, show(ongoing))
    assert.match(ongoing.stdout, /^it-open\s+0\s+\d+\s+Ongoing$/m)
    const none = await cli(['transactions', 'list', '--state', 'PrepareCommit', '--json'])
    assert.deepEqual(JSON.parse(none.stdout).transactions, [])

    const d = await cli(['transactions', 'describe', 'it-open', '--json'])
    assert.equal(d.code, 0, show(d))
    const desc = JSON.parse(d.stdout)
    assert.deepEqual(
      [desc.state, desc.producerId, desc.producerEpoch, desc.timeoutMs, desc.partitions],
      ['Ongoing', txn.producerId, txn.producerEpoch, 600_000, [{ topic: TOPIC, partition: 0 }]],
    )
    assert.ok(desc.startTimeMs > 0 && desc.durationMs >= 0, d.stdout)
    const missing = await cli(['transactions', 'describe', 'no-such-id'])
    assert.equal(missing.code, 1, show(missing))
    assert.match(missing.stderr, /not known to its coordinator/)
  })

  test('the open transaction pins the LSO; abort --start-offset moves it and read_committed sees the records after it', async () => {
    assert.deepEqual(await consumed('read_uncommitted'), ['0:t1', '1:t2', '2:t3', '3:p1', '4:p2'])
    assert.deepEqual(await consumed('read_committed'), [], 'nothing is stable past the open transaction')
    assert.equal((await listOffsets(client, TOPIC, [0], OffsetSpec.Latest, true)).get(0), 0)

    const producers = await cli(['producers', 'describe', TOPIC, '--json'])
    const open = JSON.parse(producers.stdout).partitions[0].producers.find((p: { producerId: number }) => p.producerId === txn.producerId)
    assert.equal(open?.currentTxnStartOffset, 0, producers.stdout)

    const hanging = await cli(['transactions', 'find-hanging', '--topic', TOPIC, '--max-transaction-timeout', '0', '--json'])
    assert.equal(hanging.code, 0, show(hanging))
    assert.deepEqual(JSON.parse(hanging.stdout).hanging, [], 'the coordinator still accounts for it')

    const wrong = await cli(['transactions', 'abort', '--topic', TOPIC, '--partition', '0', '--start-offset', '1'])
    assert.equal(wrong.code, 1, show(wrong))
    assert.match(wrong.stderr, /no open transaction starts at offset 1/)

    const abort = await cli(['transactions', 'abort', '--topic', TOPIC, '--partition', '0', '--start-offset', '0'])
    assert.equal(abort.code, 0, show(abort))
    assert.match(abort.stdout, new RegExp(`Aborted the transaction of producer ${txn.producerId} \\(epoch ${txn.producerEpoch}`))

    assert.equal((await listOffsets(client, TOPIC, [0], OffsetSpec.Latest, true)).get(0), 6, 'the LSO is the end: 5 records and the marker')
    assert.deepEqual(await consumed('read_committed'), ['3:p1', '4:p2'])
    assert.deepEqual(await consumed('read_uncommitted'), ['0:t1', '1:t2', '2:t3', '3:p1', '4:p2'], 'markers are not printed')
  })

  test('perf produce --transactional-id commits a transaction every --transaction-duration-ms', async () => {
    const r = await cli([
      'perf',
      'produce',
      '--topic',
      'txn-perf',
      '--partitions',
      '2',
      '--num-records',
      '20000',
      '--record-size',
      '50',
      '--throughput',
      '10000',
      '--transactional-id',
      'it-perf',
      '--transaction-duration-ms',
      '300',
      '--json',
    ])
    assert.equal(r.code, 0, show(r))
    const summary = JSON.parse(r.stdout)
    assert.equal(summary.records, 20_000)
    assert.equal(summary.transactionalId, 'it-perf')
    assert.equal(summary.transactionVersion, 2)
    assert.ok(summary.transactions >= 3, `about 2 s at 300 ms per transaction, got ${summary.transactions}`)
    assert.equal((await consumed('read_committed', 'txn-perf')).length, 20_000)

    const d = await cli(['transactions', 'describe', 'it-perf', '--json'])
    assert.equal(d.code, 0, show(d))
    assert.equal(JSON.parse(d.stdout).state, 'CompleteCommit')

    const text = await cli(['perf', 'produce', '--topic', 'txn-perf', '--num-records', '100', '--transactional-id', 'it-perf'])
    assert.equal(text.code, 0, show(text))
    assert.match(text.stdout, /^1 transactions committed \(transaction protocol v2\)$/m)
  })
})

describe('tributary transactions find-hanging and abort of a hanging transaction', () => {
  const dir = makeTempDir()
  let broker: BrokerProcess
  const cli = (args: string[]) => tributary([...args, '--bootstrap-server', broker.bootstrap])

  before(async () => {
    broker = await startBrokerProcess({ dataDir: dir.path })
    const client = await KafkaClient.connect({ bootstrap: [broker.bootstrap], clientId: 'it-hanging' })
    try {
      await client.metadata([], { refresh: true })
      assert.deepEqual(
        (await createTopics(client, [{ name: 'hang', numPartitions: 1, replicationFactor: 1 }])).map((c) => c.error),
        [null],
      )
      const txn = await TransactionalProducer.create(client, { transactionalId: 'it-hang', transactionTimeoutMs: 600_000, lingerMs: 0 })
      await txn.initTransactions()
      txn.beginTransaction()
      await txn.send('hang', { key: null, value: Buffer.from('lost'), partition: 0 })
      await (await txn.producer('hang')).flush()
      await txn.close()
    } finally {
      await client.close()
    }
    // The coordinator's memory of the transaction goes; the partition's log keeps it open.
    await broker.kill9()
    for (const d of readdirSync(dir.path))
      if (d.startsWith('__transaction_state-')) rmSync(join(dir.path, d), { recursive: true, force: true })
    broker = await startBrokerProcess({ dataDir: dir.path })
  })

  after(async () => {
    await stopAndCheck(broker)
    dir.remove()
  })

  test('find-hanging reports it; aborting it as told lets read_committed consumers go on', async () => {
    const list = await cli(['transactions', 'list', '--json'])
    assert.deepEqual(JSON.parse(list.stdout).transactions, [], 'no coordinator knows it')
    const found = await cli(['transactions', 'find-hanging', '--max-transaction-timeout', '0', '--json'])
    assert.equal(found.code, 0, show(found))
    const hanging = JSON.parse(found.stdout).hanging
    assert.deepEqual(
      hanging.map((h: { topic: string; partition: number; startOffset: number }) => [h.topic, h.partition, h.startOffset]),
      [['hang', 0, 0]],
    )
    const text = await cli(['transactions', 'find-hanging', '--max-transaction-timeout', '0'])
    const hint = /tributary (transactions abort .*)$/m.exec(text.stderr)
    assert.ok(hint, show(text))
    assert.equal(hint[1], 'transactions abort --topic hang --partition 0 --start-offset 0')

    const plain = await tributary(['produce', 'hang', '--partition', '0', '--bootstrap-server', broker.bootstrap], { input: 'after\n' })
    assert.equal(plain.code, 0, show(plain))
    const before = await cli(['consume', 'hang', '--from-beginning', '--exit-at-end', '-q', '--isolation', 'read_committed'])
    assert.equal(before.stdout, '', 'the hanging transaction pins the LSO')

    const abort = await cli(hint[1]!.split(' '))
    assert.equal(abort.code, 0, show(abort))
    const after = await cli(['transactions', 'find-hanging', '--max-transaction-timeout', '0', '--json'])
    assert.deepEqual(JSON.parse(after.stdout).hanging, [])
    const consumed = await tributary([
      'consume',
      'hang',
      '--from-beginning',
      '--exit-at-end',
      '-q',
      '--isolation',
      'read_committed',
      '--format',
      '%o:%v\n',
      '--bootstrap-server',
      broker.bootstrap,
    ])
    assert.equal(consumed.code, 0, show(consumed))
    assert.deepEqual(
      consumed.stdout.split('\n').filter((l) => l !== ''),
      ['1:after'],
    )
  })
})
