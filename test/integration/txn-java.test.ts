// Transactions through the Java 4.4 client and Kafka Streams (test/interop/java), against a broker
// process (test/interop/txn-broker.ts; TXN_TEST_BROKER=kafka runs the same file against Apache
// Kafka, to check the test itself).
// - Transactions: commit and abort across two topics of three partitions (read_committed sees
//   exactly the committed records, read_uncommitted all of them), the last stable offset of an open
//   transaction, a zombie producer fenced by a second one with the same transactional.id (its late
//   records never visible), and consume-transform-produce with sendOffsetsToTransaction (an aborted
//   transaction's offsets are not committed; the committed ones are, with their output).
// - A Kafka Streams word count with processing.guarantee=exactly_once_v2, SIGKILLed in the middle of
//   its input and restarted on the same state directory: read_committed, each word's counts in the
//   output are exactly 1, 2, …, n — no increment lost, none applied twice — and n is the true count.
// Missing java or mvn fails the file; it never skips.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { javaCommand, runProcess, show } from '../helpers/run-process.js'
import { buildJavaPrograms, type JavaPrograms, javaEnv, LineProcess, startTxnBroker, type TxnBroker } from '../interop/txn-broker.js'

const RUN_TIMEOUT_MS = 3 * 60_000
/** Lines of the word count's input, written in two halves around the kill. */
const LINES = 3000
/** Milliseconds the application spends per line, so that the kill lands in the middle of its work. */
const DELAY_MS = 3

describe('Java 4.4 transactions and Kafka Streams exactly_once_v2', () => {
  let broker: TxnBroker
  let java: JavaPrograms | undefined
  let stateDir: string | undefined

  before(async () => {
    const [b, j] = await Promise.all([startTxnBroker(), buildJavaPrograms()])
    broker = b
    java = j
  })

  after(async () => {
    java?.remove()
    if (stateDir) rmSync(stateDir, { recursive: true, force: true })
    await broker?.stop()
  })

  const runJava = (mainClass: string, args: string[]) =>
    runProcess(javaCommand(), ['-cp', java!.classpath, `io.tributary.interop.${mainClass}`, ...args], {
      timeoutMs: RUN_TIMEOUT_MS,
      installHint: 'this test needs Java 17+ and Maven',
      env: javaEnv(),
    })

  test('commit/abort over 2 topics × 3 partitions, open transaction, zombie fenced, sendOffsetsToTransaction', {
    timeout: RUN_TIMEOUT_MS + 30_000,
  }, async () => {
    const r = await runJava('Transactions', [broker.bootstrap, 'txn-java'])
    const context = () => `${show(r)}\nbroker (${broker.kind}) log tail:\n${broker.logTail()}`
    assert.equal(r.code, 0, `Transactions failed: ${context()}`)
    const lines = r.stdout.split('\n')
    assert.ok(lines.includes('TXN OK'), context())
    for (const section of ['commit-abort', 'open-transaction', 'zombie', 'consume-transform-produce'])
      assert.ok(
        lines.some((l) => l.startsWith(`TXN ${section} `)),
        `section ${section} did not report: ${context()}`,
      )
    console.log(`txn-java (${broker.kind}): ${lines.filter((l) => l.startsWith('TXN ')).join(' | ')}`)
    assert.ok(broker.alive(), 'the broker died')
  })

  test(`Kafka Streams word count (exactly_once_v2) killed with SIGKILL mid-run and restarted: exact counts`, {
    timeout: RUN_TIMEOUT_MS + 60_000,
  }, async () => {
    stateDir = mkdtempSync(join(tmpdir(), 'tributary-wordcount-'))
    const [input, output, app] = ['wc-in', 'wc-out', 'wc-app']
    const produce = async (from: number, to: number) => {
      const r = await runJava('WordCount', ['produce', broker.bootstrap, input, output, String(from), String(to), '1'])
      assert.equal(r.code, 0, `producing lines ${from}..${to} failed: ${show(r)}`)
    }
    const start = () =>
      LineProcess.start(
        javaCommand(),
        [
          '-cp',
          java!.classpath,
          'io.tributary.interop.WordCount',
          'run',
          broker.bootstrap,
          app,
          input,
          output,
          stateDir!,
          String(DELAY_MS),
          '1',
        ],
        javaEnv(),
      )
    await produce(0, LINES / 2)
    const first = start()
    let second: LineProcess | undefined
    try {
      // Killed once it has processed a third of the input (and committed many times, every 100 ms).
      await first.waitLine((l) => /^PROCESSED (\d+)$/.test(l) && Number(l.split(' ')[1]) >= LINES / 3, 'a third processed', 120_000)
      await first.kill9()
      const processedBefore = Math.max(...first.lines.filter((l) => l.startsWith('PROCESSED ')).map((l) => Number(l.split(' ')[1])))
      await produce(LINES / 2, LINES)
      second = start()
      const v = await runJava('WordCount', ['verify', broker.bootstrap, output, String(LINES), '120000'])
      const context = () =>
        `${show(v)}\nfirst run:\n${first.context()}\nsecond run:\n${second!.context()}\nbroker (${broker.kind}) log tail:\n${broker.logTail()}`
      assert.equal(v.code, 0, `the output's counts are wrong: ${context()}`)
      const ok = v.stdout.split('\n').find((l) => l.startsWith('WORDCOUNT OK '))
      assert.ok(ok, context())
      const [words, records, abortedExtra] = ok.split(' ').slice(2).map(Number) as [number, number, number]
      assert.ok(second.alive(), `the restarted application stopped: ${context()}`)
      assert.ok(
        second.lines.some((l) => l === 'STATE RUNNING'),
        `the restarted application never reached RUNNING: ${context()}`,
      )
      // A clean stop of the second instance says how many lines it processed: beyond the rest of
      // the input, those the killed one had processed without committing (done again, counted once).
      second.endInput()
      const closed = await second.waitLine((l) => l.startsWith('WORDCOUNT closed after '), 'a clean close', 40_000)
      const processedAfter = Number(closed.split(' ')[3])
      console.log(
        `txn-java (${broker.kind}): word count killed after ${processedBefore}+ of ${LINES} lines, restarted: ` +
          `${processedAfter} lines processed after the restart (${processedBefore + processedAfter - LINES}+ processed again), ` +
          `${words} words, ${records} committed counts, ${abortedExtra} more only in read_uncommitted (aborted)`,
      )
    } finally {
      await first.kill9()
      if (second) {
        second.endInput()
        const stopped = await Promise.race([second.exited, new Promise((r) => setTimeout(() => r('timeout'), 40_000))])
        if (stopped === 'timeout') await second.kill9()
      }
    }
    assert.ok(broker.alive(), 'the broker died')
  })
})
