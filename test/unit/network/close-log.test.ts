// A connection closed for a protocol reason is never silent: logged at WARN with the peer, client
// id, API and version and the reason, rate-limited, counted by kind, and published on a
// diagnostics channel.
import assert from 'node:assert/strict'
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { afterEach, describe, it } from 'node:test'
import { PROTOCOL_CLOSE_CHANNEL, type ProtocolClose, ProtocolCloseLog } from '../../../src/network/close-log.js'
import type { NetworkServer } from '../../../src/network/server.js'
import { CloseConnection } from '../../../src/network/types.js'
import { ManualClock } from '../../../src/util/clock.js'
import { createLogger } from '../../../src/util/logger.js'
import { startServer, TestClient, waitFor } from './helpers.js'

function capture(): { lines: string[]; logger: ReturnType<typeof createLogger> } {
  const lines: string[] = []
  return { lines, logger: createLogger('debug', 'test', (l) => lines.push(l)) }
}

const close = (n: number): ProtocolClose => ({
  kind: 'malformed-request',
  reason: `bad body ${n}`,
  conn: n,
  listener: 'PLAINTEXT',
  remote: '127.0.0.1:5000',
  request: { apiKey: 3, apiVersion: 12, apiName: 'Metadata', correlationId: 7, clientId: 'rdkafka' },
})

describe('ProtocolCloseLog', () => {
  it('logs each close at WARN with the peer, client id, API, version and reason, and counts it by kind', () => {
    const { lines, logger } = capture()
    const log = new ProtocolCloseLog({ clock: new ManualClock(), logger })
    log.record(close(1))
    log.record({ ...close(2), kind: 'invalid-frame-size', request: undefined })
    assert.equal(lines.length, 2)
    assert.match(
      lines[0]!,
      /WARN .*closing connection conn=1 listener=PLAINTEXT remote=127\.0\.0\.1:5000 kind=malformed-request clientId=rdkafka api=Metadata\(3\) version=12 correlationId=7 reason=bad body 1/,
    )
    assert.match(lines[1]!, /kind=invalid-frame-size reason=bad body 2/)
    assert.deepEqual(log.snapshot(), { 'malformed-request': 1, 'invalid-frame-size': 1 })
    assert.equal(log.total, 2)
  })

  it('writes at most `burst` lines per window and sums up the rest when the next window opens', () => {
    const { lines, logger } = capture()
    const clock = new ManualClock()
    const log = new ProtocolCloseLog({ clock, logger, burst: 3, windowMs: 1_000 })
    for (let i = 0; i < 100; i++) log.record(close(i))
    assert.equal(lines.length, 3, 'a flood is cut at the burst')
    assert.equal(log.total, 100, 'but every close is counted')
    clock.advance(1_000)
    log.record(close(100))
    assert.equal(lines.length, 5)
    assert.match(lines[3]!, /protocol closes not logged \(rate limit\) count=97 windowMs=1000/)
    assert.match(lines[4]!, /conn=100/)
  })

  it('publishes every close on the diagnostics channel, logged or not', () => {
    const seen: ProtocolClose[] = []
    const onClose = (m: unknown) => seen.push(m as ProtocolClose)
    subscribe(PROTOCOL_CLOSE_CHANNEL, onClose)
    try {
      const log = new ProtocolCloseLog({ clock: new ManualClock(), logger: capture().logger, burst: 1 })
      log.record(close(1))
      log.record(close(2))
      assert.deepEqual(
        seen.map((c) => c.conn),
        [1, 2],
      )
    } finally {
      unsubscribe(PROTOCOL_CLOSE_CHANNEL, onClose)
    }
  })
})

describe('NetworkServer protocol closes', () => {
  let server: NetworkServer | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })

  it('logs and counts a bad frame size and a dispatcher close, naming the request', async () => {
    const { lines, logger } = capture()
    let port: number
    ;({ server, port } = await startServer(
      {
        dispatch: () => {
          throw new CloseConnection('Metadata v99 is not supported (0-13)', 'unsupported-version', {
            apiKey: 3,
            apiVersion: 99,
            apiName: 'Metadata',
            correlationId: 5,
            clientId: 'my-app',
          })
        },
      },
      {},
      undefined,
      logger,
    ))
    const sizeClient = await TestClient.connect(port)
    sizeClient.socket.write(Buffer.from([0xff, 0xff, 0xff, 0xff])) // size -1
    await sizeClient.closed
    const reqClient = await TestClient.connect(port)
    reqClient.send(Buffer.from('anything'))
    await reqClient.closed
    await waitFor(() => server!.protocolCloses.total === 2)
    assert.deepEqual(server!.protocolCloses.snapshot(), { 'invalid-frame-size': 1, 'unsupported-version': 1 })
    const warns = lines.filter((l) => l.includes(' WARN '))
    assert.equal(warns.length, 2)
    assert.match(warns[0]!, /kind=invalid-frame-size reason=invalid frame size -1/)
    assert.match(warns[1]!, /clientId=my-app api=Metadata\(3\) version=99 correlationId=5 reason=Metadata v99 is not supported/)
    assert.match(warns[1]!, /remote=127\.0\.0\.1:\d+/)
  })

  it('an unexpected dispatcher error is a request-failed close with its stack', async () => {
    const { lines, logger } = capture()
    let port: number
    ;({ server, port } = await startServer(
      {
        dispatch: () => {
          throw new Error('boom')
        },
      },
      {},
      undefined,
      logger,
    ))
    const client = await TestClient.connect(port)
    client.send(Buffer.from('x'))
    await client.closed
    await waitFor(() => server!.protocolCloses.total === 1)
    assert.deepEqual(server!.protocolCloses.snapshot(), { 'request-failed': 1 })
    assert.ok(lines.some((l) => / WARN .*kind=request-failed.*err=Error: boom/.test(l)))
  })
})
