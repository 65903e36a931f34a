// runProduce in process, against an in-process broker, for what a subprocess cannot show: the input
// is streamed — once produced, no chunk of the input is held any more (a long input must not stay
// in memory to the end) — and the records are stored.
import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { listOffsets, OffsetSpec } from '../../../src/client/admin.js'
import { KafkaClient } from '../../../src/client/client.js'
import type { ToolIo } from '../../../src/cli/common.js'
import { type ProduceCliOptions, runProduce } from '../../../src/cli/produce/run.js'
import { type RunningBroker, silentLogger, startBroker } from '../../../src/index.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

const CHUNKS = 300
const CHUNK_BYTES = 16 * 1024
const LINE_BYTES = 128 // 127 characters and a newline: 128 lines per chunk

describe('runProduce', () => {
  let broker: RunningBroker
  before(async () => {
    broker = await startBroker({ port: 0, logger: silentLogger, config: { 'num.partitions': 2 } })
  })
  after(async () => {
    await broker.close()
  })

  it('streams the input: every chunk can be collected once it has been produced', async () => {
    let collected = 0
    const registry = new FinalizationRegistry<number>(() => collected++)
    let next = 0
    const stdin = new Readable({
      objectMode: true, // chunks reach the command as they are, so each one can be followed
      read() {
        if (next === CHUNKS) {
          this.push(null)
          return
        }
        const chunk = Buffer.alloc(CHUNK_BYTES, 'x')
        for (let i = LINE_BYTES - 1; i < CHUNK_BYTES; i += LINE_BYTES) chunk[i] = 0x0a
        registry.register(chunk, next++)
        this.push(chunk)
      },
    })
    let stderr = ''
    const stoppers: Array<() => void> = []
    const io: ToolIo = {
      stdout: () => {},
      stderr: (t) => (stderr += t),
      isTty: false,
      onStop: (fn) => stoppers.push(fn),
      stdin,
    }
    const opts: ProduceCliOptions = {
      bootstrapServer: broker.bootstrap,
      clientId: 'produce-run-test',
      requestTimeoutMs: 30_000,
      delimiter: '\\n',
      header: [],
      acks: -1,
      compression: 'none',
      lingerMs: 5,
      batchSize: 16_384,
      deliveryTimeoutMs: 120_000,
      progress: false,
      json: false,
    }
    const state = { read: 0, acked: 0, failed: 0 }
    assert.equal(await runProduce('streamed', opts, io, state), 0, stderr)
    const lines = (CHUNKS * CHUNK_BYTES) / LINE_BYTES
    assert.deepEqual(state, { read: lines, acked: lines, failed: 0 })
    assert.match(stderr, new RegExp(`^produced ${lines} records`))

    // io (and whatever the command left registered on it) is still reachable here, as it is in
    // the process until exit; the chunks must not be. Finalizers run after a collection, in
    // later turns of the event loop: collect until all have run, or give up after a while.
    for (let i = 0; i < 100 && collected < CHUNKS; i++) {
      gc()
      await sleep(20)
    }
    assert.equal(collected, CHUNKS, `${CHUNKS - collected} of ${CHUNKS} input chunks are still held after the run`)
    assert.equal(stoppers.length, 1)

    const client = await KafkaClient.connect({ bootstrap: [broker.bootstrap] })
    try {
      const latest = await listOffsets(client, 'streamed', null, OffsetSpec.Latest)
      assert.equal(
        [...latest.values()].reduce((a, b) => a + b, 0),
        lines,
      )
    } finally {
      await client.close()
    }
  })
})
