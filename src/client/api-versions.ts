// Version negotiation (KIP-35, KIP-511). On every new connection the client sends ApiVersions and
// keeps the broker's range per API key; each request then travels in the highest version that
// both our declaration (src/protocol/messages) and the broker support.
//
// KIP-511: a broker that does not know our ApiVersions version answers in the v0 layout with
// UNSUPPORTED_VERSION and its own ranges; we then retry with the highest ApiVersions version it
// lists. The error code comes first in every version, so it is read before choosing the layout
// (as Kafka's ApiVersionsResponse parsing does).
import { VERSION } from '../config/version.js'
import { ApiVersionsRequest, ApiVersionsResponse } from '../protocol/messages/18-api-versions.js'
import { ApiVersionTable, type VersionRange } from './api-version-table.js'
import { Connection, type ConnectionOptions } from './connection.js'
import { ClientError, throwIfError } from './errors.js'
import { authenticateSasl, type SaslSession } from './sasl.js'
import type { ClientSaslOptions } from './security.js'

export { ApiVersionTable, type VersionRange } from './api-version-table.js'

const UNSUPPORTED_VERSION = 35

/**
 * The last OffsetCommit and OffsetFetch versions that name topics: from v10 they are named by id
 * only (KIP-848). This client commits and fetches by name, as Kafka's classic ConsumerCoordinator
 * and its Admin do (OffsetCommitRequest.Builder.forTopicNames stops at v9).
 */
export const OFFSET_COMMIT_BY_NAME_MAX_VERSION = 9
export const OFFSET_FETCH_BY_NAME_MAX_VERSION = 9

/**
 * A new connection with its versions negotiated and, on SASL_PLAINTEXT / SASL_SSL, authenticated
 * (sasl.ts; re-authenticated before its session ends, KIP-368); closed again when either fails.
 */
export async function connectNegotiated(opts: ConnectionOptions): Promise<Connection> {
  const conn = await Connection.connect(opts)
  try {
    await negotiateApiVersions(conn)
    const security = opts.security
    if (security?.protocol.startsWith('SASL_')) {
      if (!security.sasl) throw new ClientError('INVALID_REQUEST', `security.protocol ${security.protocol} needs SASL settings`)
      keepAuthenticated(conn, security.sasl, await authenticateSasl(conn, security.sasl))
    }
  } catch (err) {
    conn.close()
    throw err
  }
  return conn
}

/**
 * KIP-368, as Kafka's clients do it: re-authenticate on the connection at a random point between
 * 85% and 95% of the session's lifetime; a failed re-authentication closes the connection.
 */
function keepAuthenticated(conn: Connection, sasl: ClientSaslOptions, session: SaslSession): void {
  if (session.sessionLifetimeMs <= 0) return
  const delayMs = session.sessionLifetimeMs * (0.85 + Math.random() * 0.1)
  const timer = setTimeout(() => {
    if (!conn.isOpen) return
    authenticateSasl(conn, sasl).then(
      (next) => keepAuthenticated(conn, sasl, next),
      () => conn.close(),
    )
  }, delayMs)
  timer.unref()
  conn.onClose(() => clearTimeout(timer))
}

/** Sends ApiVersions on a fresh connection and stores the table on it. */
export async function negotiateApiVersions(conn: Connection): Promise<ApiVersionTable> {
  let version = ApiVersionsRequest.versions.max
  for (let attempt = 0; attempt < 2; attempt++) {
    const res = await conn.send({
      apiKey: ApiVersionsRequest.apiKey,
      apiVersion: version,
      flexibleHeader: ApiVersionsRequest.isFlexible(version),
      responseHeaderVersion: 0, // always v0 for ApiVersions (KIP-511)
      encodeBody: (w) => ApiVersionsRequest.codec(version).encode(w, { clientSoftwareName: 'tributary', clientSoftwareVersion: VERSION }),
      decodeBody: (r) => {
        const errorCode = r.buf.readInt16BE(r.pos)
        return ApiVersionsResponse.codec(errorCode === UNSUPPORTED_VERSION ? 0 : version).decode(r)
      },
    })
    const ranges = new Map<number, VersionRange>()
    for (const k of res.apiKeys) ranges.set(k.apiKey, { min: k.minVersion, max: k.maxVersion })
    if (res.errorCode === UNSUPPORTED_VERSION) {
      const theirs = ranges.get(ApiVersionsRequest.apiKey)
      const next = theirs ? Math.min(theirs.max, ApiVersionsRequest.versions.max) : -1
      if (next < 0 || next >= version) break
      version = next
      continue
    }
    throwIfError(res.errorCode, `ApiVersions from ${conn.address}`)
    const table = new ApiVersionTable(ranges, new Map(res.finalizedFeatures.map((f) => [f.name, f.maxVersionLevel])))
    conn.versions = table
    return table
  }
  throw new ClientError('UNSUPPORTED_VERSION', `no ApiVersions version in common with ${conn.address}`)
}
