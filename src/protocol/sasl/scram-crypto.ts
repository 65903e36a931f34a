// The arithmetic of SCRAM (RFC 5802, with SHA-256 and SHA-512 as RFC 7677 and Kafka use), shared by
// the broker (scram.ts), the client library (client/sasl.ts) and the credential admin
// (scram-credentials.ts, the CLI's `user create`):
//   SaltedPassword = Hi(password, salt, i)          (PBKDF2 with HMAC-H)
//   ClientKey = HMAC(SaltedPassword, "Client Key")  StoredKey = H(ClientKey)
//   ServerKey = HMAC(SaltedPassword, "Server Key")
//   ClientProof = ClientKey XOR HMAC(StoredKey, AuthMessage)
//   ServerSignature = HMAC(ServerKey, AuthMessage)
// Only StoredKey and ServerKey (with the salt and iteration count) are ever stored; the password and
// the salted password never are. Kafka's limits: 4096 to 16384 iterations (ScramMechanism's minimum,
// the controller's maximum).
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto'

export interface ScramMechanismParams {
  /** The SASL name. */
  name: 'SCRAM-SHA-256' | 'SCRAM-SHA-512'
  /** Kafka's ScramMechanism type in the credential APIs (DescribeUserScramCredentials, AlterUserScramCredentials). */
  type: 1 | 2
  hash: 'sha256' | 'sha512'
  /** Digest size in bytes. */
  keyBytes: 32 | 64
}

export const SCRAM_MECHANISMS: readonly ScramMechanismParams[] = [
  { name: 'SCRAM-SHA-256', type: 1, hash: 'sha256', keyBytes: 32 },
  { name: 'SCRAM-SHA-512', type: 2, hash: 'sha512', keyBytes: 64 },
]

export const SCRAM_MIN_ITERATIONS = 4096
export const SCRAM_MAX_ITERATIONS = 16384
export const SCRAM_DEFAULT_ITERATIONS = 4096

export function scramMechanismByName(name: string): ScramMechanismParams | undefined {
  return SCRAM_MECHANISMS.find((m) => m.name === name)
}

export function scramMechanismByType(type: number): ScramMechanismParams | undefined {
  return SCRAM_MECHANISMS.find((m) => m.type === type)
}

/** What the broker keeps of a user's SCRAM password. */
export interface ScramCredential {
  salt: Buffer
  iterations: number
  storedKey: Buffer
  serverKey: Buffer
}

export function hmac(m: ScramMechanismParams, key: Buffer, data: string | Buffer): Buffer {
  return createHmac(m.hash, key).update(data).digest()
}

export function digest(m: ScramMechanismParams, data: Buffer): Buffer {
  return createHash(m.hash).update(data).digest()
}

/** Hi(): the salted password. The password is normalised as Kafka does (none: the UTF-8 bytes). */
export function saltedPassword(m: ScramMechanismParams, password: string, salt: Buffer, iterations: number): Buffer {
  return pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, m.keyBytes, m.hash)
}

export function clientKey(m: ScramMechanismParams, salted: Buffer): Buffer {
  return hmac(m, salted, 'Client Key')
}

export function serverKey(m: ScramMechanismParams, salted: Buffer): Buffer {
  return hmac(m, salted, 'Server Key')
}

/** The stored credential of a salted password (what AlterUserScramCredentials sends is the salted password). */
export function credentialFromSalted(m: ScramMechanismParams, salted: Buffer, salt: Buffer, iterations: number): ScramCredential {
  return {
    salt,
    iterations,
    storedKey: digest(m, clientKey(m, salted)),
    serverKey: serverKey(m, salted),
  }
}

export function xor(a: Buffer, b: Buffer): Buffer {
  const out = Buffer.allocUnsafe(a.length)
  for (let i = 0; i < a.length; i++) out[i] = a[i]! ^ b[i]!
  return out
}

export function clientProof(m: ScramMechanismParams, salted: Buffer, authMessage: string): Buffer {
  const key = clientKey(m, salted)
  return xor(key, hmac(m, digest(m, key), authMessage))
}

/** Whether a client's proof shows it knows the password behind storedKey (constant time). */
export function verifyClientProof(m: ScramMechanismParams, cred: ScramCredential, authMessage: string, proof: Buffer): boolean {
  if (proof.length !== m.keyBytes || cred.storedKey.length !== m.keyBytes) return false
  const key = xor(proof, hmac(m, cred.storedKey, authMessage))
  return timingSafeEqual(digest(m, key), cred.storedKey)
}

export function serverSignature(m: ScramMechanismParams, serverKey: Buffer, authMessage: string): Buffer {
  return hmac(m, serverKey, authMessage)
}

/** A fresh nonce: printable, without ',' (RFC 5802's printable). */
export function newNonce(): string {
  return randomBytes(24).toString('base64url')
}

export function newSalt(m: ScramMechanismParams): Buffer {
  return randomBytes(m.keyBytes)
}
