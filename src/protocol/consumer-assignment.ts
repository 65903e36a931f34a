// ConsumerProtocolAssignment: what a group leader hands each member in SyncGroup for protocol type
// "consumer". Every version (0–3) has the same non-flexible layout:
//   int16 version, int32 topic count, per topic { int16-length name, int32 count, int32 partitions },
//   then user data (int32-length bytes, -1 for null).
// Tools (tributary group describe) decode members' assignments with it; consumers encode theirs.
import { Reader } from './primitives/reader.js'

export interface TopicAssignment {
  topic: string
  partitions: number[]
}

/** The assigned partitions, or null when the bytes are not a consumer assignment. */
export function decodeAssignment(bytes: Buffer): TopicAssignment[] | null {
  if (bytes.length === 0) return [] // a member assigned nothing may get empty bytes
  try {
    const r = new Reader(bytes)
    if (r.int16() < 0) return null
    const count = r.int32()
    if (count < 0 || count > r.remaining / 6) return null
    const out: TopicAssignment[] = []
    for (let i = 0; i < count; i++) {
      const len = r.int16()
      if (len < 0) return null
      const topic = r.slice(len).toString('utf8')
      const n = r.int32()
      if (n < 0 || n > r.remaining / 4) return null
      const partitions: number[] = []
      for (let j = 0; j < n; j++) partitions.push(r.int32())
      out.push({ topic, partitions })
    }
    return out
  } catch {
    return null
  }
}

/** A v0 assignment with no user data. */
export function encodeAssignment(assignment: readonly TopicAssignment[]): Buffer {
  let size = 2 + 4 + 4
  const names = assignment.map((a) => Buffer.from(a.topic, 'utf8'))
  for (let i = 0; i < assignment.length; i++) size += 2 + names[i]!.length + 4 + 4 * assignment[i]!.partitions.length
  const buf = Buffer.alloc(size)
  let pos = buf.writeInt16BE(0, 0)
  pos = buf.writeInt32BE(assignment.length, pos)
  assignment.forEach((a, i) => {
    pos = buf.writeInt16BE(names[i]!.length, pos)
    pos += names[i]!.copy(buf, pos)
    pos = buf.writeInt32BE(a.partitions.length, pos)
    for (const p of a.partitions) pos = buf.writeInt32BE(p, pos)
  })
  buf.writeInt32BE(-1, pos) // null user data
  return buf
}
