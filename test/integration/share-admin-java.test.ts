// Share groups and group configs through the Java 4.4 Admin: the ShareAdmin program
// (test/interop/java) sets and describes GROUP configs, sets a new share group's offsets, lists
// and describes it, reads its offsets and lag, deletes its offsets and then the group. The offsets
// calls reach the share coordinator through the broker's ShareStatePersister. Missing java or mvn
// fails this test.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { javaCommand, runProcess, show } from '../helpers/run-process.js'
import { buildJavaPrograms, type JavaPrograms } from '../interop/txn-broker.js'

const HINT = 'this test needs Java 17+ and Maven'

describe('share groups admin: Java 4.4 Admin', () => {
  let broker: BrokerProcess | undefined
  let java: JavaPrograms | undefined
  // Built once, in a copy of its own (test/interop/txn-broker.ts): other files build
  // test/interop/java at the same time.
  const classpath = async () => (java ??= await buildJavaPrograms()).classpath

  before(async () => {
    broker = await startBrokerProcess({})
  })

  after(async () => {
    java?.remove()
    await stopAndCheck(broker)
  })

  test('group configs, alter/list/describe/delete share group offsets, delete the group', { timeout: 240_000 }, async () => {
    assert.ok(broker, 'broker not started')
    const r = await runProcess(
      javaCommand(),
      ['-cp', await classpath(), 'io.tributary.interop.ShareAdmin', broker.bootstrap, 'it-share-admin'],
      {
        timeoutMs: 120_000,
        installHint: HINT,
        env: { INTEROP_LOG_LEVEL: 'warn' },
      },
    )
    const context = () => `${show(r)}\nbroker stderr tail:\n${broker!.stderr().slice(-4000)}`
    assert.equal(r.code, 0, `ShareAdmin failed: ${context()}`)
    assert.ok(r.stdout.includes('SHARE-ADMIN OK'), `no OK line: ${context()}`)
    assert.ok(broker.alive(), 'broker died during the run')
  })
})
