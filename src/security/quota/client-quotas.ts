// The broker's client quotas: the entities kept in the metadata store (kind 'quota', see
// entity.ts), followed through the store's change events so every broker applies an alteration
// made on any of them, and the measures requests are throttled by.
//
// Which quota applies to a request (Kafka's DefaultQuotaCallback, per quota key), first found:
//   1 /config/users/<user>/clients/<client-id>   5 /config/users/<default>/clients/<default>
//   2 /config/users/<user>/clients/<default>     6 /config/users/<default>
//   3 /config/users/<user>                       7 /config/clients/<client-id>
//   4 /config/users/<default>/clients/<client-id> 8 /config/clients/<default>
// The measure is kept per (user, client-id) as the matched level names them — a default quota
// limits each user or client on its own, a user quota all of that user's clients together — as
// Kafka's quota metric tags do. ip entities give connection_creation_rate per address, the
// address's own entity first, then the default ip.
//
// Bounded memory: a measure idle for samples × window is as good as new, so idle ones are swept
// once per such span; a client that cycles client ids costs at most one span's worth of them.
import { lookup } from 'node:dns/promises'
import { isIP, isIPv4 } from 'node:net'
import { KafkaError, toErrorCode } from '../../protocol/errors.js'
import type { MetadataStore } from '../../ports/metadata-store.js'
import type {
  MeasuredQuota,
  MutationQuota,
  QuotaAlteration,
  QuotaAlterResult,
  QuotaEntry,
  QuotaFilterComponent,
  QuotaService,
} from '../../ports/quotas.js'
import type { KafkaPrincipal } from '../../network/principal.js'
import type { Clock } from '../../util/clock.js'
import type { Logger } from '../../util/logger.js'
import {
  checkQuotaValue,
  entityKey,
  entityParts,
  formatEntity,
  matchesFilter,
  parseEntity,
  parseEntityKey,
  parseFilter,
  parseValues,
  type QuotaEntity,
  type QuotaValues,
} from './entity.js'
import { SampledRate, TokenBucket } from './rate.js'

/** Kafka's isValidIpEntity: an address, or a name that resolves. */
async function checkIpEntity(ip: string): Promise<void> {
  if (isIP(ip) !== 0) return
  try {
    await lookup(ip)
  } catch {
    throw new KafkaError('INVALID_REQUEST', `${ip} is not a valid IP or resolvable host.`)
  }
}

export interface QuotaWindows {
  /** quota.window.num */
  samples: number
  /** quota.window.size.seconds × 1000 */
  windowMs: number
  /** controller.quota.window.num */
  controllerSamples: number
  /** controller.quota.window.size.seconds × 1000 */
  controllerWindowMs: number
}

const KEY_OF: Record<MeasuredQuota | 'controller_mutation', string> = {
  produce: 'producer_byte_rate',
  fetch: 'consumer_byte_rate',
  request: 'request_percentage',
  controller_mutation: 'controller_mutation_rate',
}

/** A request's handler milliseconds as Kafka counts request time: percent of one thread per second. */
const MS_TO_PERCENT = 100 / 1000

type Store = Pick<MetadataStore, 'getSecurityEntries' | 'setSecurityEntries' | 'onChange'>

interface Resolved {
  quota: number
  /** The measure's identity: the user and client id as the matched level names them. */
  tags: string
}

export class ClientQuotas implements QuotaService {
  private readonly entities = new Map<string, { entity: QuotaEntity; values: QuotaValues }>()
  private readonly rates = new Map<string, SampledRate>()
  private readonly buckets = new Map<string, TokenBucket>()
  private lastSweepMs: number
  /** Whether any user or client-id entity exists (no lookups per request otherwise). */
  private clientQuotas = false

  constructor(
    private readonly store: Store,
    private readonly windows: QuotaWindows,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {
    for (const [key, text] of store.getSecurityEntries('quota')) this.load(key, text)
    this.refreshFlags()
    store.onChange((c) => {
      if (c.kind !== 'security' || c.entry !== 'quota') return
      this.load(c.key, store.getSecurityEntries('quota').get(c.key))
      this.refreshFlags()
    })
    this.lastSweepMs = clock.monotonic()
  }

  describe(components: readonly QuotaFilterComponent[], strict: boolean): QuotaEntry[] {
    const filter = parseFilter(components, strict)
    const out: QuotaEntry[] = []
    for (const { entity, values } of this.entities.values()) {
      if (!matchesFilter(entity, filter)) continue
      out.push({ entity: entityParts(entity), values: Object.entries(values).map(([key, value]) => ({ key, value })) })
    }
    return out
  }

  async alter(entries: readonly QuotaAlteration[], validateOnly: boolean): Promise<QuotaAlterResult[]> {
    const results: QuotaAlterResult[] = []
    const writes: Record<string, string | null> = {}
    const seen = new Set<string>()
    for (const e of entries) {
      const result: QuotaAlterResult = { entity: e.entity, errorCode: 0, errorMessage: null }
      results.push(result)
      try {
        const entity = parseEntity(e.entity)
        if (typeof entity.ip === 'string') await checkIpEntity(entity.ip)
        const key = entityKey(entity)
        if (seen.has(key)) throw new KafkaError('INVALID_REQUEST', `Ignoring duplicate entity ${formatEntity(entity)}`)
        seen.add(key)
        const next: Record<string, number> = { ...this.entities.get(key)?.values }
        const keys = new Set<string>()
        for (const op of e.ops) {
          if (keys.has(op.key)) {
            throw new KafkaError(
              'INVALID_REQUEST',
              `Duplicate quota key ${op.key} not updating quota for this entity ${formatEntity(entity)}`,
            )
          }
          keys.add(op.key)
          if (op.remove) {
            delete next[op.key]
          } else {
            checkQuotaValue(entity, op.key, op.value)
            next[op.key] = op.value
          }
        }
        if (Object.keys(next).length > 0) writes[key] = JSON.stringify(next)
        else if (this.entities.has(key)) writes[key] = null
      } catch (err) {
        result.errorCode = toErrorCode(err)
        result.errorMessage = err instanceof Error ? err.message : String(err)
      }
    }
    if (!validateOnly && Object.keys(writes).length > 0) {
      await this.store.setSecurityEntries('quota', writes)
      // The change events load them too; loading now makes a describe right after see them.
      for (const [key, text] of Object.entries(writes)) this.load(key, text ?? undefined)
      this.refreshFlags()
    }
    return results
  }

  record(type: MeasuredQuota, principal: KafkaPrincipal, clientId: string, value: number): number {
    if (!this.clientQuotas) return 0
    const r = this.resolve(KEY_OF[type], principal.name, clientId)
    if (r === undefined) return 0
    const now = this.clock.monotonic()
    const rate = this.rate(`${type}|${r.tags}`, now)
    rate.record(type === 'request' ? value * MS_TO_PERCENT : value, now)
    const throttle = rate.throttleMs(r.quota, now)
    // Kafka's ClientRequestQuotaManager bounds a request-time throttle to one window.
    return type === 'request' ? Math.min(throttle, this.windows.windowMs) : throttle
  }

  unrecord(type: MeasuredQuota, principal: KafkaPrincipal, clientId: string, value: number): void {
    const r = this.clientQuotas ? this.resolve(KEY_OF[type], principal.name, clientId) : undefined
    if (r === undefined) return
    const now = this.clock.monotonic()
    this.rate(`${type}|${r.tags}`, now).record(-value, now)
  }

  fetchBytesCap(principal: KafkaPrincipal, clientId: string): number {
    const r = this.clientQuotas ? this.resolve(KEY_OF.fetch, principal.name, clientId) : undefined
    if (r === undefined) return Infinity
    // Kafka's getMaxValueInQuotaWindow: the quota over samples − 1 windows.
    return Math.floor((r.quota * (this.windows.samples - 1) * this.windows.windowMs) / 1000)
  }

  mutationQuota(principal: KafkaPrincipal, clientId: string, strict: boolean): MutationQuota {
    const r = this.clientQuotas ? this.resolve(KEY_OF.controller_mutation, principal.name, clientId) : undefined
    if (r === undefined) return { admit: () => true, record: () => {}, throttleMs: () => 0 }
    const bucket = this.bucket(r.tags)
    const clock = this.clock
    let earnedMs = 0
    let earnedAtMs = 0
    const earn = (ms: number, now: number) => {
      if (ms <= 0) return
      earnedMs = ms
      earnedAtMs = now
    }
    return {
      admit(): boolean {
        if (!strict) return true
        const now = clock.monotonic()
        const exhausted = bucket.throttleMs(r.quota, now)
        earn(exhausted, now)
        return exhausted === 0
      },
      record(count: number): void {
        const now = clock.monotonic()
        bucket.record(count, r.quota, now)
        // Strict: taking the bucket below zero does not throttle; the next mutation is refused.
        if (!strict) earn(bucket.throttleMs(r.quota, now), now)
      },
      // Less the time since it was earned, as Kafka's AbstractControllerMutationQuota.
      throttleMs: () => Math.max(0, earnedMs - (clock.monotonic() - earnedAtMs)),
    }
  }

  /** connection_creation_rate (KIP-612): 0 to accept a connection from `ip`, else how long it is over. */
  admitConnection(address: string): number {
    // An IPv4 client on a dual-stack listener is seen as ::ffff:a.b.c.d; its entity is a.b.c.d.
    const ip = address.startsWith('::ffff:') && isIPv4(address.slice(7)) ? address.slice(7) : address
    const own = this.entities.get(entityKey({ ip }))?.values.connection_creation_rate
    const quota = own ?? this.entities.get(entityKey({ ip: null }))?.values.connection_creation_rate
    if (quota === undefined) return 0
    const now = this.clock.monotonic()
    const rate = this.rate(`connection|${ip}`, now)
    rate.record(1, now)
    const throttle = rate.throttleMs(quota, now)
    // A refused connection is not counted (Kafka's ConnectionQuotas unrecords it).
    if (throttle > 0) rate.record(-1, now)
    return throttle
  }

  private resolve(key: string, user: string, clientId: string): Resolved | undefined {
    const levels: Array<[QuotaEntity, string, string]> = [
      [{ user, 'client-id': clientId }, user, clientId],
      [{ user, 'client-id': null }, user, clientId],
      [{ user }, user, ''],
      [{ user: null, 'client-id': clientId }, user, clientId],
      [{ user: null, 'client-id': null }, user, clientId],
      [{ user: null }, user, ''],
      [{ 'client-id': clientId }, '', clientId],
      [{ 'client-id': null }, '', clientId],
    ]
    for (const [entity, u, c] of levels) {
      const quota = this.entities.get(entityKey(entity))?.values[key]
      if (quota !== undefined) return { quota, tags: JSON.stringify([u, c]) }
    }
    return undefined
  }

  private rate(id: string, now: number): SampledRate {
    this.sweep(now)
    let rate = this.rates.get(id)
    if (rate === undefined) {
      rate = new SampledRate(this.windows.samples, this.windows.windowMs)
      this.rates.set(id, rate)
    }
    return rate
  }

  private bucket(tags: string): TokenBucket {
    this.sweep(this.clock.monotonic())
    let bucket = this.buckets.get(tags)
    if (bucket === undefined) {
      bucket = new TokenBucket(this.windows.controllerSamples, this.windows.controllerWindowMs)
      this.buckets.set(tags, bucket)
    }
    return bucket
  }

  private sweep(now: number): void {
    const spanMs = this.windows.samples * this.windows.windowMs
    const bucketSpanMs = this.windows.controllerSamples * this.windows.controllerWindowMs
    if (now - this.lastSweepMs < Math.min(spanMs, bucketSpanMs)) return
    this.lastSweepMs = now
    for (const [id, rate] of this.rates) if (now - rate.lastEventMs() >= spanMs) this.rates.delete(id)
    for (const [id, bucket] of this.buckets) if (now - bucket.lastEventMs >= bucketSpanMs) this.buckets.delete(id)
  }

  private load(key: string, text: string | undefined): void {
    if (text === undefined) {
      this.entities.delete(key)
      return
    }
    const entity = parseEntityKey(key)
    const values = parseValues(text)
    if (entity === undefined || values === undefined) {
      this.log.warn('skipping an unreadable client quota entry', { key })
      return
    }
    this.entities.set(key, { entity, values })
  }

  private refreshFlags(): void {
    this.clientQuotas = [...this.entities.values()].some((e) => !('ip' in e.entity))
  }
}
