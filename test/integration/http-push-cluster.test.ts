// Push delivery over HTTP in a cluster of 3 `tributary start` processes (test/helpers/cluster.ts):
// a topic whose 3 partitions are led by the 3 brokers is followed through broker 1's SSE route (its
// Fetches go to each leader), the stream is dropped half way and resumed through broker 3's route
// with the cursor — cursors name offsets, not brokers — and a WebSocket on broker 2 publishes to
// every partition, each answered with the leader's offset. Records produced by kafkajs.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Kafka, logLevel } from 'kafkajs'
import WebSocket from 'ws'
import { type Cluster, startCluster, waitFor } from '../helpers/cluster.js'

const TOPIC = 'spread'

interface Pushed {
  cursor: string
  partition: number
  offset: number
  value: string
}

/** Reads an SSE stream until `markers` events with value END; returns the other record events. */
async function follow(url: string, markers: number, stopAfter = Number.POSITIVE_INFINITY): Promise<Pushed[]> {
  const abort = new AbortController()
  const res = await fetch(url, { headers: { accept: 'text/event-stream' }, signal: abort.signal })
  assert.equal(res.status, 200)
  const out: Pushed[] = []
  let text = ''
  let ends = 0
  const decoder = new TextDecoder()
  for await (const chunk of res.body!) {
    text += decoder.decode(chunk, { stream: true })
    const blocks = text.split('\n\n')
    text = blocks.pop()!
    for (const b of blocks) {
      const m = /^id: (.+)\ndata: (.+)$/.exec(b)
      if (!m) continue
      const r = JSON.parse(m[2]!) as Pushed
      if (r.value === 'END') ends++
      else out.push({ ...r, cursor: m[1]! })
    }
    if (ends >= markers || out.length >= stopAfter) break
  }
  abort.abort()
  return out.slice(0, stopAfter)
}

describe('HTTP push in a cluster of 3', () => {
  let cluster: Cluster
  let kafka: Kafka

  before(async () => {
    cluster = await startCluster({ brokers: 3 })
    kafka = new Kafka({ brokers: cluster.bootstrap().split(','), logLevel: logLevel.NOTHING })
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({
      topics: [{ topic: TOPIC, replicaAssignment: [0, 1, 2].map((p) => ({ partition: p, replicas: [p + 1] })) }],
    })
    await admin.disconnect()
    await waitFor(async () => (await cluster.partitionState(TOPIC, 2)).leader === 3, 'the leaders', 60_000)
  })

  after(async () => {
    await cluster?.close()
  })

  it('follows partitions led by every broker, resumes through another broker, and publishes to every leader', async () => {
    const producer = kafka.producer()
    await producer.connect()
    const values = Array.from({ length: 3_000 }, (_, i) => `c-${i}`)
    for (let i = 0; i < values.length; i += 500)
      await producer.send({ topic: TOPIC, acks: -1, messages: values.slice(i, i + 500).map((value, j) => ({ key: `k${i + j}`, value })) })
    const first = await follow(`${cluster.broker(1).http}/topics/${TOPIC}/events?from=earliest`, 3, 1_500)
    for (let p = 0; p < 3; p++) await producer.send({ topic: TOPIC, acks: -1, messages: [{ value: 'END', partition: p }] })
    await producer.disconnect()
    const rest = await follow(`${cluster.broker(3).http}/topics/${TOPIC}/events?cursor=${first.at(-1)!.cursor}`, 3)
    const all = [...first, ...rest]
    assert.equal(all.length, 3_000)
    assert.deepEqual(all.map((r) => r.value).sort(), [...values].sort())
    assert.equal(new Set(all.map((r) => `${r.partition}:${r.offset}`)).size, 3_000)
    assert.deepEqual([...new Set(all.map((r) => r.partition))].sort(), [0, 1, 2])

    const ws = new WebSocket(`${cluster.broker(2).http!.replace('http', 'ws')}/topics/${TOPIC}/ws`)
    const answers: Array<Record<string, any>> = []
    ws.on('message', (d) => {
      const m = JSON.parse(d.toString())
      if (m.type !== 'record') answers.push(m)
    })
    await new Promise((r) => ws.once('open', r))
    for (let p = 0; p < 3; p++) ws.send(JSON.stringify({ type: 'publish', value: `ws-${p}`, partition: p, id: p }))
    await waitFor(() => answers.length >= 3, 'the answers', 30_000)
    ws.close()
    assert.deepEqual(
      answers.sort((a, b) => a.id - b.id).map((m) => [m.type, m.partition]),
      [0, 1, 2].map((p) => ['published', p]),
    )
    // Each partition had its records and its marker before: the new record is at offset count + 1.
    const counts = [0, 1, 2].map((p) => all.filter((r) => r.partition === p).length)
    assert.deepEqual(
      answers.map((m) => m.offset),
      counts.map((n) => n + 1),
    )
  })
})
