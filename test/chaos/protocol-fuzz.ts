// Protocol fuzzing against a live broker: requests of every API and version the broker serves,
// generated from their declarations (src/protocol/messages/*) with fast-check, sent over raw
// sockets — valid ones, mutated ones (bytes flipped, cut short, lengths and counts set huge, bytes
// appended), random frames, frames whose size prefix lies, and compression bombs (a 160 MiB record
// compressed by each codec). Each case runs on a connection of
// its own and ends in one of:
//   - answered: a response frame with the request's correlation id that decodes with the
//     response declaration of the API and version the header names;
//   - closed: the broker closed the connection (every such close must be counted in the broker's
//     tributary_network_protocol_closes_total, i.e. logged);
//   - silent: no answer within the case's wait (a long poll, a Produce with acks=0) — the fuzzer
//     hangs up, which the broker must survive too.
// Anything else is a finding: a response that does not decode or names another correlation id,
// the broker process gone, RSS past the bound, or a fresh connection no longer served.
//
// A run is seeded and reproducible: the seed picks every case (fast-check's sampling).
import fc from 'fast-check'
import { createRegistry } from '../../src/handlers/index.js'
import type { Handler } from '../../src/handlers/define.js'
import { decodeResponseHeader, encodeRequestHeader, responseHeaderVersion } from '../../src/protocol/header.js'
import { inRange, type Field, type Type } from '../../src/protocol/schema.js'
import { Reader } from '../../src/protocol/primitives/reader.js'
import { Writer } from '../../src/protocol/primitives/writer.js'
import { ProduceRequest } from '../../src/protocol/messages/00-produce.js'
import { buildRecordBatch } from '../../src/protocol/records/builder.js'
import { CompressionType } from '../../src/protocol/records/compression.js'
import { RawClient } from '../helpers/clients.js'

export type Outcome = 'answered' | 'closed' | 'silent'

export interface FuzzCase {
  kind: 'valid' | 'mutated' | 'random-frame' | 'bad-size' | 'bomb'
  apiKey: number
  version: number
  /** The framed bytes sent. */
  bytes: Buffer
  correlationId: number
}

export interface Finding {
  case: Omit<FuzzCase, 'bytes'> & { hex: string }
  problem: string
}

export interface FuzzReport {
  seed: number
  cases: number
  outcomes: Record<Outcome, number>
  byKind: Record<FuzzCase['kind'], number>
  apis: number
  findings: Finding[]
}

const registry = createRegistry()
const HANDLERS: Handler[] = registry.advertised.map((a) => registry.get(a.apiKey)!).filter((h) => h !== undefined)

/** Topic and group names the cases reuse, so requests meet existing state as well as missing state. */
const NAMES = ['fuzz-topic', 'fuzz-group', 'fuzz-txn', '__consumer_offsets', '', 'a'.repeat(249), 'fuzz.other']

const int = (min: number, max: number) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.integer({ min: Math.max(min, -1), max: Math.min(max, 16) }) },
    { weight: 2, arbitrary: fc.constantFrom(min, max, 0, -1, 1).filter((v) => v >= min && v <= max) },
  )

function primitive(name: string): fc.Arbitrary<unknown> {
  switch (name) {
    case 'bool':
      return fc.boolean()
    case 'int8':
      return int(-128, 127)
    case 'int16':
      return int(-32768, 32767)
    case 'uint16':
      return int(0, 65535)
    case 'int32':
      return int(-2147483648, 2147483647)
    case 'uint32':
      return int(0, 4294967295)
    case 'int64':
      return fc.oneof(int(-2147483648, 2147483647), fc.constantFrom(Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER))
    case 'float64':
      return fc.double({ noNaN: false })
    case 'string':
      return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...NAMES) }, { weight: 1, arbitrary: fc.string({ maxLength: 40 }) })
    case 'bytes':
      return fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a))
    case 'records':
      return fc.oneof(
        fc.uint8Array({ maxLength: 80 }).map((a) => Buffer.from(a)),
        fc.integer({ min: 1, max: 5 }).map((n) =>
          buildRecordBatch({
            baseTimestamp: Date.now(),
            records: Array.from({ length: n }, (_, i) => ({ key: Buffer.from(`k${i}`), value: Buffer.from(`v${i}`), headers: [] })),
          }),
        ),
      )
    case 'uuid':
      return fc.uint8Array({ minLength: 16, maxLength: 16 }).map((a) => Buffer.from(a).toString('base64url'))
    default:
      throw new Error(`no arbitrary for primitive ${name}`)
  }
}

function typeArb(type: Type<unknown>, version: number, depth: number): fc.Arbitrary<unknown> {
  if (type.kind === 'primitive') return primitive(type.name)
  if (type.kind === 'array') return fc.array(typeArb(type.item, version, depth + 1), { maxLength: depth > 2 ? 1 : 3 })
  return structArb(type.fields, version, depth + 1)
}

function structArb(fields: Record<string, Field<unknown>>, version: number, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const parts: Record<string, fc.Arbitrary<unknown>> = {}
  for (const [name, f] of Object.entries(fields)) {
    if (!inRange(f.versions, version)) continue
    const value = typeArb(f.type, version, depth)
    parts[name] = inRange(f.nullable, version) ? fc.option(value, { nil: null, freq: 4 }) : value
  }
  return fc.record(parts)
}

/** A valid request of some API and version, framed, with its correlation id. */
const validArb: fc.Arbitrary<FuzzCase> = fc
  .constantFrom(...HANDLERS)
  .chain((h) => fc.tuple(fc.constant(h), fc.integer({ min: h.minVersion, max: h.maxVersion })))
  .chain(([h, version]) =>
    fc.tuple(fc.constant(h), fc.constant(version), structArb(h.request.fields, version, 0), fc.integer({ min: 1, max: 2 ** 30 })),
  )
  .map(([h, version, body, correlationId]) => {
    const w = new Writer()
    encodeRequestHeader(
      w,
      { apiKey: h.request.apiKey, apiVersion: version, correlationId, clientId: 'fuzz' },
      h.request.isFlexible(version),
    )
    let payload: Buffer
    try {
      payload = Buffer.concat([w.toBuffer(), h.request.encode(version, body as never)])
    } catch {
      // A value the encoder cannot write (e.g. a float for an integer): send the header alone.
      payload = w.toBuffer()
    }
    return { kind: 'valid' as const, apiKey: h.request.apiKey, version, bytes: framed(payload), correlationId }
  })

type Mutation = (payload: Buffer, at: number, value: number) => Buffer

const MUTATIONS: Mutation[] = [
  // flip one byte (past the header's api key and version, so the API stays known half the time)
  (p, at, v) => {
    const b = Buffer.from(p)
    if (b.length > 0) b[at % b.length] = v & 0xff
    return b
  },
  // cut short
  (p, at) => p.subarray(0, at % (p.length + 1)),
  // a huge int32 (a length or a count) written over four bytes
  (p, at, v) => {
    const b = Buffer.from(p)
    if (b.length >= 4) b.writeInt32BE(v % 2 === 0 ? 0x7fffffff : -2, at % (b.length - 3))
    return b
  },
  // a huge unsigned varint (a compact length or a tagged-field count)
  (p, at) =>
    Buffer.concat([p.subarray(0, at % (p.length + 1)), Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]), p.subarray(at % (p.length + 1))]),
  // bytes appended
  (p, _at, v) => Buffer.concat([p, Buffer.alloc(1 + (v % 64), v & 0xff)]),
]

const mutatedArb: fc.Arbitrary<FuzzCase> = fc
  .tuple(validArb, fc.integer({ min: 0, max: MUTATIONS.length - 1 }), fc.nat(), fc.nat())
  .map(([c, m, at, v]) => {
    const payload = c.bytes.subarray(4)
    // Mutations past the fixed header part (api key, version, correlation id) most of the time.
    const where = payload.length > 8 && at % 4 !== 0 ? 8 + (at % (payload.length - 8)) : at
    return headerOf('mutated', MUTATIONS[m]!(payload, where, v))
  })

/** A case of these payload bytes, with the API, version and correlation id its header now names. */
function headerOf(kind: 'mutated' | 'random-frame', b: Buffer): FuzzCase {
  return {
    kind,
    apiKey: b.length >= 2 ? b.readInt16BE(0) : -1,
    version: b.length >= 4 ? b.readInt16BE(2) : -1,
    bytes: framed(b),
    correlationId: b.length >= 8 ? b.readInt32BE(4) : -1,
  }
}

const randomFrameArb: fc.Arbitrary<FuzzCase> = fc
  .uint8Array({ minLength: 0, maxLength: 200 })
  .map((a) => headerOf('random-frame', Buffer.from(a)))

const badSizeArb: fc.Arbitrary<FuzzCase> = fc.constantFrom(0x7fffffff, -1, 0, 200 * 1024 * 1024, 0x80000000 | 0).map((size) => {
  const b = Buffer.alloc(16)
  b.writeInt32BE(size, 0)
  return { kind: 'bad-size' as const, apiKey: -1, version: -1, bytes: b, correlationId: -1 }
})

/** A record of BOMB_BYTES zero bytes, compressed with each codec once (a few hundred KiB each). */
const BOMB_BYTES = 160 * 1024 * 1024
const bombs = new Map<number, Buffer>()
function bomb(codec: number): Buffer {
  let b = bombs.get(codec)
  if (!b) {
    b = buildRecordBatch({
      baseTimestamp: Date.now(),
      compression: codec,
      records: [{ key: null, value: Buffer.alloc(BOMB_BYTES), headers: [] }],
    })
    bombs.set(codec, b)
  }
  return b
}

/** A Produce (v9, acks=1) of one compression bomb to the fuzz topic: refused without expanding it. */
const bombArb: fc.Arbitrary<FuzzCase> = fc
  .tuple(
    fc.constantFrom(CompressionType.Gzip, CompressionType.Snappy, CompressionType.Lz4, CompressionType.Zstd),
    fc.integer({ min: 1, max: 2 ** 30 }),
  )
  .map(([codec, correlationId]) => {
    const w = new Writer()
    encodeRequestHeader(w, { apiKey: 0, apiVersion: 9, correlationId, clientId: 'fuzz' }, true)
    const body = ProduceRequest.encode(9, {
      transactionalId: null,
      acks: 1,
      timeoutMs: 1000,
      topicData: [{ name: 'fuzz-topic', topicId: '', partitionData: [{ index: 0, records: bomb(codec) }] }],
    } as never)
    return { kind: 'bomb' as const, apiKey: 0, version: 9, bytes: framed(Buffer.concat([w.toBuffer(), body])), correlationId }
  })

export const caseArb: fc.Arbitrary<FuzzCase> = fc.oneof(
  { weight: 1, arbitrary: bombArb },
  { weight: 25, arbitrary: validArb },
  { weight: 20, arbitrary: mutatedArb },
  { weight: 5, arbitrary: randomFrameArb },
  { weight: 5, arbitrary: badSizeArb },
)

function framed(payload: Buffer): Buffer {
  const prefix = Buffer.alloc(4)
  prefix.writeInt32BE(payload.length, 0)
  return Buffer.concat([prefix, payload])
}

/** Runs one case on a new connection; the outcome, or a problem. */
export async function runCase(
  host: string,
  port: number,
  c: FuzzCase,
  waitMs: number,
): Promise<{ outcome: Outcome } | { problem: string }> {
  const client = await RawClient.connect(host, port)
  try {
    client.writeRaw(c.bytes)
    let frame: Buffer
    try {
      frame = await client.nextFrame(waitMs)
    } catch {
      return { outcome: client.isClosed ? 'closed' : 'silent' }
    }
    const handler = registry.get(c.apiKey)
    if (!handler) {
      // Only ApiVersions of an unknown version may be answered without a handler (KIP-511).
      return c.apiKey === 18 ? { outcome: 'answered' } : { problem: `answered an unknown API key ${c.apiKey}` }
    }
    const inServedRange = c.version >= handler.minVersion && c.version <= handler.maxVersion
    if (!inServedRange) {
      if (c.apiKey === 18) return { outcome: 'answered' } // v0-form UNSUPPORTED_VERSION answer
      return { problem: `answered ${handler.request.name} v${c.version}, outside the served ${handler.minVersion}-${handler.maxVersion}` }
    }
    const r = new Reader(frame)
    const flexible = handler.response.isFlexible(c.version)
    const correlationId = decodeResponseHeader(r, responseHeaderVersion(c.apiKey, flexible))
    if (correlationId !== c.correlationId) return { problem: `correlation id ${correlationId}, expected ${c.correlationId}` }
    try {
      handler.response.decode(c.version, frame.subarray(r.pos))
    } catch (err) {
      return { problem: `the ${handler.response.name} v${c.version} response does not decode: ${(err as Error).message}` }
    }
    return { outcome: 'answered' }
  } finally {
    client.close()
  }
}

export const FUZZED_APIS = HANDLERS.length

/** The broker's count of protocol closes, from its /metrics. */
export async function protocolCloses(httpBase: string): Promise<number> {
  const text = await (await fetch(`${httpBase}/metrics`)).text()
  let total = 0
  for (const line of text.split('\n')) {
    if (line.startsWith('tributary_network_protocol_closes_total{')) total += Number(line.slice(line.lastIndexOf(' ') + 1))
  }
  return total
}

/** Samples `count` cases of the seed. */
export function sampleCases(seed: number, count: number): FuzzCase[] {
  return fc.sample(caseArb, { seed, numRuns: count })
}

export function describeCase(c: FuzzCase): Finding['case'] {
  const { bytes, ...rest } = c
  return { ...rest, hex: bytes.subarray(0, 256).toString('hex') }
}
