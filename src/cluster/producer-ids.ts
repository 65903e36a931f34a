// Producer ids for idempotent producers. Ids come from durable blocks reserved in the metadata
// store (as Kafka's controller hands out blocks of 1000), so an id is never given twice, even
// across restarts. A producer without a transactional id always gets a fresh id with epoch 0, as
// Kafka's coordinator does; epoch bumps (KIP-360) belong to transactional producers.
import type { MetadataStore } from '../ports/metadata-store.js'

const BLOCK_SIZE = 1000

export class ProducerIdManager {
  private next = 0
  private end = 0
  private pending: Promise<void> | undefined

  constructor(private readonly store: MetadataStore) {}

  async initProducerId(): Promise<{ producerId: number; producerEpoch: number }> {
    return { producerId: await this.allocate(), producerEpoch: 0 }
  }

  private async allocate(): Promise<number> {
    while (this.next >= this.end) {
      this.pending ??= this.store.nextProducerIdBlock(BLOCK_SIZE).then(
        (block) => {
          this.next = block.start
          this.end = block.start + block.size
          this.pending = undefined
        },
        (err) => {
          this.pending = undefined
          throw err
        },
      )
      await this.pending
    }
    return this.next++
  }
}
