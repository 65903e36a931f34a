// The identity provider's public keys (a JWKS, RFC 7517) for OAUTHBEARER token signatures, from
// sasl.oauthbearer.jwks.endpoint.url, as Kafka's broker validator (KIP-768) gets them:
//
// - file: read when the mechanism is set up, synchronously (unreadable or not a JWKS: start-up fails
//   naming the key), and read again when its modification time or size changes (checked on each
//   use, like Kafka 4's CachedFile), so keys are rotated by replacing the file. A bad new file keeps
//   the old keys (logged).
// - http:/https: the first fetch starts when the mechanism is set up; `ready` settles with it
//   (rejecting with a ConfigError naming the key when the JWKS cannot be had, for callers that can
//   wait, as Kafka's start-up does) and authentications wait for it. Kept, fetched again every
//   sasl.oauthbearer.jwks.endpoint.refresh.ms. Each fetch retries with exponential backoff:
//   waits start at ...retry.backoff.ms and double, within a total of ...retry.backoff.max.ms
//   (Kafka's Retry). A token naming a kid the set lacks triggers one fetch at once, rate-limited as
//   Kafka's RefreshingHttpsJwks does (kids longer than 1000 characters ignored, one attempt per kid
//   per minute among the last 16 kids) and further bounded here: one fetch in flight, shared by
//   every waiting authentication, and at most one early fetch per 5 s. The response body is
//   capped (1 MiB) and the fetch times out (10 s).
//
// Keys are matched with jose's local JWKS (kid, kty, alg, use); it only resolves asymmetric keys,
// so an HMAC-signed token cannot use a public key as its secret. Nothing here logs a token.
import { type FlattenedJWSInput, type JWSHeaderParameters, type JWTVerifyGetKey, createLocalJWKSet } from 'jose'
import { readFileSync, statSync } from 'node:fs'
import { readFile, stat } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { ConfigError } from '../../config/config-values.js'
import { type Clock, systemClock } from '../../util/clock.js'
import type { Logger } from '../../util/logger.js'

export const MAX_JWKS_BYTES = 1 << 20
export const JWKS_FETCH_TIMEOUT_MS = 10_000
/** Kafka's RefreshingHttpsJwks limits for kid-triggered refreshes. */
export const MISSING_KID_MAX_LENGTH = 1000
export const MISSING_KID_CACHE_ENTRIES = 16
export const MISSING_KID_RETRY_MS = 60_000
/** Our own bound: early (kid-triggered) fetches at most this often. */
export const EARLY_REFRESH_MIN_INTERVAL_MS = 5_000

export interface JwksSourceOptions {
  url: URL
  /** The config key the URL came from, named in errors. */
  key: string
  refreshMs: number
  retryBackoffMs: number
  retryBackoffMaxMs: number
  log: Logger
  clock?: Clock
  /** HTTP fetch (tests may count requests); defaults to the global fetch. */
  fetch?: typeof fetch
}

export interface JwksSource {
  /** Settles once the first keys are had (a file: at once); rejects with a ConfigError naming the key. */
  readonly ready: Promise<void>
  /** Resolves the key for a token's protected header (jose's getKey for jwtVerify). */
  readonly getKey: JWTVerifyGetKey
  /** How many times the JWKS has been read or fetched successfully (tests, metrics). */
  readonly loads: number
  close(): void
}

type LocalSet = ReturnType<typeof createLocalJWKSet>

/** Parses a JWKS document; the message says what was wrong, never the content. */
function parseJwks(text: string): LocalSet {
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch {
    throw new Error('not JSON')
  }
  try {
    return createLocalJWKSet(doc as Parameters<typeof createLocalJWKSet>[0])
  } catch (err) {
    throw new Error(`not a JSON Web Key Set (${(err as Error).message})`)
  }
}

const isNoMatchingKey = (err: unknown) => (err as { code?: string }).code === 'ERR_JWKS_NO_MATCHING_KEY'

/** A file JWKS is read here (throwing ConfigError); an http(s) one starts its first fetch. */
export function createJwksSource(opts: JwksSourceOptions): JwksSource {
  return opts.url.protocol === 'file:' ? FileJwks.open(opts) : new HttpJwks(opts)
}

class FileJwks implements JwksSource {
  readonly ready = Promise.resolve()
  loads = 0
  private set!: LocalSet
  private version = ''
  private reading: Promise<void> | undefined

  private constructor(
    private readonly path: string,
    private readonly opts: JwksSourceOptions,
  ) {}

  static open(opts: JwksSourceOptions): FileJwks {
    const src = new FileJwks(fileURLToPath(opts.url), opts)
    try {
      const st = statSync(src.path)
      src.install(st, st.isFile() && st.size <= MAX_JWKS_BYTES ? readFileSync(src.path, 'utf8') : '')
    } catch (err) {
      const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message
      throw new ConfigError(`Cannot use the JWKS file ${src.path} given by ${opts.key}: ${why}`, opts.key, opts.url.href)
    }
    return src
  }

  readonly getKey: JWTVerifyGetKey = async (header: JWSHeaderParameters, token: FlattenedJWSInput) => {
    await this.maybeReload()
    return this.set(header, token)
  }

  close(): void {}

  private async load(): Promise<void> {
    const st = await stat(this.path)
    this.install(st, st.isFile() && st.size <= MAX_JWKS_BYTES ? await readFile(this.path, 'utf8') : '')
  }

  private install(st: { isFile(): boolean; size: number; mtimeMs: number }, text: string): void {
    if (!st.isFile()) throw new Error('not a file')
    if (st.size > MAX_JWKS_BYTES) throw new Error(`larger than ${MAX_JWKS_BYTES} bytes`)
    this.set = parseJwks(text)
    this.version = `${st.mtimeMs}:${st.size}`
    this.loads++
  }

  private async maybeReload(): Promise<void> {
    if (this.reading) return this.reading
    this.reading = (async () => {
      try {
        const st = await stat(this.path)
        if (`${st.mtimeMs}:${st.size}` === this.version) return
        await this.load()
        this.opts.log.info('JWKS file read again', { key: this.opts.key, path: this.path })
      } catch (err) {
        this.opts.log.warn('JWKS file changed but cannot be used; keeping the keys read before', {
          key: this.opts.key,
          path: this.path,
          err: (err as NodeJS.ErrnoException).code ?? (err as Error).message,
        })
      }
    })().finally(() => {
      this.reading = undefined
    })
    return this.reading
  }
}

class HttpJwks implements JwksSource {
  readonly ready: Promise<void>
  loads = 0
  private set: LocalSet | undefined
  private timer: { cancel(): void } | undefined
  private inFlight: Promise<boolean> | undefined
  private lastEarlyRefresh = -Infinity
  private closed = false
  /** kid → monotonic time before which it may not trigger another fetch (insertion order = age). */
  private readonly missingKids = new Map<string, number>()
  private readonly clock: Clock

  constructor(private readonly opts: JwksSourceOptions) {
    this.clock = opts.clock ?? systemClock
    const first = this.fetchWithRetry()
    this.inFlight = first.then(
      () => true,
      () => false,
    )
    this.ready = first
      .catch((err: Error) => {
        const e = new ConfigError(`Could not fetch the JWKS from ${opts.key} (${opts.url.href}): ${err.message}`, opts.key, opts.url.href)
        opts.log.error('OAUTHBEARER cannot fetch its JWKS; tokens are refused until it can', { key: opts.key, err: e.message })
        throw e
      })
      .finally(() => {
        this.inFlight = undefined
        this.schedule()
      })
    // Whoever does not wait for `ready` still sees the failure logged above.
    this.ready.catch(() => {})
  }

  readonly getKey: JWTVerifyGetKey = async (header: JWSHeaderParameters, token: FlattenedJWSInput) => {
    if (this.inFlight) await this.inFlight
    if (!this.set) {
      // No keys yet (the first fetch failed): one more attempt, under the same rate limit.
      if (this.mayRefreshFor(typeof header.kid === 'string' ? header.kid : '')) await this.refresh('no keys yet')
      if (!this.set) throw new Error('no JWKS has been fetched yet')
    }
    try {
      return await this.set(header, token)
    } catch (err) {
      if (!isNoMatchingKey(err) || typeof header.kid !== 'string') throw err
      // A fetch already under way is waited for by everyone; else one may start, rate-limited.
      if (this.inFlight) await this.inFlight
      else if (this.mayRefreshFor(header.kid)) await this.refresh('unknown kid')
      else throw err
      return this.set(header, token)
    }
  }

  close(): void {
    this.closed = true
    this.timer?.cancel()
  }

  private mayRefreshFor(kid: string): boolean {
    if (kid.length > MISSING_KID_MAX_LENGTH) return false
    const now = this.clock.monotonic()
    const next = this.missingKids.get(kid)
    if (next !== undefined && now < next) return false
    if (now - this.lastEarlyRefresh < EARLY_REFRESH_MIN_INTERVAL_MS) return false
    this.missingKids.delete(kid)
    this.missingKids.set(kid, now + MISSING_KID_RETRY_MS)
    while (this.missingKids.size > MISSING_KID_CACHE_ENTRIES) this.missingKids.delete(this.missingKids.keys().next().value!)
    this.lastEarlyRefresh = now
    return true
  }

  private schedule(): void {
    if (this.closed) return
    this.timer = this.clock.setTimeout(() => {
      void this.refresh('scheduled').finally(() => this.schedule())
    }, this.opts.refreshMs)
  }

  /** One fetch at a time; resolves true when new keys were installed (failures are logged). */
  private refresh(why: string): Promise<boolean> {
    this.inFlight ??= this.fetchWithRetry()
      .then(() => {
        this.opts.log.debug('JWKS fetched', { key: this.opts.key, why })
        return true
      })
      .catch((err: Error) => {
        this.opts.log.warn('JWKS fetch failed; keeping the keys fetched before', {
          key: this.opts.key,
          url: this.opts.url.href,
          err: err.message,
        })
        return false
      })
      .finally(() => {
        this.inFlight = undefined
      })
    return this.inFlight
  }

  /** Kafka's Retry: waits backoff, 2×backoff, … within a total of backoff.max.ms. */
  private async fetchWithRetry(): Promise<void> {
    const start = this.clock.monotonic()
    const end = start + this.opts.retryBackoffMaxMs
    for (let attempt = 1; ; attempt++) {
      try {
        this.set = parseJwks(await this.fetchOnce())
        this.loads++
        return
      } catch (err) {
        const wait = Math.min(this.opts.retryBackoffMs * 2 ** (attempt - 1), end - this.clock.monotonic())
        if (wait <= 0 || this.closed) throw err
        await new Promise<void>((resolve) => this.clock.setTimeout(resolve, wait))
      }
    }
  }

  private async fetchOnce(): Promise<string> {
    const res = await (this.opts.fetch ?? fetch)(this.opts.url, {
      signal: AbortSignal.timeout(JWKS_FETCH_TIMEOUT_MS),
      headers: { accept: 'application/json' },
      redirect: 'error',
    })
    if (!res.ok) throw new Error(`HTTP ${res.status}`)
    const declared = Number(res.headers.get('content-length') ?? '0')
    if (declared > MAX_JWKS_BYTES) throw new Error(`response larger than ${MAX_JWKS_BYTES} bytes`)
    const reader = res.body?.getReader()
    if (!reader) throw new Error('empty response')
    const chunks: Uint8Array[] = []
    let size = 0
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      size += value.length
      if (size > MAX_JWKS_BYTES) {
        await reader.cancel()
        throw new Error(`response larger than ${MAX_JWKS_BYTES} bytes`)
      }
      chunks.push(value)
    }
    return Buffer.concat(chunks).toString('utf8')
  }
}
