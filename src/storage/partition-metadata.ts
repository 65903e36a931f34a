// `partition.metadata` in a partition dir, as Kafka writes it (KIP-516):
//   version: 0
//   topic_id: <topic id>
// so a restarted broker knows which incarnation of a topic name its data belongs to.
// Crash: written atomically and durably (writeFileAtomic) when the partition is created.
import { readFileIfExists, writeFileAtomic } from './checkpoint-file.js'
import type { Fs } from './fs.js'

export const PARTITION_METADATA = 'partition.metadata'

export function writePartitionMetadata(fs: Fs, dir: string, topicId: string): Promise<void> {
  return writeFileAtomic(fs, `${dir}/${PARTITION_METADATA}`, `version: 0\ntopic_id: ${topicId}\n`)
}

/** The topic id, or undefined when the file is missing or malformed. */
export async function readPartitionMetadata(fs: Fs, dir: string): Promise<string | undefined> {
  const buf = await readFileIfExists(fs, `${dir}/${PARTITION_METADATA}`)
  if (buf === null) return undefined
  let version: string | undefined
  let topicId: string | undefined
  for (const line of buf.toString('utf8').split('\n')) {
    const i = line.indexOf(':')
    if (i < 0) continue
    const key = line.slice(0, i).trim()
    const value = line.slice(i + 1).trim()
    if (key === 'version') version = value
    else if (key === 'topic_id') topicId = value
  }
  return version === '0' && topicId ? topicId : undefined
}
