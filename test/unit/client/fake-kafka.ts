// A scripted Kafka broker for client tests, on the message declarations: it answers ApiVersions
// (every declared API at its declared range, plus the finalized features the test gives), Metadata
// (one broker, the test's topics, every partition led by it), and hands every other request,
// decoded, to the test's handler for its API key, encoding what the handler returns at the
// request's version. Every request is logged in order, so a test can assert the sequence a client
// sends.
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net'
import { decodeRequestHeader, encodeResponseHeader, responseHeaderVersion } from '../../../src/protocol/header.js'
import { apiByKey } from '../../../src/protocol/messages/index.js'
import { Writer } from '../../../src/protocol/primitives/writer.js'

export interface LoggedRequest {
  apiKey: number
  name: string
  version: number
  body: any
}

export type FakeHandler = (body: any, version: number) => any | Promise<any>

export interface FakeKafkaOptions {
  /** Topic name → partition count. */
  topics?: Record<string, number>
  /** Finalized features reported in ApiVersions v3+ (e.g. { 'transaction.version': 2 }). */
  features?: Record<string, number>
  /** Caps the advertised max version per API key. */
  maxVersions?: Record<number, number>
  handlers?: Record<number, FakeHandler>
}

export interface FakeKafka {
  port: number
  bootstrap: string
  log: LoggedRequest[]
  /** The logged requests' API names, in order, without ApiVersions and Metadata. */
  sequence(): string[]
  close(): Promise<void>
}

export async function startFakeKafka(opts: FakeKafkaOptions): Promise<FakeKafka> {
  const log: LoggedRequest[] = []
  const sockets = new Set<Socket>()
  let port = 0
  const answer = async (frame: Buffer, socket: Socket): Promise<void> => {
    const h = decodeRequestHeader(frame, (k, v) => apiByKey.get(k)?.request.isFlexible(v))
    const api = apiByKey.get(h.apiKey)
    if (!api) {
      socket.destroy()
      return
    }
    const body = api.request.decode(h.apiVersion, frame.subarray(h.bodyOffset))
    log.push({ apiKey: h.apiKey, name: api.request.name, version: h.apiVersion, body })
    let res: any
    if (h.apiKey === 18) res = apiVersions(opts)
    else if (h.apiKey === 3) res = metadata(opts, port, body)
    else {
      const handler = opts.handlers?.[h.apiKey]
      if (!handler) {
        socket.destroy()
        return
      }
      res = await handler(body, h.apiVersion)
    }
    const w = new Writer()
    encodeResponseHeader(w, h.correlationId, h.apiKey === 18 ? 0 : responseHeaderVersion(h.apiKey, api.response.isFlexible(h.apiVersion)))
    const head = w.toBuffer()
    const encoded = api.response.encode(h.apiVersion, res)
    const size = Buffer.alloc(4)
    size.writeInt32BE(head.length + encoded.length)
    if (!socket.destroyed) socket.write(Buffer.concat([size, head, encoded]))
  }
  const server: Server = createServer((socket) => {
    sockets.add(socket)
    socket.on('error', () => {})
    socket.on('close', () => sockets.delete(socket))
    let pending = Buffer.alloc(0)
    let chain = Promise.resolve()
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk])
      while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
        const frame = pending.subarray(4, 4 + pending.readInt32BE(0))
        pending = pending.subarray(4 + frame.length)
        chain = chain
          .then(() => answer(frame, socket))
          .catch(() => {
            socket.destroy()
          })
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
  return {
    port,
    bootstrap: `127.0.0.1:${port}`,
    log,
    sequence: () => log.filter((r) => r.apiKey !== 18 && r.apiKey !== 3).map((r) => r.name),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}

function apiVersions(opts: FakeKafkaOptions) {
  return {
    errorCode: 0,
    apiKeys: [...apiByKey.values()].map((a) => ({
      apiKey: a.request.apiKey,
      minVersion: a.request.versions.min,
      maxVersion: Math.min(a.request.versions.max, opts.maxVersions?.[a.request.apiKey] ?? Number.MAX_SAFE_INTEGER),
    })),
    throttleTimeMs: 0,
    supportedFeatures: Object.entries(opts.features ?? {}).map(([name, level]) => ({ name, minVersion: 0, maxVersion: level })),
    finalizedFeaturesEpoch: 1,
    finalizedFeatures: Object.entries(opts.features ?? {}).map(([name, level]) => ({
      name,
      maxVersionLevel: level,
      minVersionLevel: level,
    })),
    zkMigrationReady: false,
  }
}

/** A topic id per topic name: 16 bytes from the name, base64url as Kafka writes it. */
export function fakeTopicId(name: string): string {
  const b = Buffer.alloc(16)
  b.write(name.slice(0, 16))
  b[15] = 1
  return b.toString('base64url')
}

function metadata(opts: FakeKafkaOptions, port: number, body: any) {
  const all = opts.topics ?? {}
  const asked: string[] = body.topics === null || body.topics.length === 0 ? Object.keys(all) : body.topics.map((t: any) => t.name)
  return {
    throttleTimeMs: 0,
    brokers: [{ nodeId: 0, host: '127.0.0.1', port, rack: null }],
    clusterId: 'fake-cluster',
    controllerId: 0,
    topics: asked.map((name) => {
      const n = all[name]
      return {
        errorCode: n === undefined ? 3 : 0,
        name,
        topicId: fakeTopicId(name),
        isInternal: false,
        partitions: Array.from({ length: n ?? 0 }, (_, i) => ({
          errorCode: 0,
          partitionIndex: i,
          leaderId: 0,
          leaderEpoch: 0,
          replicaNodes: [0],
          isrNodes: [0],
          offlineReplicas: [],
        })),
        topicAuthorizedOperations: -2147483648,
      }
    }),
    clusterAuthorizedOperations: -2147483648,
    errorCode: 0,
  }
}
