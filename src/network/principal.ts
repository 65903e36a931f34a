// Who a connection acts for: Kafka's KafkaPrincipal, a type and a name ("User:alice"). Every
// connection starts as User:ANONYMOUS; a TLS listener with client authentication sets the
// principal from the client certificate, a SASL listener from the authenticated identity. ACLs,
// quotas and super.users name principals in the "Type:name" form parsed here.

export interface KafkaPrincipal {
  readonly type: string
  readonly name: string
}

export const USER_TYPE = 'User'

export const ANONYMOUS: KafkaPrincipal = Object.freeze({ type: USER_TYPE, name: 'ANONYMOUS' })

export function userPrincipal(name: string): KafkaPrincipal {
  return Object.freeze({ type: USER_TYPE, name })
}

/** "User:alice", the form Kafka prints and ACLs store. */
export function formatPrincipal(p: KafkaPrincipal): string {
  return `${p.type}:${p.name}`
}

/** Parses "Type:name" (the name may itself contain ':'); throws on a missing type or name. */
export function parsePrincipal(text: string): KafkaPrincipal {
  const colon = text.indexOf(':')
  if (colon <= 0 || colon === text.length - 1) {
    throw new Error(`invalid principal "${text}": expected Type:name, e.g. User:alice`)
  }
  return Object.freeze({ type: text.slice(0, colon), name: text.slice(colon + 1) })
}

export function samePrincipal(a: KafkaPrincipal, b: KafkaPrincipal): boolean {
  return a.type === b.type && a.name === b.name
}
