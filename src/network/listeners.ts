// Kafka's `listeners` / `advertised.listeners` syntax, so a Kafka server.properties works as is:
//   PLAINTEXT://127.0.0.1:9092,INTERNAL://:9093,IPV6://[::1]:9094
// NAME://host:port, comma-separated. An empty host means every interface (bound as 0.0.0.0); an
// IPv6 address goes in brackets. Listener names are case-insensitive and normalised to upper case,
// as Kafka's ListenerName.normalised does. Each name maps to a security protocol through
// `listener.security.protocol.map` (NAME:PROTOCOL,...); when that property is absent the four
// protocol names map to themselves, and when it is given it replaces that default, as in Kafka.
// PLAINTEXT and SASL_PLAINTEXT are served (SASL: src/security/sasl/); SSL and SASL_SSL need TLS.

import { isIPv6 } from 'node:net'

export const SECURITY_PROTOCOLS = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'] as const
export type SecurityProtocol = (typeof SECURITY_PROTOCOLS)[number]
const SERVED: ReadonlySet<string> = new Set<SecurityProtocol>(['PLAINTEXT', 'SASL_PLAINTEXT'])

export interface ParsedListener {
  name: string
  host: string
  port: number
  securityProtocol: SecurityProtocol
}

const NAME = /^[A-Za-z0-9_-]+$/
const HOSTNAME = /^[A-Za-z0-9._-]+$/
const PORT = /^[0-9]{1,5}$/

/** Parses `listeners` (or `advertised.listeners`); throws an Error naming the bad entry. */
export function parseListeners(value: string, securityMap?: string): ParsedListener[] {
  const protocols = parseSecurityProtocolMap(securityMap)
  const entries = splitList(value)
  if (entries.length === 0) throw new Error('no listener given: expected e.g. PLAINTEXT://127.0.0.1:9092')
  const seen = new Set<string>()
  return entries.map((entry) => {
    const listener = parseEntry(entry, protocols)
    if (seen.has(listener.name)) throw new Error(`listener name ${listener.name} appears more than once in "${value}"`)
    seen.add(listener.name)
    return listener
  })
}

/** Parses `listener.security.protocol.map`; absent or blank → each protocol name maps to itself. */
export function parseSecurityProtocolMap(value?: string): Map<string, SecurityProtocol> {
  const map = new Map<string, SecurityProtocol>()
  if (value === undefined || value.trim() === '') {
    for (const p of SECURITY_PROTOCOLS) map.set(p, p)
    return map
  }
  for (const entry of splitList(value)) {
    const parts = entry.split(':')
    const name = parts[0]!.trim().toUpperCase()
    const protocol = (parts[1] ?? '').trim().toUpperCase()
    if (parts.length !== 2 || !NAME.test(name)) {
      throw new Error(`invalid listener.security.protocol.map entry "${entry}": expected LISTENER_NAME:PROTOCOL`)
    }
    if (!(SECURITY_PROTOCOLS as readonly string[]).includes(protocol)) {
      throw new Error(
        `invalid listener.security.protocol.map entry "${entry}": unknown security protocol ` +
          `"${parts[1]}" (expected one of ${SECURITY_PROTOCOLS.join(', ')})`,
      )
    }
    if (map.has(name)) throw new Error(`listener.security.protocol.map names listener ${name} more than once`)
    map.set(name, protocol as SecurityProtocol)
  }
  return map
}

function parseEntry(entry: string, protocols: Map<string, SecurityProtocol>): ParsedListener {
  const bad = (why: string) => new Error(`invalid listener "${entry}": ${why}`)
  const sep = entry.indexOf('://')
  if (sep < 0) throw bad('expected NAME://host:port')
  const name = entry.slice(0, sep).toUpperCase()
  if (!NAME.test(name)) throw bad('the listener name must be letters, digits, "_" or "-"')
  const address = entry.slice(sep + 3)

  let host: string
  let portText: string
  if (address.startsWith('[')) {
    const close = address.indexOf(']')
    if (close < 0) throw bad('missing "]" after the IPv6 address')
    host = address.slice(1, close)
    if (!isIPv6(host)) throw bad(`"${host}" is not an IPv6 address`)
    if (address[close + 1] !== ':') throw bad('expected ":port" after the IPv6 address')
    portText = address.slice(close + 2)
  } else {
    const colon = address.lastIndexOf(':')
    if (colon < 0) throw bad('missing ":port"')
    host = address.slice(0, colon)
    portText = address.slice(colon + 1)
    if (host.includes(':')) throw bad('an IPv6 address must be written in brackets, e.g. [::1]:9092')
    if (host === '') host = '0.0.0.0'
    else if (!HOSTNAME.test(host)) throw bad(`"${host}" is not a valid host name or address`)
  }
  const port = Number(portText)
  if (!PORT.test(portText) || port > 65535) throw bad(`port "${portText}" is not in 0..65535`)

  const securityProtocol = protocols.get(name)
  if (securityProtocol === undefined) {
    throw bad(`no security protocol for listener ${name}: add ${name}:PLAINTEXT to listener.security.protocol.map`)
  }
  if (!SERVED.has(securityProtocol)) {
    throw bad(`listener ${name} uses ${securityProtocol}, but only PLAINTEXT and SASL_PLAINTEXT are supported for now`)
  }
  return { name, host, port, securityProtocol }
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
}
