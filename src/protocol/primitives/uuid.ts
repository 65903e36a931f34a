// Kafka Uuids (topic ids) travel as 16 raw bytes and are shown, like Kafka's Uuid.toString(), as
// 22 characters of unpadded base64url. We keep them as that string: cheap to compare and to key maps.

export const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA'

export function uuidFromBytes(b: Buffer): string {
  return b.toString('base64url')
}

export function uuidToBytes(id: string): Buffer {
  const b = Buffer.from(id, 'base64url')
  if (b.length !== 16) throw new Error(`not a Kafka uuid: ${id}`)
  return b
}
