// The README's kafkajs snippet must work as written: extract it, point it at a broker, run it.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { startBroker } from '../../src/index.js'

const root = fileURLToPath(new URL('../../../', import.meta.url))

test('the README kafkajs snippet runs against a broker', async () => {
  const readme = await readFile(join(root, 'README.md'), 'utf8')
  const snippet = /## Use it from kafkajs\s+```js\n([\s\S]*?)```/.exec(readme)?.[1]
  assert.ok(snippet, 'README has a kafkajs snippet')
  assert.match(snippet, /127\.0\.0\.1:9092/)

  const broker = await startBroker({ port: 0 })
  const dir = await mkdtemp(join(root, 'dist', 'snippet-'))
  try {
    const file = join(dir, 'snippet.mjs')
    // Only the address changes: the test broker listens on a free port.
    await writeFile(file, snippet.replaceAll('127.0.0.1:9092', broker.bootstrap))
    const { stdout } = await promisify(execFile)(process.execPath, [file], {
      cwd: root,
      env: { ...process.env, KAFKAJS_NO_PARTITIONER_WARNING: '1' },
      timeout: 30_000,
    })
    // The one record landed in one of the three partitions.
    const highs = [...stdout.matchAll(/high: '(\d+)'/g)].map((m) => Number(m[1]))
    assert.equal(highs.length, 3, stdout)
    assert.equal(
      highs.reduce((a, b) => a + b, 0),
      1,
      stdout,
    )
  } finally {
    await rm(dir, { recursive: true, force: true })
    await broker.close()
  }
})
