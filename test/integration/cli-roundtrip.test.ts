// A round trip: a 100,000-line file through `tributary produce`, then
// `tributary consume --exit-at-end`, gives back the same lines, byte for byte — UTF-8, tabs, empty
// lines and bytes that are not UTF-8 at all included. One partition: the output equals the file.
// Three partitions: the same lines, each partition's in order.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { tributaryOk } from '../helpers/cli.js'
import { kcatConsumeAll } from '../helpers/clients.js'

const COUNT = 100_000

/** Line i: ASCII, UTF-8, a tab, an empty line now and then, and raw non-UTF-8 bytes. */
function line(i: number): Buffer {
  switch (i % 7) {
    case 0:
      return Buffer.from(`record ${i}`)
    case 1:
      return Buffer.from(`ünïcødé ${i} 🚀`)
    case 2:
      return Buffer.from(`tab\t${i}\tseparated`)
    case 3:
      return i % 2 === 0 ? Buffer.alloc(0) : Buffer.from(`${i}`)
    case 4:
      return Buffer.concat([Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0x00]), Buffer.from(String(i))])
    case 5:
      return Buffer.from(`${'x'.repeat(i % 300)}${i}`)
    default:
      return Buffer.from(`{"n":${i},"s":"\\u00e9"}`)
  }
}

const NL = Buffer.from('\n')

describe('produce a 100,000-line file, consume it back', { timeout: 300_000 }, () => {
  let broker: BrokerProcess
  let dir: string
  let file: string
  let lines: Buffer[]
  let env: Record<string, string>

  before(async () => {
    broker = await startBrokerProcess()
    env = { TRIBUTARY_BOOTSTRAP: broker.bootstrap }
    dir = mkdtempSync(join(tmpdir(), 'tributary-roundtrip-'))
    file = join(dir, 'lines.txt')
    lines = Array.from({ length: COUNT }, (_, i) => line(i))
    writeFileSync(file, Buffer.concat(lines.flatMap((l) => [l, NL])))
  })

  after(async () => {
    await stopAndCheck(broker)
    rmSync(dir, { recursive: true, force: true })
  })

  test('one partition: the output is the file', async () => {
    await tributaryOk(['topic', 'create', 'roundtrip-1', '--partitions', '1'], { env })
    const produced = JSON.parse((await tributaryOk(['produce', 'roundtrip-1', '--file', file, '--json'], { env })).stdout)
    assert.equal(produced.records, COUNT)
    assert.equal(produced.failed, 0)
    const out = await tributaryOk(['consume', 'roundtrip-1', '--from-beginning', '--exit-at-end'], { env })
    assert.ok(out.stdoutBytes.equals(Buffer.concat(lines.flatMap((l) => [l, NL]))), 'consume printed the file byte for byte')
    assert.match(out.stderr, new RegExp(`Processed ${COUNT} messages`))
  })

  test('three partitions: the same lines, from stdin', async () => {
    await tributaryOk(['topic', 'create', 'roundtrip-3', '--partitions', '3'], { env })
    const input = Buffer.concat(lines.flatMap((l) => [l, NL]))
    await tributaryOk(['produce', 'roundtrip-3'], { env, input })
    const out = await tributaryOk(['consume', 'roundtrip-3', '--from-beginning', '--exit-at-end', '--format', '%p %o %v\\n'], { env })
    // Split on newline only: no line contains one.
    const printed = out.stdoutBytes.subarray(0, -1).toString('latin1').split('\n')
    assert.equal(printed.length, COUNT)
    const values: string[] = []
    const lastOffset = new Map<string, number>()
    for (const p of printed) {
      const [partition, offset] = p.split(' ', 2) as [string, string]
      const prev = lastOffset.get(partition) ?? -1
      assert.ok(Number(offset) > prev, `partition ${partition} in offset order`)
      lastOffset.set(partition, Number(offset))
      values.push(p.slice(partition.length + offset.length + 2))
    }
    assert.equal(lastOffset.size, 3, 'records spread over the three partitions')
    assert.deepEqual(values.sort(), lines.map((l) => l.toString('latin1')).sort())
  })

  test('every codec: produce --compression, then consume and kcat read the same lines', async () => {
    const some = lines.slice(0, 5000).filter((l) => !l.includes(0xff)) // kcat's output is text
    const input = Buffer.concat(some.flatMap((l) => [l, NL]))
    for (const codec of ['gzip', 'snappy', 'lz4', 'zstd']) {
      const topic = `roundtrip-${codec}`
      await tributaryOk(['topic', 'create', topic, '--partitions', '1'], { env })
      await tributaryOk(['produce', topic, '--compression', codec, '--batch-size', '65536'], { env, input })
      const out = await tributaryOk(['consume', topic, '--from-beginning', '--exit-at-end'], { env })
      assert.ok(out.stdoutBytes.equals(input), `${codec}: tributary consume printed the input`)
      const viaKcat = await kcatConsumeAll(broker.bootstrap, topic)
      assert.deepEqual(
        viaKcat.map((r) => r.value),
        some.map((l) => l.toString('utf8')),
        `${codec}: kcat reads the same values`,
      )
    }
  })
})
