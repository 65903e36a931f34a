// The SCRAM messages (RFC 5802 §7) as Kafka's ScramMessages reads them, for both ends:
//   client-first  n,[a=authzid],[m=ext,]n=user,r=nonce[,ext=value]*   (gs2 flag "n" only: Kafka
//                 refuses channel binding, "p=...", and "y")
//   server-first  r=nonce,s=salt,i=iterations[,ext=value]*
//   client-final  c=base64(gs2 header),r=nonce[,ext=value]*,p=proof
//   server-final  v=signature | e=error
// Names are ASCII, with "," and "=" written =2C and =3D. Every message is checked against its
// grammar before any field is used; the regexes below are Kafka's (anchored, no nested quantifier
// that can backtrack badly on hostile input: each alternative consumes a character).
const VALUE_SAFE = '[\\x01-\\x2B\\x2D-\\x3C\\x3E-\\x7F]+'
const VALUE = '[\\x01-\\x2B\\x2D-\\x7F]+'
const PRINTABLE = '[\\x21-\\x2B\\x2D-\\x7E]+'
const SASLNAME = '(?:[\\x01-\\x2B\\x2D-\\x3C\\x3E-\\x7F]|=2C|=3D)+'
const B64 = '[a-zA-Z0-9/+]'
const BASE64 = `(?:${B64}{4})*(?:${B64}{3}=|${B64}{2}==)?`
const EXTENSIONS = `(?:,[A-Za-z]+=${VALUE})*`

const CLIENT_FIRST = new RegExp(
  `^n,(?:a=(?<authzid>${SASLNAME}))?,(?<bare>(?:m=${VALUE},)?n=(?<name>${SASLNAME}),r=(?<nonce>${PRINTABLE})(?<ext>${EXTENSIONS}))$`,
)
const SERVER_FIRST = new RegExp(`^(?:m=${VALUE},)?r=(?<nonce>${PRINTABLE}),s=(?<salt>${BASE64}),i=(?<iterations>[0-9]+)${EXTENSIONS}$`)
const CLIENT_FINAL = new RegExp(`^(?<withoutProof>c=(?<channel>${BASE64}),r=(?<nonce>${PRINTABLE})${EXTENSIONS}),p=(?<proof>${BASE64})$`)
const SERVER_FINAL = new RegExp(`^(?:e=(?<error>${VALUE_SAFE})|v=(?<signature>${BASE64})${EXTENSIONS})$`)

export class ScramFormatError extends Error {
  override name = 'ScramFormatError'
}

/** A user name as written in SCRAM: "," → =2C, "=" → =3D. */
export function toSaslName(user: string): string {
  return user.replaceAll('=', '=3D').replaceAll(',', '=2C')
}

export function fromSaslName(name: string): string {
  return name.replaceAll('=2C', ',').replaceAll('=3D', '=')
}

export interface ClientFirst {
  /** The gs2 header as sent ("n,," or "n,a=...,"). */
  gs2Header: string
  authzid: string
  user: string
  nonce: string
  /** client-first-message-bare, as sent (part of the AuthMessage). */
  bare: string
  extensions: ReadonlyMap<string, string>
}

function parseExtensions(text: string): Map<string, string> {
  const out = new Map<string, string>()
  for (const part of text.split(',')) {
    if (part === '') continue
    const eq = part.indexOf('=')
    out.set(part.slice(0, eq), part.slice(eq + 1))
  }
  return out
}

function ascii(bytes: Buffer, what: string): string {
  const text = bytes.toString('latin1')
  // Kafka's grammar is ASCII; a byte past 0x7F (or NUL) never matches it.
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0 || bytes[i]! > 0x7f) throw new ScramFormatError(`Invalid SCRAM ${what} message format`)
  }
  return text
}

export function parseClientFirst(bytes: Buffer): ClientFirst {
  const text = ascii(bytes, 'client first')
  const g = CLIENT_FIRST.exec(text)?.groups
  if (!g) throw new ScramFormatError('Invalid SCRAM client first message format')
  const authzid = g.authzid === undefined ? '' : fromSaslName(g.authzid)
  return {
    gs2Header: text.slice(0, text.length - g.bare!.length),
    authzid,
    user: fromSaslName(g.name!),
    nonce: g.nonce!,
    bare: g.bare!,
    extensions: parseExtensions(g.ext!),
  }
}

export function clientFirstBare(user: string, nonce: string): string {
  return `n=${toSaslName(user)},r=${nonce}`
}

export interface ServerFirst {
  nonce: string
  salt: Buffer
  iterations: number
  text: string
}

export function formatServerFirst(nonce: string, salt: Buffer, iterations: number): string {
  return `r=${nonce},s=${salt.toString('base64')},i=${iterations}`
}

export function parseServerFirst(bytes: Buffer): ServerFirst {
  const text = ascii(bytes, 'server first')
  const g = SERVER_FIRST.exec(text)?.groups
  const iterations = Number(g?.iterations)
  if (!g || !Number.isSafeInteger(iterations) || iterations <= 0) throw new ScramFormatError('Invalid SCRAM server first message format')
  return { nonce: g.nonce!, salt: Buffer.from(g.salt!, 'base64'), iterations, text }
}

export interface ClientFinal {
  channelBinding: Buffer
  nonce: string
  proof: Buffer
  /** client-final-message-without-proof, as sent (part of the AuthMessage). */
  withoutProof: string
}

export function parseClientFinal(bytes: Buffer): ClientFinal {
  const text = ascii(bytes, 'client final')
  const g = CLIENT_FINAL.exec(text)?.groups
  if (!g) throw new ScramFormatError('Invalid SCRAM client final message format')
  return {
    channelBinding: Buffer.from(g.channel!, 'base64'),
    nonce: g.nonce!,
    proof: Buffer.from(g.proof!, 'base64'),
    withoutProof: g.withoutProof!,
  }
}

export function clientFinalWithoutProof(gs2Header: string, nonce: string): string {
  return `c=${Buffer.from(gs2Header).toString('base64')},r=${nonce}`
}

export function authMessage(clientFirstBareText: string, serverFirstText: string, clientFinalWithoutProofText: string): string {
  return `${clientFirstBareText},${serverFirstText},${clientFinalWithoutProofText}`
}

/** The server's last word: its signature, or an error. */
export function parseServerFinal(bytes: Buffer): { signature?: Buffer; error?: string } {
  const text = ascii(bytes, 'server final')
  const g = SERVER_FINAL.exec(text)?.groups
  if (!g) throw new ScramFormatError('Invalid SCRAM server final message format')
  return g.error !== undefined ? { error: g.error } : { signature: Buffer.from(g.signature!, 'base64') }
}
