// The README's snippets must work as written: extract them, point them at a broker, run them —
// the kafkajs one, and the worked queue of share-group workers.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { createTopics } from '../../src/client/admin.js'
import { alterGroupConfigs } from '../../src/client/admin-topics.js'
import { KafkaClient } from '../../src/client/client.js'
import { startBroker } from '../../src/index.js'
import { produceValues } from '../helpers/share-broker.js'

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

test('the README worked queue runs as written: three share-group workers take every job once and reject the poison one', async () => {
  const readme = await readFile(join(root, 'README.md'), 'utf8')
  const section = /## Queues: share groups\n([\s\S]*?)\n## /.exec(readme)?.[1]
  assert.ok(section, 'README has a queues section')
  const shell = /```sh\n([\s\S]*?)```/.exec(section)?.[1]
  const snippet = /```js\n([\s\S]*?)```/.exec(section)?.[1]
  assert.ok(shell && snippet, 'the section has its shell steps and its Node snippet')
  // The shell steps, done here through the same client the CLI uses.
  assert.match(shell, /tributary topic create jobs --partitions 1/)
  assert.match(shell, /tributary group alter-config workers --set share\.auto\.offset\.reset=earliest/)
  assert.match(shell, /seq 1 10 \| sed 's\/\^\/job-\/'; echo poison\) \| tributary produce jobs/)

  const broker = await startBroker({ port: 0 })
  const client = await KafkaClient.connect({ bootstrap: [broker.bootstrap], clientId: 'readme-queue' })
  const dir = await mkdtemp(join(root, 'dist', 'snippet-'))
  try {
    assert.deepEqual(
      (await createTopics(client, [{ name: 'jobs', numPartitions: 1, replicationFactor: 1 }])).map((r) => r.error),
      [null],
    )
    const altered = await alterGroupConfigs(client, 'workers', [{ name: 'share.auto.offset.reset', op: 'set', value: 'earliest' }])
    assert.equal(altered.error, null)
    await produceValues(client, 'jobs', [...Array.from({ length: 10 }, (_, i) => `job-${i + 1}`), 'poison'])
    const file = join(dir, 'queue.mjs')
    await writeFile(file, snippet.replaceAll('127.0.0.1:9092', broker.bootstrap))
    const { stdout } = await promisify(execFile)(process.execPath, [file], { cwd: root, timeout: 60_000 })
    assert.equal(stdout.trim(), '10 jobs handled, rejected: 1')
  } finally {
    await client.close()
    await rm(dir, { recursive: true, force: true })
    await broker.close()
  }
})
