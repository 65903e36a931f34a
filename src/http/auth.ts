// Who an HTTP request acts for, and the Kafka clients it reaches the broker with.
//
// With tributary.http.authentication=basic every request must carry `Authorization: Basic`
// with a Kafka user and password; the HTTP routes then reach Kafka as that user (SASL on the
// broker's SASL listener, broker.ts chooses it), so the user's authentication, ACLs and quotas are
// exactly the Kafka ones — the HTTP layer decides nothing itself. A request without credentials,
// or whose credentials the broker refuses, is answered 401 with `WWW-Authenticate: Basic` (the
// browser then asks for them, the console included). With `none`, requests act as the listener
// lets anonymous clients act (User:ANONYMOUS).
//
// The user travels with the request's asynchronous work (AsyncLocalStorage, entered in the
// onRequest hook), so every module's client calls — a REST route, a push stream's readers — pick
// the requesting user's clients without passing it around. Clients are pooled per user (and
// password digest: another password is another login) and client id; a pool entry unused for
// IDLE_MS is closed, one older than MAX_AGE_MS logs in anew (a changed password stops working),
// at most MAX_CLIENTS are kept, and logins that fail are not kept. Passwords are
// never logged; the pool keys hold a digest only.
import { AsyncLocalStorage } from 'node:async_hooks'
import { createHash } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { KafkaClient, type KafkaClientOptions } from '../client/client.js'
import { ClientError } from '../client/errors.js'
import type { Logger } from '../util/logger.js'

export interface HttpUser {
  readonly username: string
  readonly password: string
  /** The SASL mechanism this user logs in with (the first of the candidates the broker accepted). */
  readonly mechanism?: string
}

const requestUser = new AsyncLocalStorage<HttpUser | null>()

/** The user of the request being served; null without authentication. */
export function currentUser(): HttpUser | null {
  return requestUser.getStore() ?? null
}

/** A key naming the current user (and password digest) apart from every other; '' when anonymous. */
export function userKey(): string {
  const user = currentUser()
  return user === null ? '' : `${user.username}\u0000${digest(user.password)}\u0000${user.mechanism ?? ''}`
}

/** Runs fn as `user` (for work started outside a request, e.g. tests). */
export function runAs<T>(user: HttpUser | null, fn: () => T): T {
  return requestUser.run(user, fn)
}

/** Parses `Authorization: Basic base64(user:password)`; undefined when absent or malformed. */
export function parseBasic(header: string | undefined): HttpUser | undefined {
  const m = header === undefined ? null : /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header)
  if (!m) return undefined
  const text = Buffer.from(m[1]!, 'base64').toString('utf8')
  const colon = text.indexOf(':')
  if (colon <= 0) return undefined
  return { username: text.slice(0, colon), password: text.slice(colon + 1) }
}

const IDLE_MS = 5 * 60_000
const MAX_CLIENTS = 256
const AUTH_CLIENT_ID = 'tributary-http'

/** The SASL answers that mean the credentials were refused. */
const REFUSED: ReadonlySet<string> = new Set(['SASL_AUTHENTICATION_FAILED', 'UNSUPPORTED_SASL_MECHANISM', 'ILLEGAL_SASL_STATE'])

export function isLoginRefused(err: unknown): boolean {
  return err instanceof ClientError && REFUSED.has(err.code)
}

/** How many users' working mechanism is remembered (a bounded memo: a login found once is not searched again). */
const MAX_REMEMBERED = 1024

interface Pooled {
  client: Promise<KafkaClient>
  createdAt: number
  lastUsed: number
}

/**
 * A pooled client logs in again (a new client) once this old, however busy: a changed or deleted
 * password stops working over HTTP within this time, as a Kafka connection stops at its next
 * re-authentication (KIP-368).
 */
const MAX_AGE_MS = 5 * 60_000
/** How long a client past MAX_AGE_MS stays open for the requests already using it. */
const RETIRE_MS = 60_000

/** Kafka clients of the HTTP modules, per user and client id. */
export class HttpClients {
  private readonly pool = new Map<string, Pooled>()
  private readonly sweeper: NodeJS.Timeout
  /** user and password digest → the mechanism that logged them in. */
  private readonly working = new Map<string, string>()

  constructor(
    /** The options of a client acting for the user (null: anonymous). */
    private readonly optionsFor: (clientId: string, user: HttpUser | null) => KafkaClientOptions,
    private readonly logger: Logger,
    /** The SASL mechanisms a user may log in with, tried in this order (auth=basic). */
    private readonly mechanisms: readonly string[] = [],
  ) {
    this.sweeper = setInterval(() => this.sweep(), IDLE_MS / 5)
    this.sweeper.unref()
  }

  /** Options for a client of the current request's user (a push stream's own readers). */
  options(clientId: string): KafkaClientOptions {
    return this.optionsFor(clientId, currentUser())
  }

  /** The pooled client of the current request's user. */
  get(clientId: string): Promise<KafkaClient> {
    const user = currentUser()
    const key = `${clientId}\u0000${userKey()}`
    let entry = this.pool.get(key)
    if (entry && Date.now() - entry.createdAt > MAX_AGE_MS) {
      this.pool.delete(key)
      // Requests still using the old client finish first.
      const old = entry.client
      setTimeout(() => void old.then((c) => c.close()).catch(() => {}), RETIRE_MS).unref()
      entry = undefined
    }
    if (!entry) {
      if (this.pool.size >= MAX_CLIENTS) this.evictOldest()
      const client = KafkaClient.connect(this.optionsFor(clientId, user))
      const created: Pooled = { client, createdAt: Date.now(), lastUsed: Date.now() }
      entry = created
      this.pool.set(key, created)
      client.catch(() => {
        if (this.pool.get(key) === created) this.pool.delete(key)
      })
    }
    entry.lastUsed = Date.now()
    return entry.client
  }

  /**
   * Logs a user in: with the mechanism that worked for them before, else each candidate in turn
   * (a PLAIN user of the listener's JAAS config, or a SCRAM user of the metadata store). The user
   * with the mechanism that worked; a refusal (isLoginRefused) when none did.
   */
  async login(user: HttpUser): Promise<HttpUser> {
    const who = `${user.username}\u0000${digest(user.password)}`
    const known = this.working.get(who)
    const order = known !== undefined ? [known, ...this.mechanisms.filter((m) => m !== known)] : this.mechanisms
    let refusal: unknown = new ClientError('SASL_AUTHENTICATION_FAILED', 'no SASL mechanism to log in with')
    for (const mechanism of order.length > 0 ? order : [undefined]) {
      const candidate: HttpUser = mechanism === undefined ? user : { ...user, mechanism }
      try {
        await runAs(candidate, () => this.get(AUTH_CLIENT_ID))
        if (mechanism !== undefined && known !== mechanism) {
          if (this.working.size >= MAX_REMEMBERED) this.working.delete(this.working.keys().next().value!)
          this.working.set(who, mechanism)
        }
        return candidate
      } catch (err) {
        if (!isLoginRefused(err)) throw err
        refusal = err
      }
    }
    throw refusal
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper)
    const all = [...this.pool.values()]
    this.pool.clear()
    await Promise.all(all.map(async (e) => (await e.client.catch(() => null))?.close()))
  }

  private sweep(): void {
    const cutoff = Date.now() - IDLE_MS
    for (const [key, e] of this.pool) {
      if (e.lastUsed >= cutoff) continue
      this.pool.delete(key)
      void e.client.then((c) => c.close()).catch(() => {})
    }
  }

  private evictOldest(): void {
    let oldest: [string, Pooled] | undefined
    for (const kv of this.pool) if (!oldest || kv[1].lastUsed < oldest[1].lastUsed) oldest = kv
    if (!oldest) return
    this.pool.delete(oldest[0])
    this.logger.debug('HTTP client pool full: closing the least recently used client')
    void oldest[1].client.then((c) => c.close()).catch(() => {})
  }
}

function digest(password: string): string {
  return createHash('sha256').update(password).digest('base64url')
}

export const BASIC_CHALLENGE = ['www-authenticate', 'Basic realm="tributary", charset="UTF-8"'] as const

/**
 * The user of an Authorization header under a mode: null (anonymous) with `none`; with `basic`
 * the user once the broker accepted the login, else 'missing' (no or a malformed header) or
 * 'refused'. Other failures (the broker unreachable) are thrown.
 */
export async function authenticate(
  header: string | undefined,
  mode: 'none' | 'basic',
  clients: HttpClients,
): Promise<HttpUser | null | 'missing' | 'refused'> {
  if (mode === 'none') return null
  const user = parseBasic(header)
  if (!user) return 'missing'
  try {
    return await clients.login(user)
  } catch (err) {
    if (isLoginRefused(err)) return 'refused'
    throw err
  }
}

/** The onRequest hook of tributary.http.authentication=basic (and the user context of every request). */
export function registerAuthentication(app: FastifyInstance, mode: 'none' | 'basic', clients: HttpClients, logger: Logger): void {
  app.addHook('onRequest', (req, reply, done) => {
    if (mode === 'none') {
      requestUser.run(null, done)
      return
    }
    const user = parseBasic(req.headers.authorization)
    const refuse = (message: string) => {
      void reply
        .code(401)
        .header(...BASIC_CHALLENGE)
        .send({ error_code: 40101, message })
    }
    if (!user) {
      refuse('Authentication required: send Authorization: Basic with a Kafka user and password')
      return
    }
    clients.login(user).then(
      (loggedIn) => requestUser.run(loggedIn, done),
      (err: unknown) => {
        if (isLoginRefused(err)) {
          logger.info('HTTP login refused', { user: user.username, remote: req.ip })
          refuse(`Authentication failed for user ${user.username}`)
        } else {
          done(err instanceof Error ? err : new Error(String(err)))
        }
      },
    )
  })
}
