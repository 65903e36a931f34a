// SCRAM credentials in the metadata store, read by every broker (security entries of kind 'scram';
// the store tells each broker of changes and keeps its image current, so a lookup is a map read):
//   key   "<mechanism>:<user>"  e.g. "SCRAM-SHA-512:alice"
//   value {"salt":b64,"iterations":n,"storedKey":b64,"serverKey":b64}
// Never the password nor the salted password: AlterUserScramCredentials' salted password is turned
// into StoredKey and ServerKey here, as Kafka's controller does (ScramControlManager).
//
// The admin APIs' checks, with Kafka's errors and messages: UNACCEPTABLE_CREDENTIAL for an empty
// user name or iterations outside 4096..16384, UNSUPPORTED_SASL_MECHANISM for a mechanism that is
// not SCRAM-SHA-256/512, DUPLICATE_RESOURCE for a user named twice in one request,
// RESOURCE_NOT_FOUND for deleting or describing a credential that does not exist.
import type { MetadataStore } from '../../ports/metadata-store.js'
import type {
  AlterScramResult,
  DescribeScramResult,
  ScramCredentialService,
  ScramDeletion,
  ScramUpsertion,
} from '../../ports/scram-credentials.js'
import { ErrorCode } from '../../protocol/errors.js'
import {
  credentialFromSalted,
  SCRAM_MAX_ITERATIONS,
  SCRAM_MECHANISMS,
  SCRAM_MIN_ITERATIONS,
  type ScramCredential,
  type ScramMechanismParams,
  scramMechanismByType,
} from '../../protocol/sasl/scram-crypto.js'

export function scramEntryKey(mechanism: string, user: string): string {
  return `${mechanism}:${user}`
}

function encode(c: ScramCredential): string {
  return JSON.stringify({
    salt: c.salt.toString('base64'),
    iterations: c.iterations,
    storedKey: c.storedKey.toString('base64'),
    serverKey: c.serverKey.toString('base64'),
  })
}

function decode(text: string): ScramCredential | undefined {
  try {
    const v = JSON.parse(text) as Record<string, unknown>
    if (typeof v.salt !== 'string' || typeof v.storedKey !== 'string' || typeof v.serverKey !== 'string') return undefined
    if (typeof v.iterations !== 'number' || !Number.isSafeInteger(v.iterations)) return undefined
    return {
      salt: Buffer.from(v.salt, 'base64'),
      iterations: v.iterations,
      storedKey: Buffer.from(v.storedKey, 'base64'),
      serverKey: Buffer.from(v.serverKey, 'base64'),
    }
  } catch {
    return undefined
  }
}

/** A user's stored credential for a mechanism (undefined: none, or unreadable). */
export function lookupScramCredential(store: MetadataStore, m: ScramMechanismParams, user: string): ScramCredential | undefined {
  const text = store.getSecurityEntries('scram').get(scramEntryKey(m.name, user))
  return text === undefined ? undefined : decode(text)
}

const DUPLICATE = 'A user credential cannot be altered twice in the same request'

type Failure = { code: number; message: string }
const fail = (e: { code: number }, message: string): Failure => ({ code: e.code, message })

function checkUserAndMechanism(name: string, mechanism: number): Failure | ScramMechanismParams {
  if (name === '') return fail(ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Username must not be empty')
  return scramMechanismByType(mechanism) ?? fail(ErrorCode.UNSUPPORTED_SASL_MECHANISM, 'Unknown SCRAM mechanism')
}

export class StoreScramCredentials implements ScramCredentialService {
  constructor(private readonly store: MetadataStore) {}

  describe(users: readonly string[] | null): DescribeScramResult[] {
    const byUser = new Map<string, DescribeScramResult['credentialInfos']>()
    for (const [key, text] of this.store.getSecurityEntries('scram')) {
      const colon = key.indexOf(':')
      const m = SCRAM_MECHANISMS.find((x) => x.name === key.slice(0, colon))
      const c = decode(text)
      if (!m || !c) continue
      const user = key.slice(colon + 1)
      const infos = byUser.get(user) ?? []
      infos.push({ mechanism: m.type, iterations: c.iterations })
      byUser.set(user, infos)
    }
    const ok = (user: string): DescribeScramResult => ({
      user,
      errorCode: 0,
      errorMessage: null,
      credentialInfos: byUser.get(user)!.sort((a, b) => a.mechanism - b.mechanism),
    })
    if (!users || users.length === 0) return [...byUser.keys()].sort().map(ok)
    const counts = new Map<string, number>()
    for (const u of users) counts.set(u, (counts.get(u) ?? 0) + 1)
    return [...counts].map(([user, n]) => {
      if (n > 1) {
        return {
          user,
          errorCode: ErrorCode.DUPLICATE_RESOURCE.code,
          errorMessage: `Cannot describe SCRAM credentials for the same user twice in a single request: ${user}`,
          credentialInfos: [],
        }
      }
      if (!byUser.has(user)) {
        return {
          user,
          errorCode: ErrorCode.RESOURCE_NOT_FOUND.code,
          errorMessage: `Attempt to describe a user credential that does not exist: ${user}`,
          credentialInfos: [],
        }
      }
      return ok(user)
    })
  }

  async alter(deletions: readonly ScramDeletion[], upsertions: readonly ScramUpsertion[]): Promise<AlterScramResult[]> {
    // Kafka's order: deletions then upsertions; a user named twice fails as a whole.
    const errors = new Map<string, Failure>()
    const toDelete = new Map<string, ScramMechanismParams>()
    const toUpsert = new Map<string, { m: ScramMechanismParams; u: ScramUpsertion }>()
    const existing = this.store.getSecurityEntries('scram')
    for (const d of deletions) {
      if (errors.has(d.name)) continue
      if (toDelete.delete(d.name)) {
        errors.set(d.name, fail(ErrorCode.DUPLICATE_RESOURCE, DUPLICATE))
        continue
      }
      const m = checkUserAndMechanism(d.name, d.mechanism)
      if ('code' in m) errors.set(d.name, m)
      else if (!existing.has(scramEntryKey(m.name, d.name))) {
        errors.set(d.name, fail(ErrorCode.RESOURCE_NOT_FOUND, 'Attempt to delete a user credential that does not exist'))
      } else toDelete.set(d.name, m)
    }
    for (const u of upsertions) {
      if (errors.has(u.name)) continue
      if (toDelete.delete(u.name) || toUpsert.delete(u.name)) {
        errors.set(u.name, fail(ErrorCode.DUPLICATE_RESOURCE, DUPLICATE))
        continue
      }
      const m = checkUserAndMechanism(u.name, u.mechanism)
      if ('code' in m) errors.set(u.name, m)
      else if (u.iterations < SCRAM_MIN_ITERATIONS) errors.set(u.name, fail(ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too few iterations'))
      else if (u.iterations > SCRAM_MAX_ITERATIONS) errors.set(u.name, fail(ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too many iterations'))
      else toUpsert.set(u.name, { m, u })
    }
    const writes: Record<string, string | null> = {}
    for (const [name, m] of toDelete) writes[scramEntryKey(m.name, name)] = null
    for (const [name, { m, u }] of toUpsert) {
      // Copies: the request's buffers are views on a socket buffer.
      const salted = Buffer.from(u.saltedPassword)
      writes[scramEntryKey(m.name, name)] = encode(credentialFromSalted(m, salted, Buffer.from(u.salt), u.iterations))
      salted.fill(0)
    }
    if (Object.keys(writes).length > 0) await this.store.setSecurityEntries('scram', writes)
    const results: AlterScramResult[] = []
    for (const name of [...toDelete.keys(), ...toUpsert.keys()]) results.push({ user: name, errorCode: 0, errorMessage: null })
    for (const [name, f] of errors) results.push({ user: name, errorCode: f.code, errorMessage: f.message })
    return results
  }
}
