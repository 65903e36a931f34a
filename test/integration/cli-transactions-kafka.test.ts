// The client's transactions and `tributary transactions` against Apache Kafka 4.x itself (from its
// jars, test/helpers/apache-kafka.ts): the transactional producer speaks both transaction
// protocols as Kafka's broker expects them (v2, which Kafka finalizes, and v1 when pinned) —
// commit, abort, offsets in the transaction — a read_committed consume prints exactly the
// committed records, the admin commands list and describe Kafka's transactions, and an abort with
// --start-offset ends an open one there too, so the LSO moves.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTopics, listOffsets, OffsetSpec } from '../../src/client/admin.js'
import { fetchCommittedOffsets } from '../../src/client/admin-groups.js'
import { KafkaClient } from '../../src/client/client.js'
import { TransactionalProducer } from '../../src/client/transactional-producer.js'
import { type ApacheKafka, startApacheKafka } from '../helpers/apache-kafka.js'
import { type CliRun, tributary } from '../helpers/cli.js'

const TOPIC = 'txn-against-kafka'

function show(r: CliRun): string {
  return `exit ${r.code ?? r.signal}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`
}

describe('transactions against Apache Kafka', { timeout: 600_000 }, () => {
  let kafka: ApacheKafka
  let client: KafkaClient
  const cli = async (args: string[]) => tributary([...args, '--bootstrap-server', kafka.bootstrap])
  const committedValues = async (partition: number) => {
    const r = await cli([
      'consume',
      TOPIC,
      '--partition',
      String(partition),
      '--from-beginning',
      '--exit-at-end',
      '-q',
      '--isolation',
      'read_committed',
    ])
    assert.equal(r.code, 0, show(r))
    return r.stdout.split('\n').filter((l) => l !== '')
  }

  before(async () => {
    kafka = await startApacheKafka()
    client = await KafkaClient.connect({ bootstrap: [kafka.bootstrap], clientId: 'it-txn-kafka' })
    await client.metadata([], { refresh: true })
    assert.deepEqual(
      (await createTopics(client, [{ name: TOPIC, numPartitions: 3, replicationFactor: 1 }])).map((c) => c.error),
      [null],
    )
  })

  after(async () => {
    await client?.close()
    await kafka?.stop()
  })

  for (const [partition, version] of [
    [0, 2],
    [1, 1],
  ] as const) {
    test(`transaction protocol v${version}: commit, abort, commit with offsets; read_committed sees the committed records`, async () => {
      const id = `kafka-v${version}`
      const txn = await TransactionalProducer.create(client, { transactionalId: id, lingerMs: 0, transactionVersion: version })
      try {
        await txn.initTransactions()
        assert.equal(txn.transactionVersion, version)
        const write = async (values: string[]) => {
          for (const v of values) await txn.send(TOPIC, { key: null, value: Buffer.from(v), partition })
        }
        txn.beginTransaction()
        await write(['c1', 'c2'])
        await txn.commitTransaction()
        txn.beginTransaction()
        await write(['x1'])
        await (await txn.producer(TOPIC)).flush()
        await txn.abortTransaction()
        txn.beginTransaction()
        await write(['c3'])
        await txn.sendOffsetsToTransaction([{ topic: TOPIC, partition: 2, offset: 17 }], `group-${id}`)
        await txn.commitTransaction()
        assert.equal(txn.committed, 2)
      } finally {
        await txn.close()
      }
      assert.deepEqual(await committedValues(partition), ['c1', 'c2', 'c3'])
      const offsets = await fetchCommittedOffsets(client, `group-${id}`)
      assert.deepEqual(
        offsets.map((o) => [o.topic, o.partition, o.offset]),
        [[TOPIC, 2, 17]],
      )
      const d = await cli(['transactions', 'describe', id, '--json'])
      assert.equal(d.code, 0, show(d))
      assert.equal(JSON.parse(d.stdout).state, 'CompleteCommit')
    })
  }

  test('list, describe and abort --start-offset an open transaction on Kafka', async () => {
    const open = await TransactionalProducer.create(client, { transactionalId: 'kafka-open', lingerMs: 0, transactionTimeoutMs: 600_000 })
    try {
      await open.initTransactions()
      open.beginTransaction()
      await open.send(TOPIC, { key: null, value: Buffer.from('open'), partition: 2 })
      await (await open.producer(TOPIC)).flush()

      const list = await cli(['transactions', 'list', '--state', 'Ongoing', '--json'])
      assert.equal(list.code, 0, show(list))
      assert.deepEqual(
        JSON.parse(list.stdout).transactions.map((t: { transactionalId: string }) => t.transactionalId),
        ['kafka-open'],
      )
      const d = JSON.parse((await cli(['transactions', 'describe', 'kafka-open', '--json'])).stdout)
      assert.deepEqual([d.state, d.partitions], ['Ongoing', [{ topic: TOPIC, partition: 2 }]])
      assert.equal((await listOffsets(client, TOPIC, [2], OffsetSpec.Latest, true)).get(2), 0)

      const abort = await cli(['transactions', 'abort', '--topic', TOPIC, '--partition', '2', '--start-offset', '0'])
      assert.equal(abort.code, 0, show(abort))
      assert.equal((await listOffsets(client, TOPIC, [2], OffsetSpec.Latest, true)).get(2), 2, 'past the record and the marker')
      assert.deepEqual(await committedValues(2), [])
    } finally {
      await open.abortTransaction().catch(() => {})
      await open.close()
    }
  })
})
