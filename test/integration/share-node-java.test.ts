// Tributary's Node share consumer and Apache Kafka's Java KafkaShareConsumer (4.4, the ShareMember
// program of test/interop/java) in one share group (KIP-932), on a broker with share groups:
// Tributary by default, Apache Kafka 4.x with SHARE_TEST_BROKER=kafka (test/helpers/share-broker.ts).
// Records the Node consumer released are delivered to the Java member with delivery count 2, the
// ones it accepted never are; new records then go to the Java member once; `tributary group
// describe` shows the Java member. Missing java or mvn fails this test.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTopics } from '../../src/client/admin.js'
import { KafkaClient } from '../../src/client/client.js'
import { ShareConsumer, type ShareRecord } from '../../src/client/share-consumer.js'
import { tributary } from '../helpers/cli.js'
import { javaCommand } from '../helpers/run-process.js'
import { produceValues, setGroupConfigs, type ShareBroker, startShareBroker } from '../helpers/share-broker.js'
import { buildJavaPrograms, type JavaPrograms, javaEnv, LineProcess } from '../interop/txn-broker.js'

const TOPIC = 'mixed'
const GROUP = 'mixed-g'

describe(`share group of Node and Java consumers (${process.env.SHARE_TEST_BROKER === 'kafka' ? 'Apache Kafka' : 'Tributary'})`, {
  timeout: 600_000,
}, () => {
  let broker: ShareBroker
  let admin: KafkaClient
  let java: JavaPrograms
  let member: LineProcess | undefined

  before(async () => {
    java = await buildJavaPrograms()
    broker = await startShareBroker()
    admin = await KafkaClient.connect({ bootstrap: [broker.bootstrap], clientId: 'it-share-java' })
    const created = await createTopics(admin, [{ name: TOPIC, numPartitions: 1, replicationFactor: 1 }])
    assert.deepEqual(
      created.map((c) => c.error),
      [null],
    )
    await setGroupConfigs(admin, GROUP, { 'share.auto.offset.reset': 'earliest' })
  })

  after(async () => {
    await member?.kill9()
    await admin?.close()
    await broker?.stop()
    java?.remove()
  })

  test('released by Node, delivered again to Java; accepted by Node, never again', async () => {
    const values = Array.from({ length: 10 }, (_, i) => `m${i}`)
    await produceValues(admin, TOPIC, values)
    const node = new ShareConsumer({ bootstrap: [broker.bootstrap], groupId: GROUP, clientId: 'node-share' })
    await node.subscribe([TOPIC])
    const got: ShareRecord[] = []
    const end = performance.now() + 60_000
    while (got.length < values.length) {
      assert.ok(performance.now() < end, `the Node consumer got only ${got.length} records`)
      const batch = await node.poll()
      for (const r of batch) node.acknowledge(r, r.offset < 5 ? 'release' : 'accept')
      got.push(...batch)
    }
    assert.deepEqual(
      got.map((r) => r.value?.toString()),
      values,
    )
    assert.deepEqual(
      (await node.commit()).map((r) => r.error),
      [null],
    )
    await node.close()

    member = LineProcess.start(
      javaCommand(),
      ['-cp', java.classpath, 'io.tributary.interop.ShareMember', broker.bootstrap, GROUP, TOPIC],
      javaEnv(),
    )
    await member.waitLine((l) => l === 'READY', 'READY', 60_000)
    const recs = () => member!.lines.filter((l) => l.startsWith('REC '))
    await member.waitLine((l) => l.startsWith('REC 4 '), 'offset 4 at the Java member', 60_000)
    assert.deepEqual(recs(), ['REC 0 2 m0', 'REC 1 2 m1', 'REC 2 2 m2', 'REC 3 2 m3', 'REC 4 2 m4'])

    await produceValues(admin, TOPIC, ['n10', 'n11'])
    await member.waitLine((l) => l.startsWith('REC 11 '), 'offset 11 at the Java member', 60_000)
    assert.deepEqual(recs().slice(5), ['REC 10 1 n10', 'REC 11 1 n11'])

    const d = JSON.parse((await tributary(['group', 'describe', GROUP, '--json', '--bootstrap-server', broker.bootstrap])).stdout)
    assert.equal(d.groupType, 'share')
    assert.deepEqual(
      d.members.map((m: Record<string, unknown>) => [m.clientId, m.assignment]),
      [['java-share-member', [{ topic: TOPIC, partitions: [0] }]]],
    )
    member.send('stop')
    await member.waitLine((l) => l === 'CLOSED', 'CLOSED', 60_000)
    assert.ok(!member.lines.some((l) => l.startsWith('MEMBER-ERROR')), member.context())
  })
})
