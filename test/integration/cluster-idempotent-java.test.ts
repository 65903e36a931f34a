// The Java 4.4 KafkaProducer (idempotent by default, acks=all) across leader kills, on three broker
// processes over etcd (test/helpers/cluster.ts) with replication factor 3 and min.insync.replicas=2.
// The program KillProducer (test/interop/java) writes distinct values to partition 0 while the
// partition leader is killed with kill -9 three times and restarted each time. A kill can cut off a
// batch the old leader wrote and a follower copied but whose answer never came: the producer sends
// it again, with the same producer id and sequence, to the new leader, which must answer with the
// offset it already holds instead of storing it a second time (src/storage/producer-state.ts).
// Afterwards, read from the brokers' files: every acknowledged value is stored exactly once, at its
// acknowledged offset, on every replica; no value is stored twice anywhere; the replicas are
// byte-identical up to the high watermark; and no send failed.
import assert from 'node:assert/strict'
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { createTopics } from '../../src/client/admin.js'
import { KafkaClient } from '../../src/client/client.js'
import {
  type Cluster,
  compareReplicas,
  type LogBatch,
  offsetConflicts,
  readPartitionLog,
  recordsOf,
  startCluster,
  waitFor,
} from '../helpers/cluster.js'
import { javaCommand, runOk } from '../helpers/run-process.js'

const WAIT_MS = 60_000
const KILLS = 3
const TOPIC = 'idem-java-kill'
/** An upper bound only: the test tells the program to stop once its kills are done. */
const MAX_RECORDS = 200_000

/** dist/test/integration/… → test/interop/java (the sources, not dist). */
const PROJECT_DIR = fileURLToPath(new URL('../../../test/interop/java/', import.meta.url))

const MAVEN = { timeoutMs: 5 * 60_000, installHint: 'this test needs Java 17+ and Maven' }

/**
 * Builds the Maven project in a copy of its own: java-client.test.ts builds test/interop/java/target
 * and may run at the same time; a jar rewritten under a running JVM breaks it.
 */
async function buildJava(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-java-kill-'))
  cpSync(join(PROJECT_DIR, 'pom.xml'), join(dir, 'pom.xml'))
  cpSync(join(PROJECT_DIR, 'src'), join(dir, 'src'), { recursive: true })
  await runOk('mvn', ['-q', '-B', '-o', '-Dstyle.color=never', '-f', join(dir, 'pom.xml'), 'package'], MAVEN).catch(() =>
    // Offline first (the dependencies are usually in ~/.m2 already); online when they are not.
    runOk('mvn', ['-q', '-B', '-Dstyle.color=never', '-f', join(dir, 'pom.xml'), 'package'], MAVEN),
  )
  return dir
}

interface Ack {
  value: string
  partition: number
  offset: number
}

/** The running KillProducer: its ACK lines as they come, and its exit. */
class JavaProducer {
  readonly acks: Ack[] = []
  readonly lines: string[] = []
  stderr = ''
  readonly exited: Promise<number | null>
  private partial = ''

  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding('utf8')
    child.stderr.setEncoding('utf8')
    child.stdout.on('data', (s: string) => {
      const parts = (this.partial + s).split('\n')
      this.partial = parts.pop()!
      for (const line of parts) {
        const m = /^ACK (\S+) (\d+) (\d+)$/.exec(line)
        if (m) this.acks.push({ value: m[1]!, partition: Number(m[2]), offset: Number(m[3]) })
        else this.lines.push(line)
      }
    })
    child.stderr.on('data', (s: string) => {
      this.stderr = (this.stderr + s).slice(-20_000)
    })
    this.exited = new Promise((resolve) => child.once('close', (code) => resolve(code)))
  }

  stop(): void {
    this.child.stdin.end('STOP\n')
  }

  kill(): void {
    this.child.kill('SIGKILL')
  }
}

describe('Java idempotent producer (acks=all): partition leader killed three times', () => {
  let c: Cluster
  let javaDir: string
  let producer: JavaProducer | undefined

  before(async () => {
    const [dir, cluster] = await Promise.all([buildJava(), startCluster({ brokers: 3, overrides: { 'replica.lag.time.max.ms': '10000' } })])
    javaDir = dir
    c = cluster
    const client = await KafkaClient.connect({ bootstrap: c.bootstrap().split(',') })
    try {
      await createTopics(client, [{ name: TOPIC, numPartitions: 1, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } }])
    } finally {
      await client.close()
    }
    await waitFor(async () => (await c.partitionState(TOPIC, 0)).leader > 0 || undefined, `${TOPIC} has a leader`, WAIT_MS)
  })

  after(async () => {
    producer?.kill()
    await c?.close()
    if (javaDir) rmSync(javaDir, { recursive: true, force: true })
  })

  const waitForFullIsr = () =>
    waitFor(async () => ((await c.partitionState(TOPIC, 0)).isr.length === 3 ? true : undefined), `${TOPIC}-0 ISR back to 3`, WAIT_MS)

  it('stores every acknowledged record exactly once, at its acknowledged offset, on every replica', async () => {
    const classpath = [join(javaDir, 'target', 'interop.jar'), join(javaDir, 'target', 'lib', '*')].join(delimiter)
    const p = new JavaProducer(
      spawn(javaCommand(), ['-cp', classpath, 'io.tributary.interop.KillProducer', c.bootstrap(), TOPIC, String(MAX_RECORDS)], {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...process.env, INTEROP_LOG_LEVEL: process.env.INTEROP_LOG_LEVEL ?? 'warn' },
      }),
    )
    producer = p
    const context = () => `producer output:\n${p.lines.slice(-40).join('\n')}\nproducer stderr:\n${p.stderr.slice(-6000)}`
    await waitFor(async () => (p.acks.length >= 500 ? true : undefined), 'first writes acknowledged', WAIT_MS)

    const failoverMs: number[] = []
    for (let k = 0; k < KILLS; k++) {
      const leader = await c.leaderOf(TOPIC, 0)
      const ackedBefore = p.acks.length
      const killedAt = performance.now()
      await c.kill9(leader)
      await waitFor(async () => (p.acks.length > ackedBefore + 50 ? true : undefined), 'writes acknowledged after the kill', WAIT_MS)
      failoverMs.push(Math.round(performance.now() - killedAt))
      await waitFor(
        async () => {
          const s = await c.partitionState(TOPIC, 0)
          return s.leader > 0 && s.leader !== leader ? true : undefined
        },
        'a new leader for partition 0',
        WAIT_MS,
      )
      await c.restart(leader)
      await waitForFullIsr()
    }
    p.stop()
    assert.equal(await p.exited, 0, `KillProducer failed: ${context()}`)
    const done = p.lines.find((l) => l.startsWith('DONE '))
    assert.ok(done, `no DONE line: ${context()}`)
    const [sent, acked, failed] = done.split(' ').slice(1).map(Number) as [number, number, number]
    console.log(
      `Java idempotent producer: ${sent} sent, ${acked} acknowledged, ${failed} failed, ${KILLS} leader kills; ` +
        `kill -9 to acknowledged writes again (ms): ${failoverMs.join(', ')}`,
    )
    assert.equal(p.acks.length, acked, 'ACK lines and the DONE count disagree')
    assert.equal(
      failed,
      0,
      `sends failed: ${p.lines
        .filter((l) => l.startsWith('FAIL '))
        .slice(0, 5)
        .join('\n')}`,
    )
    assert.equal(acked, sent, 'every record sent was acknowledged')

    await waitForFullIsr()
    await new Promise((r) => setTimeout(r, 2000))
    for (const id of c.liveIds()) await c.stop(id)

    const logs = new Map<number, LogBatch[]>()
    for (const id of c.ids()) logs.set(id, readPartitionLog(c.dataDir(id), TOPIC, 0))
    const ends = [...logs.values()].map((bs) => (bs.length === 0 ? 0 : bs[bs.length - 1]!.lastOffset + 1))
    const upTo = Math.min(...ends)
    assert.ok(upTo > Math.max(...p.acks.map((a) => a.offset)), `a replica ends (${upTo}) before the last acknowledged offset`)
    assert.equal(compareReplicas(logs, upTo), null, `replicas differ below ${upTo}: ${compareReplicas(logs, upTo)}`)
    assert.deepEqual(offsetConflicts(logs).slice(0, 5), [], 'an offset holds two different records')

    // Each value acknowledged once, each offset acknowledged once.
    assert.equal(new Set(p.acks.map((a) => a.value)).size, p.acks.length, 'a value acknowledged twice')
    assert.equal(new Set(p.acks.map((a) => a.offset)).size, p.acks.length, 'two acknowledgements name the same offset')
    let duplicates = 0
    for (const [id, batches] of logs) {
      const offsetsOf = new Map<string | null, number[]>()
      for (const r of recordsOf(batches)) {
        const at = offsetsOf.get(r.value)
        if (at) at.push(r.offset)
        else offsetsOf.set(r.value, [r.offset])
      }
      const twice = [...offsetsOf].filter(([, at]) => at.length > 1)
      duplicates += twice.length
      assert.deepEqual(twice.slice(0, 5), [], `broker ${id}: ${twice.length} values stored more than once (value, offsets)`)
      const wrong = p.acks.filter((a) => a.partition !== 0 || offsetsOf.get(a.value)?.[0] !== a.offset)
      assert.deepEqual(wrong.slice(0, 5), [], `broker ${id}: ${wrong.length} acknowledged records missing or at another offset`)
      assert.equal(offsetsOf.size, p.acks.length, `broker ${id}: values stored that were never acknowledged`)
    }
    console.log(`Java idempotent producer: ${acked} records on each of 3 replicas, ${duplicates} stored twice`)
  })
})
