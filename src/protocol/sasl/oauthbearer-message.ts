// The OAUTHBEARER client initial response (RFC 7628 §3.1), parsed strictly as Kafka's
// OAuthBearerClientInitialResponse does, and built for our own client:
//
//   gs2-header  = "n," [ "a=" saslname ] ","         (no channel binding: the flag is always "n")
//   message     = gs2-header %x01 *(key "=" value %x01) %x01
//   key         = 1*ALPHA                             value = 1*(%x21-7E / SP / HTAB / CR / LF)
//   auth        = "auth=" scheme 1*SP token           scheme "Bearer" (any case), token b64token
//
// saslname (RFC 5801) writes "," as "=2C" and "=" as "=3D"; the authzid is returned decoded.
// `auth` is required and is not an extension; the other pairs are SASL extensions (KIP-342), a
// repeated key keeps its last value, as Kafka's parser does. The message is bounded before it is
// looked at; nothing here ever puts the token into an error message.
//
// The server's answer to a refused token is the JSON error of RFC 7628 §3.2.2; the client then
// sends a single %x01 and the exchange fails (see oauthbearer.ts).

/** Largest client message looked at: Kafka's sasl.server.max.receive.size default (512 KiB). */
export const MAX_INITIAL_RESPONSE_BYTES = 524_288

export const KVSEP = '\x01'

export interface OAuthBearerInitialResponse {
  /** The bearer token (a JWT for Kafka's validator). */
  token: string
  /** The authorization identity, decoded; '' when absent. */
  authzid: string
  /** SASL extensions (every key=value pair but auth). */
  extensions: ReadonlyMap<string, string>
}

/** Why a client message was refused; never contains the token. */
export class OAuthBearerMessageError extends Error {
  override name = 'OAuthBearerMessageError'
}

/** RFC 5801 saslname: 1*(UTF8-char-safe / "=2C" / "=3D"), ASCII here as in Kafka's parser. */
function isSaslName(s: string): boolean {
  const rest = s.replaceAll('=2C', '').replaceAll('=3D', '')
  for (let i = 0; i < rest.length; i++) {
    const c = rest.charCodeAt(i)
    if (c < 0x01 || c > 0x7f || c === 0x2c || c === 0x3d) return false
  }
  return s.length > 0
}
const KEY = /^[A-Za-z]+$/
const VALUE = /^[\x21-\x7e \t\r\n]+$/
const AUTH = /^(\w+) +([-_~+/.a-zA-Z0-9]+=*)$/

export function parseInitialResponse(bytes: Buffer): OAuthBearerInitialResponse {
  if (bytes.length > MAX_INITIAL_RESPONSE_BYTES) throw new OAuthBearerMessageError('Invalid OAUTHBEARER client first message: too large')
  const text = bytes.toString('latin1')
  // The whole message is 7-bit: any byte above 0x7f is refused by the patterns below.
  if (!text.startsWith('n,')) throw new OAuthBearerMessageError('Invalid OAUTHBEARER client first message')
  const headerEnd = text.indexOf(',', 2)
  if (headerEnd < 0) throw new OAuthBearerMessageError('Invalid OAUTHBEARER client first message')
  const authzField = text.slice(2, headerEnd)
  let authzid = ''
  if (authzField !== '') {
    if (!authzField.startsWith('a=') || !isSaslName(authzField.slice(2))) {
      throw new OAuthBearerMessageError('Invalid OAUTHBEARER client first message')
    }
    authzid = authzField.slice(2).replaceAll('=2C', ',').replaceAll('=3D', '=')
  }
  const body = text.slice(headerEnd + 1)
  // %x01, then pairs each ended by %x01, then a final %x01.
  const inner = body.slice(1, -1)
  if (body.length < 2 || !body.startsWith(KVSEP) || !body.endsWith(KVSEP) || (inner !== '' && !inner.endsWith(KVSEP))) {
    throw new OAuthBearerMessageError('Invalid OAUTHBEARER client first message')
  }
  const pairs = inner === '' ? [] : inner.slice(0, -1).split(KVSEP)
  const props = new Map<string, string>()
  for (const pair of pairs) {
    const eq = pair.indexOf('=')
    const key = eq < 0 ? '' : pair.slice(0, eq)
    const value = eq < 0 ? '' : pair.slice(eq + 1)
    if (!KEY.test(key) || !VALUE.test(value)) throw new OAuthBearerMessageError('Invalid OAUTHBEARER client first message')
    props.set(key, value)
  }
  const auth = props.get('auth')
  if (auth === undefined) throw new OAuthBearerMessageError("Invalid OAUTHBEARER client first message: 'auth' not specified")
  props.delete('auth')
  const m = AUTH.exec(auth)
  if (!m) throw new OAuthBearerMessageError("Invalid OAUTHBEARER client first message: invalid 'auth' format")
  if (m[1]!.toLowerCase() !== 'bearer') throw new OAuthBearerMessageError('Invalid scheme in OAUTHBEARER client first message')
  return { token: m[2]!, authzid, extensions: props }
}

/** The client's initial response for `token` (RFC 7628 §3.1), with optional authzid and extensions. */
export function buildInitialResponse(token: string, authzid = '', extensions: Record<string, string> = {}): Buffer {
  const name = authzid.replaceAll('=', '=3D').replaceAll(',', '=2C')
  let kv = `auth=Bearer ${token}${KVSEP}`
  for (const [k, v] of Object.entries(extensions)) {
    if (k === 'auth' || !KEY.test(k) || !VALUE.test(v)) throw new OAuthBearerMessageError(`invalid SASL extension ${JSON.stringify(k)}`)
    kv += `${k}=${v}${KVSEP}`
  }
  return Buffer.from(`n,${name === '' ? '' : `a=${name}`},${KVSEP}${kv}${KVSEP}`, 'latin1')
}

/** RFC 7628 §3.2.2: the server's error, as Kafka's OAuthBearerSaslServer writes it. */
export function jsonErrorResponse(status: string, scope?: string, openidConfiguration?: string): string {
  let out = `{"status":"${status}"`
  if (scope !== undefined) out += `, "scope":"${scope}"`
  if (openidConfiguration !== undefined) out += `, "openid-configuration":"${openidConfiguration}"`
  return `${out}}`
}
