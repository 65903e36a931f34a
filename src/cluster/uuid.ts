// Topic ids and cluster ids: Kafka Uuids, shown as 22 characters of unpadded base64url (Kafka's
// Uuid.toString()). The byte conversions live with the wire primitives; this file adds generation.
//
// Like Kafka's Uuid.randomUuid(), a new id is a random (version 4) UUID that is never the all-zero
// id (ZERO_UUID, "no topic id" on the wire), never the id Kafka reserves for its metadata topic
// (METADATA_TOPIC_ID = Uuid(0, 1)), and never starts with '-' (command-line tools would read it as
// an option).
import { randomBytes } from 'node:crypto'
import { uuidFromBytes, uuidToBytes, ZERO_UUID } from '../protocol/primitives/uuid.js'

export { uuidFromBytes, uuidToBytes, ZERO_UUID }

/** Kafka's reserved id of the KRaft metadata topic (__cluster_metadata): Uuid(0, 1). */
export const METADATA_TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAQ'

const UUID_RE = /^[A-Za-z0-9_-]{22}$/

/** True for a well-formed Kafka Uuid string (22 base64url chars that round-trip through 16 bytes). */
export function isValidUuid(id: string): boolean {
  if (!UUID_RE.test(id)) return false
  return Buffer.from(id, 'base64url').toString('base64url') === id
}

/** A fresh random Kafka Uuid string; `random` is injectable for tests. */
export function randomUuid(random: (n: number) => Buffer = randomBytes): string {
  for (;;) {
    const b = Buffer.from(random(16))
    // RFC 4122 version 4, IETF variant, as java.util.UUID.randomUUID() produces.
    b[6] = (b[6]! & 0x0f) | 0x40
    b[8] = (b[8]! & 0x3f) | 0x80
    const id = uuidFromBytes(b)
    if (id !== ZERO_UUID && id !== METADATA_TOPIC_ID && !id.startsWith('-')) return id
  }
}

/** A new topic id. */
export function randomTopicId(random?: (n: number) => Buffer): string {
  return randomUuid(random)
}
