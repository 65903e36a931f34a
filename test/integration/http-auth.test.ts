// The HTTP listener with tributary.http.authentication=basic on a broker whose only listener is
// SASL_PLAINTEXT: every route wants `Authorization: Basic` with a Kafka user (PLAIN users of the
// listener's JAAS config, SCRAM users of the metadata store) and reaches Kafka logged in as that user. No credentials or a
// wrong password: 401 with a Basic challenge — REST, SSE and the WebSocket upgrade alike; the
// right ones: the same answers as without authentication.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import WebSocket from 'ws'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { createScramUsers, PLAIN_USERS, saslBrokerOverrides } from '../helpers/sasl.js'

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
const ALICE = basic('alice', PLAIN_USERS.alice)

describe('HTTP with basic authentication', () => {
  let b: BrokerProcess
  before(async () => {
    b = await startBrokerProcess({
      overrides: saslBrokerOverrides(['PLAIN', 'SCRAM-SHA-512'], { 'tributary.http.authentication': 'basic' }),
    })
    await createScramUsers(b.bootstrap, { carol: 'carol-secret' }, ['SCRAM-SHA-512'])
  })
  after(async () => {
    await stopAndCheck(b)
  })

  it('refuses a request without credentials or with a wrong password: 401 with a Basic challenge', async () => {
    for (const headers of [
      {} as Record<string, string>,
      { authorization: basic('alice', 'wrong') },
      { authorization: basic('mallory', 'x') },
      { authorization: 'Bearer x' },
    ]) {
      const r = await fetch(`${b.http}/v3/clusters`, { headers })
      assert.equal(r.status, 401, JSON.stringify(headers))
      assert.match(r.headers.get('www-authenticate') ?? '', /^Basic realm="tributary"/)
      const body = (await r.json()) as { error_code: number }
      assert.equal(body.error_code, 40101)
    }
    const sse = await fetch(`${b.http}/topics/any/events`, { headers: { accept: 'text/event-stream' } })
    assert.equal(sse.status, 401)
    await sse.body?.cancel()
    assert.match(b.stdout() + b.stderr(), /HTTP login refused/)
    assert.doesNotMatch(b.stdout() + b.stderr(), /alice-secret|wrong/, 'no password in the log')
  })

  it('logs in PLAIN users of the JAAS config and SCRAM users of the metadata store alike', async () => {
    for (const [user, password] of [
      ['alice', PLAIN_USERS.alice],
      ['carol', 'carol-secret'],
      ['carol', 'carol-secret'],
    ]) {
      const r = await fetch(`${b.http}/v3/clusters`, { headers: { authorization: basic(user!, password!) } })
      assert.equal(r.status, 200, `${user}: ${await r.text()}`)
    }
    const wrong = await fetch(`${b.http}/v3/clusters`, { headers: { authorization: basic('carol', PLAIN_USERS.alice) } })
    assert.equal(wrong.status, 401)
  })

  it('serves a logged-in user: REST admin and produce, then the SSE stream', async () => {
    const v3 = async (path: string, init: RequestInit = {}) =>
      fetch(`${b.http}/v3${path}`, { ...init, headers: { authorization: ALICE, 'content-type': 'application/json', ...init.headers } })
    const clusters = (await (await v3('/clusters')).json()) as { data: Array<{ cluster_id: string }> }
    const id = clusters.data[0]!.cluster_id
    const created = await v3(`/clusters/${id}/topics`, {
      method: 'POST',
      body: JSON.stringify({ topic_name: 'http-auth', partitions_count: 1 }),
    })
    assert.equal(created.status, 201, await created.clone().text())
    const produced = await v3(`/clusters/${id}/topics/http-auth/records`, {
      method: 'POST',
      body: JSON.stringify({ value: { type: 'STRING', data: 'as alice' } }),
    })
    assert.equal(produced.status, 200, await produced.clone().text())
    const events = await fetch(`${b.http}/topics/http-auth/events?from=earliest`, {
      headers: { authorization: ALICE, accept: 'text/event-stream' },
    })
    assert.equal(events.status, 200)
    const reader = events.body!.getReader()
    let text = ''
    while (!text.includes('as alice')) text += new TextDecoder().decode((await reader.read()).value)
    await reader.cancel()
  })

  it('checks the WebSocket upgrade too', async () => {
    const refused = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${b.http!.replace('http', 'ws')}/topics/http-auth/ws?from=earliest`)
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
      ws.on('open', () => resolve(101))
      ws.on('error', () => {})
    })
    assert.equal(refused, 401)
    const record = await new Promise<string>((resolve, reject) => {
      const ws = new WebSocket(`${b.http!.replace('http', 'ws')}/topics/http-auth/ws?from=earliest`, { headers: { authorization: ALICE } })
      ws.on('message', (data) => {
        const m = JSON.parse(String(data)) as { type: string; value?: string }
        if (m.type === 'record') {
          ws.close()
          resolve(m.value!)
        }
      })
      ws.on('error', reject)
    })
    assert.equal(record, 'as alice')
  })
})
