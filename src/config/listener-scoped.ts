// Kafka's listener-prefixed broker configs: `listener.name.<listener>.<key>` sets a key for one
// listener, and `listener.name.<listener>.<mechanism>.<key>` for one SASL mechanism on it (the
// mechanism in lower case, e.g. listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config), as
// Kafka's ListenerName.configPrefix and saslMechanismConfigPrefix spell them. The value is parsed
// and checked as the base key's (so a bad value names the prefixed key); the most specific one set
// wins: listener and mechanism, then listener, then the key itself.
import type { ConfigKeyDef } from './config-key.js'
import { brokerConfigDef } from './config-values.js'

const PREFIX = 'listener.name.'

export interface ListenerScopedKey {
  /** Upper case, as listener names are normalised. */
  listener: string
  /** Upper case (the SASL name), when the key is mechanism-scoped. */
  mechanism?: string
  /** The base broker key. */
  def: ConfigKeyDef
}

/** Splits a listener-prefixed key; undefined when it is not one or its base key is unknown. */
export function parseListenerScopedKey(key: string): ListenerScopedKey | undefined {
  if (!key.startsWith(PREFIX)) return undefined
  const rest = key.slice(PREFIX.length)
  const dot = rest.indexOf('.')
  if (dot <= 0) return undefined
  const listener = rest.slice(0, dot).toUpperCase()
  const tail = rest.slice(dot + 1)
  const direct = brokerConfigDef(tail)
  if (direct) return { listener, def: direct }
  const dot2 = tail.indexOf('.')
  const def = dot2 > 0 ? brokerConfigDef(tail.slice(dot2 + 1)) : undefined
  return def ? { listener, mechanism: tail.slice(0, dot2).toUpperCase(), def } : undefined
}

/** The prefixed key for a listener (and mechanism). */
export function listenerScopedKey(listener: string, name: string, mechanism?: string): string {
  return `${PREFIX}${listener.toLowerCase()}.${mechanism ? `${mechanism.toLowerCase()}.` : ''}${name}`
}

/**
 * The definition of a broker key, listener-prefixed ones included (named by their full key and
 * parsed as their base key); undefined for an unknown name.
 */
export function brokerKeyDef(name: string): ConfigKeyDef | undefined {
  const direct = brokerConfigDef(name)
  if (direct) return direct
  const scoped = parseListenerScopedKey(name)?.def
  return scoped && { ...scoped, name }
}
