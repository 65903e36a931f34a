// Broker settings for the SASL tests: one SASL_PLAINTEXT listener with PLAIN users and the SCRAM
// mechanisms enabled, in Kafka's property names; SCRAM users made through our client; and helpers
// that speak the first steps of an exchange over a raw socket.
import assert from 'node:assert/strict'
import { KafkaClient } from '../../src/client/client.js'
import { upsertScramUser } from '../../src/client/scram-users.js'
import { AclPermissionType, PatternType } from '../../src/ports/authorizer.js'
import { SaslHandshakeRequest, SaslHandshakeResponse } from '../../src/protocol/messages/17-sasl-handshake.js'
import { SaslAuthenticateRequest, SaslAuthenticateResponse } from '../../src/protocol/messages/36-sasl-authenticate.js'
import { clientProof, saltedPassword, scramMechanismByName } from '../../src/protocol/sasl/scram-crypto.js'
import { authMessage, clientFinalWithoutProof, parseServerFirst } from '../../src/protocol/sasl/scram-messages.js'
import type { RawClient } from './clients.js'

export const PLAIN_USERS = { admin: 'admin-secret', alice: 'alice-secret' }

/** Kafka's PlainLoginModule JAAS text for the given users (username/password: the broker's own). */
export function plainJaas(users: Record<string, string> = PLAIN_USERS, self = 'admin'): string {
  const opts = Object.entries(users)
    .map(([u, p]) => `user_${u}="${p}"`)
    .join(' ')
  return `org.apache.kafka.common.security.plain.PlainLoginModule required username="${self}" password="${users[self]}" ${opts};`
}

/** Overrides for a broker whose only listener is SASL_PLAINTEXT with the given mechanisms. */
/** An ALLOW ACL for principal on any host, LITERAL unless another pattern type is given (for createAcls). */
export function allowAcl(
  principal: string,
  resourceType: number,
  resourceName: string,
  operation: number,
  patternType: number = PatternType.LITERAL,
) {
  return { resourceType, resourceName, patternType, principal, host: '*', operation, permissionType: AclPermissionType.ALLOW }
}

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

/** Our own client, logged in with PLAIN as the broker's admin user. */
export function adminClient(bootstrap: string, user = 'admin', password = PLAIN_USERS[user as 'admin']): Promise<KafkaClient> {
  return KafkaClient.connect({
    bootstrap: [bootstrap],
    clientId: 'it-sasl-admin',
    security: { protocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'PLAIN', username: user, password } },
  })
}

/** Creates SCRAM users (every mechanism given) through AlterUserScramCredentials. */
export async function createScramUsers(bootstrap: string, users: Record<string, string>, mechanisms: string[]): Promise<void> {
  const client = await adminClient(bootstrap)
  try {
    for (const [user, password] of Object.entries(users)) {
      for (const mechanism of mechanisms) await upsertScramUser(client, user, { mechanism, password })
    }
  } finally {
    await client.close()
  }
}

/** SaslHandshake v1 on a raw connection; asserts the broker accepts the mechanism. */
export async function rawHandshake(c: RawClient, mechanism: string): Promise<void> {
  const hs = await c.request(SaslHandshakeRequest, SaslHandshakeResponse, 1, { mechanism })
  assert.equal(hs.errorCode, 0, `handshake for ${mechanism}`)
}

/**
 * Sends a SCRAM-SHA-512 client-first on a raw connection after its handshake and computes a
 * client-final from the broker's answer (optionally with an altered nonce); the final is not sent.
 */
export async function scramClientFinal(
  c: RawClient,
  user: string,
  password: string,
  opts: { clientNonce?: string; nonce?: (n: string) => string } = {},
): Promise<{ final: Buffer }> {
  const m = scramMechanismByName('SCRAM-SHA-512')!
  const bare = `n=${user},r=${opts.clientNonce ?? 'rawclientnonce'}`
  const res = await c.request(SaslAuthenticateRequest, SaslAuthenticateResponse, 2, { authBytes: Buffer.from(`n,,${bare}`) })
  assert.equal(res.errorCode, 0, 'server-first')
  const first = parseServerFirst(res.authBytes)
  const nonce = opts.nonce ? opts.nonce(first.nonce) : first.nonce
  const withoutProof = clientFinalWithoutProof('n,,', nonce)
  const salted = saltedPassword(m, password, first.salt, first.iterations)
  const proof = clientProof(m, salted, authMessage(bare, first.text, withoutProof))
  return { final: Buffer.from(`${withoutProof},p=${proof.toString('base64')}`) }
}
