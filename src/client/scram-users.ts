// SCRAM users through the admin APIs (KIP-554), as Kafka's Admin.alterUserScramCredentials and
// describeUserScramCredentials: the password is salted here, on the client (Hi(password, salt, i)
// with a fresh random salt), and only the salted password travels; the broker keeps StoredKey and
// ServerKey. Per-user errors come back as ClientErrors with the broker's code.
import {
  AlterUserScramCredentialsRequest,
  type AlterUserScramCredentialsRequestData,
  AlterUserScramCredentialsResponse,
} from '../protocol/messages/51-alter-user-scram-credentials.js'
import {
  DescribeUserScramCredentialsRequest,
  DescribeUserScramCredentialsResponse,
} from '../protocol/messages/50-describe-user-scram-credentials.js'
import {
  newSalt,
  SCRAM_DEFAULT_ITERATIONS,
  SCRAM_MECHANISMS,
  saltedPassword,
  scramMechanismByName,
  scramMechanismByType,
} from '../protocol/sasl/scram-crypto.js'
import type { KafkaClient } from './client.js'
import { ClientError, throwIfError } from './errors.js'

export interface ScramUserInfo {
  user: string
  credentials: { mechanism: string; iterations: number }[]
}

function mechanismOf(name: string) {
  const m = scramMechanismByName(name)
  if (!m) {
    throw new ClientError(
      'UNSUPPORTED_SASL_MECHANISM',
      `${name} is not a SCRAM mechanism (expected ${SCRAM_MECHANISMS.map((x) => x.name).join(' or ')})`,
    )
  }
  return m
}

async function alter(client: KafkaClient, body: AlterUserScramCredentialsRequestData) {
  const res = await client.request(AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse, body)
  for (const r of res.results) throwIfError(r.errorCode, `user ${r.user}`, r.errorMessage)
}

/** Creates or replaces a user's credential for one SCRAM mechanism. */
export async function upsertScramUser(
  client: KafkaClient,
  user: string,
  opts: { mechanism: string; password: string; iterations?: number },
): Promise<void> {
  const m = mechanismOf(opts.mechanism)
  const iterations = opts.iterations ?? SCRAM_DEFAULT_ITERATIONS
  const salt = newSalt(m)
  const salted = saltedPassword(m, opts.password, salt, iterations)
  try {
    await alter(client, { deletions: [], upsertions: [{ name: user, mechanism: m.type, iterations, salt, saltedPassword: salted }] })
  } finally {
    salted.fill(0)
  }
}

/** Deletes a user's credential for one SCRAM mechanism (RESOURCE_NOT_FOUND when it has none). */
export async function deleteScramUser(client: KafkaClient, user: string, mechanism: string): Promise<void> {
  await alter(client, { deletions: [{ name: user, mechanism: mechanismOf(mechanism).type }], upsertions: [] })
}

/** The users with SCRAM credentials (all, or the named ones) and their mechanisms and iterations. */
export async function describeScramUsers(client: KafkaClient, users?: string[]): Promise<ScramUserInfo[]> {
  const res = await client.request(DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse, {
    users: users && users.length > 0 ? users.map((name) => ({ name })) : null,
  })
  throwIfError(res.errorCode, 'DescribeUserScramCredentials', res.errorMessage)
  return res.results.map((r) => {
    throwIfError(r.errorCode, `user ${r.user}`, r.errorMessage)
    return {
      user: r.user,
      credentials: r.credentialInfos.map((c) => ({
        mechanism: scramMechanismByType(c.mechanism)?.name ?? `type ${c.mechanism}`,
        iterations: c.iterations,
      })),
    }
  })
}
