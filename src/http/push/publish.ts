// Publishing from a WebSocket ({type:"publish"}, ws.ts): one Producer (client/producer.ts) per topic
// on a client of the push module's own, shared by every socket; each publish resolves with the
// partition and offset its record got, or rejects with the producer's error.
//
// Rules: acks=all, as Kafka's producer defaults; a producer whose buffer is full (buffer.memory)
// refuses a publish at once (429) instead of queueing without bound.
import { KafkaClient, type KafkaClientOptions } from '../../client/client.js'
import { Producer } from '../../client/producer.js'
import type { ProducerRecord } from '../../client/producer-batch.js'
import { PushError } from './cursor.js'

interface PublishedRecord extends ProducerRecord {
  done(partition: number, offset: number): void
  failed(err: Error): void
}

export class Publisher {
  private readonly producers = new Map<string, Promise<Producer<PublishedRecord>>>()

  private constructor(private readonly client: KafkaClient) {}

  static async connect(options: KafkaClientOptions): Promise<Publisher> {
    return new Publisher(await KafkaClient.connect(options))
  }

  async publish(topic: string, record: ProducerRecord): Promise<{ partition: number; offset: number }> {
    let producer = this.producers.get(topic)
    if (!producer) {
      producer = Producer.create<PublishedRecord>(this.client, {
        topic,
        autoCreateTopic: false,
        lingerMs: 1,
        onDelivery: (report) => {
          report.records.forEach((r, i) => {
            if (report.error) r.failed(report.error)
            else r.done(report.partition, report.baseOffset + i)
          })
        },
      })
      this.producers.set(topic, producer)
      producer.catch(() => this.producers.delete(topic))
    }
    const p = await producer
    if (p.isFull) throw new PushError(429, 42901, 'the producer of this topic is full; publish again later')
    if (record.partition !== undefined && record.partition >= p.partitionCount)
      throw new PushError(404, 40402, `Partition ${record.partition} of topic ${topic} not found.`)
    return new Promise((resolve, reject) => {
      p.send({ ...record, done: (partition, offset) => resolve({ partition, offset }), failed: reject })
    })
  }

  async close(): Promise<void> {
    for (const p of this.producers.values()) {
      const producer = await p.catch(() => null)
      if (producer) {
        await producer.flush().catch(() => {})
        producer.close()
      }
    }
    await this.client.close().catch(() => {})
  }
}
