// Start-up time of an in-memory test broker: `startBroker({ storage: 'memory', port: 0 })` until
// a client's ApiVersions request is answered, in one process — the first run (cold: code paths
// not yet compiled by V8, as in the first test of a file) and the median of the runs after it;
// close() is timed too. The target: under 50 ms.
//   node dist/bench/memory-startup.js [runs=20] [--json]
import { connect } from 'node:net'
import { encodeRequestHeader } from '../src/protocol/header.js'
import { Writer } from '../src/protocol/primitives/writer.js'

const args = process.argv.slice(2)
const json = args.includes('--json')
const runs = Math.max(2, Number(args.find((a) => !a.startsWith('--')) ?? 20))

function apiVersionsFrame(): Buffer {
  const w = new Writer()
  encodeRequestHeader(w, { apiKey: 18, apiVersion: 0, correlationId: 1, clientId: 'bench' }, false)
  const body = w.toBuffer()
  const size = Buffer.alloc(4)
  size.writeInt32BE(body.length)
  return Buffer.concat([size, body])
}

/** Resolves once a connection to port gets the whole ApiVersions answer. */
function firstAnswer(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1')
    let got = Buffer.alloc(0)
    s.once('error', reject)
    s.once('connect', () => s.write(apiVersionsFrame()))
    s.on('data', (chunk: Buffer) => {
      got = Buffer.concat([got, chunk])
      if (got.length >= 4 && got.length >= 4 + got.readInt32BE(0)) {
        s.destroy()
        resolve()
      }
    })
  })
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

const t0 = performance.now()
const { startBroker } = await import('../src/index.js')
const importMs = performance.now() - t0

const start: number[] = []
const close: number[] = []
for (let i = 0; i < runs; i++) {
  const t = performance.now()
  const broker = await startBroker({ storage: 'memory', port: 0 })
  await firstAnswer(broker.port)
  start.push(performance.now() - t)
  const c = performance.now()
  await broker.close()
  close.push(performance.now() - c)
}

const warm = start.slice(1)
const result = {
  runs,
  importMs: round(importMs),
  firstStartMs: round(start[0]!),
  medianStartMs: round(median(warm)),
  minStartMs: round(Math.min(...warm)),
  maxStartMs: round(Math.max(...warm)),
  medianCloseMs: round(median(close)),
  targetMs: 50,
}
if (json) console.log(JSON.stringify(result))
else {
  console.log(`import of the package:                              ${result.importMs} ms (once per process)`)
  console.log(`startBroker({ storage: 'memory' }) → first answer:   first run ${result.firstStartMs} ms`)
  console.log(
    `                                                     median ${result.medianStartMs} ms of the next ${warm.length} (min ${result.minStartMs}, max ${result.maxStartMs})`,
  )
  console.log(`close():                                            median ${result.medianCloseMs} ms`)
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10
}
