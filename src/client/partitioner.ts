// Choosing a partition for a record, as Kafka's Java producer does, so that a key lands on the same
// partition whichever client wrote it (Java, librdkafka's murmur2_random, kafkajs's default, this
// one):
//
//   - a keyed record goes to (murmur2(key) & 0x7fffffff) % numPartitions — Utils.murmur2 and
//     BuiltInPartitioner.partitionForKey, seed 0x9747b28c; an empty key is a key (hashed), only a
//     null key is not;
//   - records without a key stick to one partition until a batch's worth of bytes (batch.size) has
//     gone to it, then move on (KIP-794's built-in partitioner without the adaptive load weighting:
//     we move round-robin from a random start, which spreads the same way on average and evenly
//     in the short run).

/** Java's Utils.murmur2 over the bytes of data, as a signed 32-bit integer. */
export function murmur2(data: Uint8Array): number {
  const length = data.length
  const m = 0x5bd1e995
  const r = 24
  let h = 0x9747b28c ^ length
  const length4 = length >>> 2
  for (let i = 0; i < length4; i++) {
    const i4 = i * 4
    let k = data[i4]! | (data[i4 + 1]! << 8) | (data[i4 + 2]! << 16) | (data[i4 + 3]! << 24)
    k = Math.imul(k, m)
    k ^= k >>> r
    k = Math.imul(k, m)
    h = Math.imul(h, m)
    h ^= k
  }
  const tail = length4 * 4
  const rest = length & 3
  if (rest === 3) h ^= data[tail + 2]! << 16
  if (rest >= 2) h ^= data[tail + 1]! << 8
  if (rest >= 1) {
    h ^= data[tail]!
    h = Math.imul(h, m)
  }
  h ^= h >>> 13
  h = Math.imul(h, m)
  h ^= h >>> 15
  return h | 0
}

/** The partition the Java producer picks for a key (Utils.toPositive(murmur2(key)) % n). */
export function partitionForKey(key: Uint8Array, numPartitions: number): number {
  if (!(numPartitions > 0)) throw new RangeError(`numPartitions must be > 0, got ${numPartitions}`)
  return (murmur2(key) & 0x7fffffff) % numPartitions
}

/**
 * The partition for records without a key: the same one until `batchSizeBytes` have been given to
 * it (the record that crosses the limit still goes there, as in Kafka), then the next one.
 */
export class StickyPartitioner {
  private current = -1
  private producedBytes = 0

  constructor(
    private readonly batchSizeBytes: number,
    private readonly random: () => number = Math.random,
  ) {}

  /** The partition for a record of sizeBytes among numPartitions, counting it against the sticky one. */
  next(numPartitions: number, sizeBytes: number): number {
    if (!(numPartitions > 0)) throw new RangeError(`numPartitions must be > 0, got ${numPartitions}`)
    if (this.current < 0 || this.current >= numPartitions) {
      this.current = Math.floor(this.random() * numPartitions) % numPartitions
      this.producedBytes = 0
    }
    const partition = this.current
    this.producedBytes += sizeBytes
    if (this.producedBytes >= this.batchSizeBytes) {
      this.current = (this.current + 1) % numPartitions
      this.producedBytes = 0
    }
    return partition
  }
}
