// The web console (console/, src/http/console/routes.ts) against a broker with its HTTP listener:
// first its own API (/console/api: topic description, the message browser, the offset reset),
// then the app itself in a real headless browser — Debian's Chromium driven by puppeteer-core,
// no browser download: every page loads without a console error, the landing page lists the
// topic, the message browser finds a record by its key, the live tail shows a record produced
// after the page opened, an offset reset commits, and a share group (a queue) is listed, described
// with its lag and reset from its page. Screenshots go to a temporary directory, or
// to docs/images/ with UPDATE_SCREENSHOTS=1 (those the README shows). Missing chromium fails the
// file (`apt-get install chromium`, scripts/install-test-deps.sh installs it).
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import { type Admin, Kafka, logLevel, type Producer } from 'kafkajs'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'
import { KafkaClient } from '../../src/client/client.js'
import { ShareConsumer } from '../../src/client/share-consumer.js'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { setGroupConfigs } from '../helpers/share-broker.js'

const TOPIC = 'console-orders'
const GROUP = 'console-billing'
const QUEUE = 'console-queue'
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const SHOTS = process.env.UPDATE_SCREENSHOTS
  ? fileURLToPath(new URL('../../../docs/images/', import.meta.url))
  : mkdtempSync(join(tmpdir(), 'tributary-console-'))

describe('the web console', () => {
  let b: BrokerProcess
  let admin: Admin
  let producer: Producer
  let kafka: Kafka

  before(async () => {
    b = await startBrokerProcess()
    kafka = new Kafka({ brokers: [b.bootstrap], clientId: 'it-console', logLevel: logLevel.NOTHING })
    admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 3 }] })
    producer = kafka.producer()
    await producer.connect()
    await producer.send({
      topic: TOPIC,
      messages: Array.from({ length: 30 }, (_, i) => ({
        key: `order-${i}`,
        value: JSON.stringify({ id: i, total: i * 10 }),
        headers: { source: 'it' },
      })),
    })
    // A group that read everything and left: its offsets can be reset.
    const consumer = kafka.consumer({ groupId: GROUP })
    await consumer.connect()
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true })
    let seen = 0
    await new Promise<void>((resolve) => {
      void consumer.run({
        eachMessage: async () => {
          if (++seen === 30) resolve()
        },
      })
    })
    await consumer.disconnect()
    // A share group (a queue) that took every record and left.
    const client = await KafkaClient.connect({ bootstrap: [b.bootstrap] })
    await setGroupConfigs(client, QUEUE, { 'share.auto.offset.reset': 'earliest' })
    await client.close()
    const worker = new ShareConsumer({ bootstrap: [b.bootstrap], groupId: QUEUE, maxWaitMs: 100 })
    await worker.subscribe([TOPIC])
    for (let taken = 0; taken < 30; ) {
      for (const r of await worker.poll()) {
        worker.acknowledge(r, 'accept')
        taken++
      }
    }
    await worker.commit()
    await worker.close()
  })

  after(async () => {
    await producer?.disconnect()
    await admin?.disconnect()
    await stopAndCheck(b)
  })

  const get = async (path: string) => {
    const r = await fetch(`${b.http}${path}`)
    return { status: r.status, body: (await r.json()) as any }
  }

  it('describes a topic: partitions with leader, ISR, offsets and size', async () => {
    const { status, body } = await get(`/console/api/topics/${TOPIC}`)
    assert.equal(status, 200)
    assert.equal(body.partitions.length, 3)
    assert.equal(
      body.partitions.reduce((n: number, p: { latestOffset: number }) => n + p.latestOffset, 0),
      30,
    )
    for (const p of body.partitions) {
      assert.equal(p.leader, 0)
      assert.deepEqual(p.isr, [0])
      assert.ok(p.sizeBytes > 0)
    }
    assert.equal((await get('/console/api/topics/no-such-topic')).status, 404)
  })

  it('the message browser: by key text, by partition and offset, by time; bad input is 400', async () => {
    const byKey = await get(`/console/api/topics/${TOPIC}/messages?q=order-17`)
    assert.equal(byKey.status, 200)
    assert.deepEqual(
      byKey.body.records.map((r: { key: string }) => r.key),
      ['order-17'],
    )
    const r17 = byKey.body.records[0]
    assert.equal(r17.encoding, 'text')
    assert.equal(r17.value, JSON.stringify({ id: 17, total: 170 }))
    assert.deepEqual(r17.headers, [{ key: 'source', value: 'it' }])

    const p = r17.partition
    const range = await get(`/console/api/topics/${TOPIC}/messages?partition=${p}&offset=0&limit=3`)
    assert.deepEqual(
      range.body.records.map((r: { partition: number; offset: number }) => [r.partition, r.offset]),
      [
        [p, 0],
        [p, 1],
        [p, 2],
      ],
    )
    const future = await get(`/console/api/topics/${TOPIC}/messages?time=${new Date(Date.now() + 60_000).toISOString()}`)
    assert.deepEqual(future.body.records, [], 'nothing at or after a time to come')
    const past = await get(`/console/api/topics/${TOPIC}/messages?time=2020-01-01T00:00:00Z&limit=500`)
    assert.equal(past.body.records.length, 30)
    for (const bad of ['limit=0', 'limit=501', 'partition=x', 'offset=-1', 'time=yesterday'])
      assert.equal((await get(`/console/api/topics/${TOPIC}/messages?${bad}`)).status, 400, bad)
  })

  it('resets a group that has no members; refuses one that has', async () => {
    const post = async (body: unknown) => {
      const r = await fetch(`${b.http}/console/api/groups/${GROUP}/reset`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      return { status: r.status, body: (await r.json()) as any }
    }
    const done = await post({ topic: TOPIC, to: 'earliest' })
    assert.equal(done.status, 200, JSON.stringify(done.body))
    const committed = await admin.fetchOffsets({ groupId: GROUP, topics: [TOPIC] })
    assert.deepEqual(
      committed[0]!.partitions.map((x) => x.offset),
      ['0', '0', '0'],
    )
    assert.equal((await post({ topic: TOPIC, to: 'sideways' })).status, 400)
    const member = kafka.consumer({ groupId: `${GROUP}-live` })
    await member.connect()
    await member.subscribe({ topic: TOPIC })
    await member.run({ eachMessage: async () => {} })
    try {
      let live = { status: 0, body: {} as { message?: string } }
      for (let i = 0; i < 50 && live.status !== 409; i++) {
        const r = await fetch(`${b.http}/console/api/groups/${GROUP}-live/reset`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ topic: TOPIC, to: 'latest' }),
        })
        live = { status: r.status, body: (await r.json()) as { message?: string } }
        if (live.status !== 409) await new Promise((res) => setTimeout(res, 200))
      }
      assert.equal(live.status, 409)
      assert.match(live.body.message ?? '', /active members/)
    } finally {
      await member.disconnect()
    }
  })

  it('share groups: listed, described with start offsets and lag, reset without members; refused with a member', async () => {
    const listed = await get('/console/api/share-groups')
    assert.equal(listed.status, 200)
    assert.deepEqual(listed.body, [{ group_id: QUEUE, state: 'Empty', members: 0 }])
    const before = await get(`/console/api/share-groups/${QUEUE}`)
    assert.equal(before.status, 200)
    assert.equal(before.body.offsets.length, 3)
    assert.equal(before.body.total_lag, 0, JSON.stringify(before.body.offsets))
    assert.equal((await get('/console/api/share-groups/no-such-queue')).status, 404)

    const r = await fetch(`${b.http}/console/api/share-groups/${QUEUE}/reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ topic: TOPIC, to: 'earliest' }),
    })
    assert.equal(r.status, 200, await r.clone().text())
    const after = await get(`/console/api/share-groups/${QUEUE}`)
    assert.deepEqual(
      after.body.offsets.map((o: { start_offset: number }) => o.start_offset),
      [0, 0, 0],
    )
    assert.equal(after.body.total_lag, 30)
    const bad = await fetch(`${b.http}/console/api/share-groups/${QUEUE}/reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ topic: TOPIC, to: -1 }),
    })
    assert.equal(bad.status, 400)

    const member = new ShareConsumer({ bootstrap: [b.bootstrap], groupId: QUEUE, maxWaitMs: 100 })
    try {
      await member.subscribe([TOPIC])
      let live = { status: 0, body: {} as any }
      for (let i = 0; i < 50 && live.status !== 409; i++) {
        await member.poll()
        const res = await fetch(`${b.http}/console/api/share-groups/${QUEUE}/reset`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ topic: TOPIC, to: 'latest' }),
        })
        live = { status: res.status, body: await res.json() }
      }
      assert.equal(live.status, 409)
      assert.match(live.body.message ?? '', /active members/)
    } finally {
      await member.close()
    }
  })

  describe('in a headless browser', () => {
    let browser: Browser
    let page: Page
    const errors: string[] = []

    before(async () => {
      assert.ok(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`)
      browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] })
      page = await browser.newPage()
      await page.setViewport({ width: 1280, height: 900 })
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text())
      })
      page.on('pageerror', (e) => errors.push(String(e)))
    })

    after(async () => {
      await browser?.close()
    })

    it('the landing page shows the cluster with its topics', async () => {
      await page.goto(`${b.http}/`, { waitUntil: 'networkidle0' })
      await page.waitForSelector('a.topic-link')
      const topics = await page.$$eval('a.topic-link', (as) => as.map((a) => a.textContent))
      assert.ok(topics.includes(TOPIC), JSON.stringify(topics))
      assert.match((await page.$eval('#brokers', (e) => e.textContent)) ?? '', /Brokers \(1\)/)
      await page.screenshot({ path: join(SHOTS, 'console-cluster.png') })
      assert.deepEqual(errors, [])
    })

    it('the message browser finds a record by key; the live tail shows a record produced after the page opened', async () => {
      await page.goto(`${b.http}/#/topics/${TOPIC}`, { waitUntil: 'networkidle0' })
      await page.waitForSelector('#partitions table')
      await page.type('#browse input[name=q]', 'order-23')
      await page.click('#browse button[type=submit]')
      await page.waitForSelector('#browse-results table tbody tr')
      const rows = await page.$$eval('#browse-results table tbody tr', (trs) => trs.map((tr) => tr.textContent ?? ''))
      assert.equal(rows.length, 1, JSON.stringify(rows))
      assert.match(rows[0]!, /order-23/)
      assert.match(rows[0]!, /"total": 230/, 'JSON values are pretty-printed')
      await page.screenshot({ path: join(SHOTS, 'console-topic.png'), fullPage: true })

      await page.click('#tail-toggle')
      await page.waitForSelector('#tail-toggle[data-live=yes]')
      await producer.send({ topic: TOPIC, messages: [{ key: 'tail-key', value: 'produced after the page opened' }] })
      await page.waitForFunction("(document.querySelector('#tail-rows')?.textContent ?? '').includes('produced after the page opened')", {
        timeout: 15_000,
      })
      await page.screenshot({ path: join(SHOTS, 'console-tail.png'), fullPage: true })
      assert.deepEqual(errors, [])
    })

    it('produces a record from the page, and resets a group from its page', async () => {
      await page.type('#produce input[name=key]', 'from-the-console')
      await page.type('#produce textarea[name=value]', 'hello')
      await page.click('#produce button[type=submit]')
      await page.waitForFunction("/offset \\d+/.test(document.querySelector('#produce-result')?.textContent ?? '')")
      const browsed = await get(`/console/api/topics/${TOPIC}/messages?q=from-the-console`)
      assert.equal(browsed.body.records.length, 1)

      await page.goto(`${b.http}/#/groups/${GROUP}`, { waitUntil: 'networkidle0' })
      await page.waitForSelector('#lags table')
      await page.select('#reset select[name=topic]', TOPIC)
      await page.$eval('#reset input[name=to]', (e) => {
        ;(e as unknown as { value: string }).value = 'latest'
      })
      await page.click('#reset button[type=submit]')
      await page.waitForFunction("(document.querySelector('#reset-result')?.textContent ?? '').startsWith('committed')")
      const committed = await admin.fetchOffsets({ groupId: GROUP, topics: [TOPIC] })
      const ends = await admin.fetchTopicOffsets(TOPIC)
      assert.deepEqual(committed[0]!.partitions.map((x) => [x.partition, x.offset]).sort(), ends.map((x) => [x.partition, x.high]).sort())
      await page.screenshot({ path: join(SHOTS, 'console-group.png'), fullPage: true })
      assert.deepEqual(errors, [])
    })

    it('the security page says when the broker has no authorizer', async () => {
      await page.goto(`${b.http}/#/security`, { waitUntil: 'networkidle0' })
      await page.waitForSelector('#acls')
      assert.match((await page.$eval('#acls', (e) => e.textContent)) ?? '', /no authorizer/)
      assert.match((await page.$eval('#users', (e) => e.textContent)) ?? '', /no SCRAM users/)
      assert.deepEqual(errors, [])
    })

    it('lists share groups beside consumer groups and resets a share group from its page', async () => {
      await page.goto(`${b.http}/#/groups`, { waitUntil: 'networkidle0' })
      await page.waitForSelector('#share-groups table a')
      await page.click('#share-groups table a')
      await page.waitForSelector('#share-lags')
      assert.ok(await page.$('#share-lags table'), (await page.$eval('#app', (e) => e.textContent)) ?? '')
      assert.match((await page.$eval('#share-members', (e) => e.textContent)) ?? '', /Members 0/)
      await page.select('#reset select[name=topic]', TOPIC)
      await page.$eval('#reset input[name=to]', (e) => {
        ;(e as unknown as { value: string }).value = 'latest'
      })
      await page.click('#reset button[type=submit]')
      await page.waitForFunction("(document.querySelector('#reset-result')?.textContent ?? '').startsWith('committed')")
      const ends = await admin.fetchTopicOffsets(TOPIC)
      const g = await get(`/console/api/share-groups/${QUEUE}`)
      assert.deepEqual(
        g.body.offsets.map((o: { partition: number; start_offset: number }) => [o.partition, o.start_offset]).sort(),
        ends.map((x) => [x.partition, Number(x.high)]).sort(),
      )
      await page.screenshot({ path: join(SHOTS, 'console-share-group.png'), fullPage: true })
      assert.deepEqual(errors, [])
    })
  })
})
