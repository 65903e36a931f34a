// The topics of a ConsumerProtocolSubscription, the metadata a consumer sends with JoinGroup for
// protocol type "consumer". Every version (0–3) starts the same way, never flexible:
//   int16 version, int32 topic count, that many int16-length UTF-8 topic names,
//   then user data (bytes), owned partitions (v1+), generation (v2+), rack (v3+).
// Only the prefix is read — as Kafka does, parsing with v0, so future versions decode too. The
// coordinator needs the topics to refuse OffsetDelete on a subscribed topic
// (GROUP_SUBSCRIBED_TO_TOPIC) and to expire offsets of topics no member subscribes to (KIP-496).

/** The subscribed topics, or null when the bytes are not a consumer subscription. */
export function decodeSubscriptionTopics(metadata: Buffer): string[] | null {
  if (metadata.length < 6) return null
  const version = metadata.readInt16BE(0)
  if (version < 0) return null
  const count = metadata.readInt32BE(2)
  // Each name takes at least its 2-byte length: a count beyond that cannot be right.
  if (count < 0 || count > (metadata.length - 6) / 2) return null
  const topics: string[] = []
  let pos = 6
  for (let i = 0; i < count; i++) {
    if (pos + 2 > metadata.length) return null
    const len = metadata.readInt16BE(pos)
    pos += 2
    if (len < 0 || pos + len > metadata.length) return null
    topics.push(metadata.toString('utf8', pos, pos + len))
    pos += len
  }
  return topics
}

/** A v0 subscription (for tests and tools): the topics, empty user data. */
export function encodeSubscription(topics: readonly string[]): Buffer {
  const names = topics.map((t) => Buffer.from(t, 'utf8'))
  const out = Buffer.alloc(2 + 4 + names.reduce((n, b) => n + 2 + b.length, 0) + 4)
  out.writeInt16BE(0, 0)
  out.writeInt32BE(names.length, 2)
  let pos = 6
  for (const b of names) {
    out.writeInt16BE(b.length, pos)
    b.copy(out, pos + 2)
    pos += 2 + b.length
  }
  out.writeInt32BE(-1, pos) // null user data
  return out
}
