// The transaction coordinator's requests to other brokers, over the inter-broker listener with
// Tributary's own client connection (client/connection.ts): WriteTxnMarkers to a partition leader
// (Kafka's TransactionMarkerChannelManager) and AddPartitionsToTxn v4+ in the broker form to a
// transaction coordinator (Kafka's AddPartitionsToTxnManager, for the produce verification: one transaction entry with
// every partition of a Produce request).
// One connection per broker (../broker-connections.ts), opened on first use with version
// negotiation and dropped on any failure (the next call reconnects); a broker without a known endpoint, or a failed connection,
// answers every partition NETWORK_EXCEPTION (NOT_COORDINATOR for a verification), which the
// callers retry. close() drops every connection.
import type { InterBrokerEndpoint } from '../../client/security.js'
import type { Connection } from '../../client/connection.js'
import { BrokerConnections } from '../broker-connections.js'
import type { MarkerPartition, MarkerResult, TxnMarker, TxnVerifyParams } from '../../ports/transactions.js'
import { ErrorCode } from '../../protocol/errors.js'
import { AddPartitionsToTxnRequest, AddPartitionsToTxnResponse } from '../../protocol/messages/24-add-partitions-to-txn.js'
import { WriteTxnMarkersRequest, WriteTxnMarkersResponse } from '../../protocol/messages/27-write-txn-markers.js'
import type { Logger } from '../../util/logger.js'

export interface InterBrokerOptions {
  nodeId: number
  /** The broker's address on the inter-broker listener; undefined when it is not registered. */
  endpointOf: (nodeId: number) => InterBrokerEndpoint | undefined
  requestTimeoutMs: number
  logger: Logger
}

/** A produce verification sent to the transactional id's coordinator. */
export type VerifyRequest = TxnVerifyParams

/** A verification of several partitions of one producer (one Produce request's). */
export interface VerifyBatchRequest {
  transactionalId: string
  producerId: number
  producerEpoch: number
  partitions: Array<{ topic: string; partition: number }>
  addPartition: boolean
}

/** The single form as a batch of one. */
export function batchOf(req: VerifyRequest): VerifyBatchRequest {
  const { topic, partition, ...rest } = req
  return { ...rest, partitions: [{ topic, partition }] }
}

export class InterBrokerTxnChannel {
  private readonly pool: BrokerConnections

  constructor(private readonly opts: InterBrokerOptions) {
    this.pool = new BrokerConnections({ ...opts, clientIdPrefix: 'tributary-txn-coordinator' })
  }

  private connection(nodeId: number): Promise<Connection> {
    return this.pool.connection(nodeId)
  }

  private drop(nodeId: number): void {
    this.pool.drop(nodeId)
  }

  /** WriteTxnMarkers to `nodeId` for partitions it leads; one result per partition. */
  async writeMarkers(nodeId: number, marker: TxnMarker, partitions: MarkerPartition[]): Promise<MarkerResult[]> {
    const byTopic = new Map<string, number[]>()
    for (const p of partitions) {
      let list = byTopic.get(p.topic)
      if (!list) byTopic.set(p.topic, (list = []))
      list.push(p.partition)
    }
    try {
      const conn = await this.connection(nodeId)
      const version = conn.versions!.pick(WriteTxnMarkersRequest, WriteTxnMarkersResponse)
      const res = await conn.request(WriteTxnMarkersRequest, WriteTxnMarkersResponse, version, {
        markers: [
          {
            producerId: marker.producerId,
            producerEpoch: marker.producerEpoch,
            transactionResult: marker.commit,
            topics: [...byTopic].map(([name, partitionIndexes]) => ({ name, partitionIndexes })),
            coordinatorEpoch: marker.coordinatorEpoch,
            transactionVersion: marker.transactionVersion,
          },
        ],
      })
      const codes = new Map<string, number>()
      for (const m of res.markers) {
        for (const t of m.topics) for (const p of t.partitions) codes.set(`${t.name}:${p.partitionIndex}`, p.errorCode)
      }
      return partitions.map((p) => ({ ...p, errorCode: codes.get(`${p.topic}:${p.partition}`) ?? ErrorCode.UNKNOWN_SERVER_ERROR.code }))
    } catch (err) {
      this.opts.logger.debug('WriteTxnMarkers failed', { nodeId, err })
      this.drop(nodeId)
      return partitions.map((p) => ({ ...p, errorCode: ErrorCode.NETWORK_EXCEPTION.code }))
    }
  }

  /** AddPartitionsToTxn v5 (broker form) to the transaction coordinator `nodeId`: one partition's code. */
  async verify(nodeId: number, req: VerifyRequest): Promise<number> {
    return (await this.verifyPartitions(nodeId, batchOf(req)))[0]!
  }

  /** AddPartitionsToTxn v5 (broker form), one transaction with every partition: one code per partition, in order. */
  async verifyPartitions(nodeId: number, req: VerifyBatchRequest): Promise<number[]> {
    const all = (code: number) => req.partitions.map(() => code)
    const byTopic = new Map<string, number[]>()
    for (const p of req.partitions) {
      let list = byTopic.get(p.topic)
      if (!list) byTopic.set(p.topic, (list = []))
      if (!list.includes(p.partition)) list.push(p.partition)
    }
    try {
      const conn = await this.connection(nodeId)
      const version = conn.versions!.pick(AddPartitionsToTxnRequest, AddPartitionsToTxnResponse)
      if (version < 4) return all(ErrorCode.UNSUPPORTED_VERSION.code)
      const res = await conn.request(AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, version, {
        transactions: [
          {
            transactionalId: req.transactionalId,
            producerId: req.producerId,
            producerEpoch: req.producerEpoch,
            verifyOnly: !req.addPartition,
            topics: [...byTopic].map(([name, partitions]) => ({ name, partitions })),
          },
        ],
      })
      if (res.errorCode !== 0) return all(res.errorCode)
      const r = res.resultsByTransaction.find((t) => t.transactionalId === req.transactionalId)
      return req.partitions.map((q) => {
        const t = r?.topicResults.find((x) => x.name === q.topic)
        const p = t?.resultsByPartition.find((x) => x.partitionIndex === q.partition)
        return p?.partitionErrorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR.code
      })
    } catch (err) {
      this.opts.logger.debug('AddPartitionsToTxn verification failed', { nodeId, err })
      this.drop(nodeId)
      return all(ErrorCode.NOT_COORDINATOR.code)
    }
  }

  close(): void {
    this.pool.close()
  }
}
