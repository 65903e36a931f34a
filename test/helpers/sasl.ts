// Broker settings for the SASL tests: one SASL_PLAINTEXT listener with PLAIN users and the SCRAM
// mechanisms enabled, in Kafka's property names, and helpers to speak the first steps raw.
export const PLAIN_USERS = { admin: 'admin-secret', alice: 'alice-secret' }

/** Kafka's PlainLoginModule JAAS text for the given users (username/password: the broker's own). */
export function plainJaas(users: Record<string, string> = PLAIN_USERS, self = 'admin'): string {
  const opts = Object.entries(users)
    .map(([u, p]) => `user_${u}="${p}"`)
    .join(' ')
  return `org.apache.kafka.common.security.plain.PlainLoginModule required username="${self}" password="${users[self]}" ${opts};`
}

/** Overrides for a broker whose only listener is SASL_PLAINTEXT with the given mechanisms. */
export function saslBrokerOverrides(mechanisms = ['PLAIN'], extra: Record<string, string> = {}): Record<string, string> {
  const o: Record<string, string> = {
    listeners: 'SASL_PLAINTEXT://127.0.0.1:0',
    'sasl.enabled.mechanisms': mechanisms.join(','),
    'sasl.mechanism.inter.broker.protocol': mechanisms[0]!,
    'listener.name.sasl_plaintext.plain.sasl.jaas.config': plainJaas(),
    ...extra,
  }
  return o
}
