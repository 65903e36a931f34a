// The chaos runs' fault proxy (test/chaos/fault-proxy.ts) against an echo server: it forwards both
// ways; it names a caller by the process that holds the calling socket (this test process, posing
// as broker b1) and cuts only links between the named nodes; a cut connection carries nothing
// until heal() and then goes on with what was sent meanwhile; a connection opened during a cut is
// held, not refused; a client (a process that is no broker) is never cut.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { connect, createServer, type Server, type Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { FaultNet } from '../../chaos/fault-proxy.js'

/** Reads from socket until `text` has arrived in full. */
async function readUntil(socket: Socket, text: string): Promise<string> {
  let got = ''
  while (!got.includes(text)) {
    const [chunk] = (await once(socket, 'data')) as [Buffer]
    got += chunk.toString()
  }
  return got
}

describe('fault proxy', () => {
  let echo: Server
  let echoPort = 0
  let received = 0
  const brokers = new Map<number, string>()
  const net = new FaultNet(() => brokers)

  before(async () => {
    echo = createServer((s) => {
      s.on('data', (d: Buffer) => {
        received += d.length
        s.write(d)
      })
      s.on('error', () => {})
    })
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', () => resolve()))
    echoPort = (echo.address() as { port: number }).port
  })

  after(async () => {
    await net.close()
    await new Promise<void>((resolve) => echo.close(() => resolve()))
  })

  it('cuts a broker-to-broker link until heal, and never a client', async () => {
    const proxy = await net.proxy('b2', echoPort)
    // As a client (this process is no broker yet): forwarded, and a cut of b1-b2 does not touch it.
    const asClient = connect(proxy.port, '127.0.0.1')
    await once(asClient, 'connect')
    net.cut('b1', 'b2')
    asClient.write('hello')
    assert.equal(await readUntil(asClient, 'hello'), 'hello')
    net.heal()

    // As broker b1.
    brokers.set(process.pid, 'b1')
    const asBroker = connect(proxy.port, '127.0.0.1')
    await once(asBroker, 'connect')
    asBroker.write('one')
    assert.equal(await readUntil(asBroker, 'one'), 'one')
    assert.equal(net.counts.brokerToBroker, 1)

    net.cut('b1', 'b2')
    assert.deepEqual(net.cutLinks(), ['b1|b2'])
    const before = received
    asBroker.write('two')
    // A new connection on the cut link is accepted and held.
    const during = connect(proxy.port, '127.0.0.1')
    await once(during, 'connect')
    during.write('three')
    await sleep(300)
    assert.equal(received, before, 'bytes crossed a cut link')
    net.heal()
    assert.equal(await readUntil(asBroker, 'two'), 'two')
    assert.equal(await readUntil(during, 'three'), 'three')
    assert.ok(net.counts.held >= 2, `held ${net.counts.held}`)
    for (const s of [asClient, asBroker, during]) s.destroy()
    await proxy.close()
  })
})
