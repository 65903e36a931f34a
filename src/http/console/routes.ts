// The web console (console/ at the repository's root: a single-page app bundled by
// scripts/bundle.mjs into dist/console/): its files at / and /console/*, and the few reads the
// REST v3 resources do not cover, under /console/api/:
//
// - GET /console/api/topics/{topic}: partitions with leader, replicas, ISR, earliest and latest
//   offsets and size on disk, and the configs that differ from the defaults (describeTopics of
//   Tributary's client, so any broker of a cluster answers for all of it).
// - GET /console/api/topics/{topic}/messages?partition=&offset=|time=&limit=&q=: the message
//   browser. Records from one partition (or every partition) starting at an offset or at the first
//   record at or after a time (default: the last `limit` of each partition), at most `limit` (1–500,
//   default 50) matching records; `q` keeps those whose key or value, read as UTF-8, contains the
//   text. A scan stops after SCAN_LIMIT records per request, saying how far it got (`next`).
// - POST /console/api/groups/{group}/reset {topic, to: earliest|latest|<offset>}: commits that
//   position for every partition of the topic, as kafka-consumer-groups.sh --reset-offsets
//   --execute does; refused (409) while the group has members, as the tool refuses.
// - /console/api/share-groups: share groups with their lag and an offset reset (share-routes.ts).
// - /console/api/security, /console/api/acls: SCRAM users and ACLs (security-routes.ts).
//
// Records go out as the push streams send them (push/cursor.ts, recordEvent): key, value and
// header values as text when all are UTF-8, else all as base64, said by `encoding`. The files are
// read once at start; a build without them answers / with 503 saying so.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { commitOffsets, describeGroup } from '../../client/admin-groups.js'
import { listOffsets, OffsetSpec } from '../../client/admin.js'
import { describeTopics } from '../../client/admin-topics.js'
import type { KafkaClient } from '../../client/client.js'
import { type ConsumedRecord, Fetcher } from '../../client/consumer.js'
import { ClientError } from '../../client/errors.js'
import { recordEvent } from '../push/cursor.js'
import { registerSecurityRoutes } from './security-routes.js'
import { registerShareGroupRoutes, resetRequest, resetTargets } from './share-routes.js'
import type { HttpContext } from '../server.js'

const SCAN_LIMIT = 20_000
const MAX_LIMIT = 500
const POLL_WAIT_MS = 100

/** The console's files, wherever this module runs from (dist/src/http/console or a dist/bin chunk). */
function loadAssets(): Map<string, { type: string; body: Buffer }> | null {
  const roots = ['../../../console/', '../console/'].map((r) => new URL(r, import.meta.url))
  for (const root of roots) {
    try {
      const files: Array<[string, string, string]> = [
        ['/', 'index.html', 'text/html; charset=utf-8'],
        ['/console/app.js', 'app.js', 'text/javascript; charset=utf-8'],
        ['/console/app.css', 'app.css', 'text/css; charset=utf-8'],
      ]
      return new Map(files.map(([path, file, type]) => [path, { type, body: readFileSync(fileURLToPath(new URL(file, root))) }]))
    } catch {
      // not in this root
    }
  }
  return null
}

function fail(reply: FastifyReply, status: number, message: string) {
  return reply.code(status).send({ error_code: status, message })
}

function statusOf(err: unknown): number {
  if (err instanceof ClientError && err.code === 'UNKNOWN_TOPIC_OR_PARTITION') return 404
  if (err instanceof ClientError && err.code === 'GROUP_ID_NOT_FOUND') return 404
  return 500
}

interface BrowseQuery {
  partition?: string
  offset?: string
  time?: string
  limit?: string
  q?: string
}

export function registerConsole(app: FastifyInstance, deps: HttpContext): void {
  const assets = loadAssets()
  for (const path of ['/', '/console/app.js', '/console/app.css']) {
    app.get(path, async (_req, reply) => {
      const a = assets?.get(path)
      if (!a) return fail(reply, 503, 'the console is not built: run npm run build')
      return reply.type(a.type).header('cache-control', 'no-cache').send(a.body)
    })
  }

  const kafka = () => deps.clients.get('tributary-console')

  app.get<{ Params: { topic: string } }>('/console/api/topics/:topic', async (req, reply) => {
    try {
      const [t] = await describeTopics(await kafka(), [req.params.topic])
      return t
    } catch (err) {
      return fail(reply, statusOf(err), err instanceof Error ? err.message : String(err))
    }
  })

  app.get<{ Params: { topic: string }; Querystring: BrowseQuery }>('/console/api/topics/:topic/messages', async (req, reply) => {
    const q = req.query
    const limit = q.limit === undefined ? 50 : Number(q.limit)
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
      return fail(reply, 400, `limit must be an integer from 1 to ${MAX_LIMIT}`)
    const partition = q.partition === undefined || q.partition === '' ? null : Number(q.partition)
    if (partition !== null && (!Number.isInteger(partition) || partition < 0))
      return fail(reply, 400, 'partition must be a partition number')
    const offset = q.offset === undefined || q.offset === '' ? null : Number(q.offset)
    if (offset !== null && (!Number.isInteger(offset) || offset < 0)) return fail(reply, 400, 'offset must be a non-negative integer')
    const time = q.time === undefined || q.time === '' ? null : Date.parse(q.time)
    if (time !== null && Number.isNaN(time)) return fail(reply, 400, 'time must be an ISO-8601 date and time')
    try {
      return await browse(await kafka(), req.params.topic, { partition, offset, time, limit, text: q.q ?? '' })
    } catch (err) {
      return fail(reply, statusOf(err), err instanceof Error ? err.message : String(err))
    }
  })

  app.post<{ Params: { group: string }; Body: { topic?: unknown; to?: unknown } }>(
    '/console/api/groups/:group/reset',
    async (req, reply) => {
      const r = resetRequest(req.body)
      if (typeof r === 'string') return fail(reply, 400, r)
      try {
        const c = await kafka()
        const group = await describeGroup(c, req.params.group)
        if (group.members.length > 0)
          return fail(
            reply,
            409,
            `group ${req.params.group} has ${group.members.length} active members: stop them before resetting its offsets`,
          )
        const offsets = await resetTargets(c, r.topic, r.to)
        const outcomes = await commitOffsets(c, req.params.group, offsets)
        const failed = outcomes.filter((o) => o.error !== null)
        if (failed.length > 0)
          return fail(reply, 409, `commit refused: ${failed.map((f) => `${f.topic}-${f.partition} ${f.error}`).join(', ')}`)
        return { group: req.params.group, topic: r.topic, offsets: offsets.map(({ partition, offset }) => ({ partition, offset })) }
      } catch (err) {
        return fail(reply, statusOf(err), err instanceof Error ? err.message : String(err))
      }
    },
  )

  registerShareGroupRoutes(app, { kafka, fail, statusOf })
  registerSecurityRoutes(app, { kafka, fail, statusOf })
}

interface Browse {
  partition: number | null
  offset: number | null
  time: number | null
  limit: number
  text: string
}

/** The message browser's read: see the header. */
async function browse(client: KafkaClient, topic: string, b: Browse) {
  const [earliest, latest] = await Promise.all([
    listOffsets(client, topic, b.partition === null ? null : [b.partition], OffsetSpec.Earliest),
    listOffsets(client, topic, b.partition === null ? null : [b.partition], OffsetSpec.Latest),
  ])
  if (b.partition !== null && !latest.has(b.partition)) throw new ClientError('UNKNOWN_TOPIC_OR_PARTITION', `${topic}-${b.partition}`)
  const atTime = b.time === null ? null : await listOffsets(client, topic, [...latest.keys()], b.time)
  const starts = [...latest.keys()]
    .sort((x, y) => x - y)
    .map((p) => {
      const lo = earliest.get(p) ?? 0
      const hi = latest.get(p) ?? lo
      let start = b.offset ?? (atTime ? (atTime.get(p) ?? -1) : Math.max(lo, hi - b.limit))
      if (start < 0 || start > hi) start = hi
      return { topic, partition: p, offset: Math.max(start, lo), end: hi }
    })
  const fetcher = new Fetcher(client, { autoOffsetReset: 'earliest', maxWaitMs: POLL_WAIT_MS })
  const open = starts.filter((s) => s.offset < s.end)
  fetcher.assign(open)
  const found: ConsumedRecord[] = []
  const needle = b.text.toLowerCase()
  let scanned = 0
  const done = new Set<number>()
  while (done.size < open.length && found.length < b.limit && scanned < SCAN_LIMIT) {
    for (const p of await fetcher.poll()) {
      const end = open.find((s) => s.partition === p.partition)!.end
      for (const r of p.records) {
        if (r.offset >= end) break
        scanned++
        if (needle === '' || matches(r, needle)) found.push(r)
      }
      if (p.nextOffset >= end) done.add(p.partition)
    }
    for (const s of open) if ((fetcher.position(topic, s.partition) ?? s.end) >= s.end) done.add(s.partition)
  }
  found.sort((x, y) => x.timestamp - y.timestamp || x.partition - y.partition || x.offset - y.offset)
  return {
    topic,
    partitions: starts.map((s) => ({ partition: s.partition, earliest: earliest.get(s.partition) ?? 0, latest: s.end })),
    scanned,
    complete: done.size === open.length,
    next: open.map((s) => ({ partition: s.partition, offset: fetcher.position(topic, s.partition) ?? s.end })),
    records: found.slice(0, b.limit).map(recordEvent),
  }
}

function matches(r: ConsumedRecord, needle: string): boolean {
  return (
    (r.key?.toString('utf8').toLowerCase().includes(needle) ?? false) || (r.value?.toString('utf8').toLowerCase().includes(needle) ?? false)
  )
}
