// The share-state persister's requests to the share coordinator on another broker — Initialize /
// Read / Write / Delete ShareGroupState and ReadShareGroupStateSummary (RPCs 83–87), as Kafka's
// PersisterStateManager sends them — over the inter-broker listener (../broker-connections.ts).
//
// Calls made in the same tick for one broker, one API and one group go as one request (one entry
// per key; a second call for a key already in the batch opens the next batch, so each key's calls
// keep their order and their answers stay apart). A failed connection or request answers every
// key of it NETWORK_EXCEPTION, and the connection is dropped (the persister retries; the next call
// reconnects). A key missing from the answer is UNKNOWN_SERVER_ERROR.
import type { InterBrokerEndpoint } from '../../client/security.js'
import type { Connection } from '../../client/connection.js'
import type { SharePartitionKey, ShareStateRead, ShareStateResult, ShareStateSummary, ShareStateWrite } from '../../ports/shares.js'
import { ErrorCode } from '../../protocol/errors.js'
import { DeleteShareGroupStateRequest, DeleteShareGroupStateResponse } from '../../protocol/messages/86-delete-share-group-state.js'
import {
  InitializeShareGroupStateRequest,
  InitializeShareGroupStateResponse,
} from '../../protocol/messages/83-initialize-share-group-state.js'
import { ReadShareGroupStateRequest, ReadShareGroupStateResponse } from '../../protocol/messages/84-read-share-group-state.js'
import {
  ReadShareGroupStateSummaryRequest,
  ReadShareGroupStateSummaryResponse,
} from '../../protocol/messages/87-read-share-group-state-summary.js'
import { WriteShareGroupStateRequest, WriteShareGroupStateResponse } from '../../protocol/messages/85-write-share-group-state.js'
import type { Logger } from '../../util/logger.js'
import { BrokerConnections } from '../broker-connections.js'

export interface ShareChannelOptions {
  nodeId: number
  endpointOf: (nodeId: number) => InterBrokerEndpoint | undefined
  requestTimeoutMs: number
  logger: Logger
}

type Api = 'initialize' | 'read' | 'write' | 'delete' | 'summary'

interface Entry {
  key: SharePartitionKey
  /** The request's partition entry (without the partition index). */
  fields: Record<string, unknown>
  resolve: (answer: Record<string, unknown> & ShareStateResult) => void
}

interface Batch {
  nodeId: number
  api: Api
  groupId: string
  entries: Entry[]
  keys: Set<string>
}

const NETWORK = ErrorCode.NETWORK_EXCEPTION.code
const UNKNOWN = ErrorCode.UNKNOWN_SERVER_ERROR.code

const entryKey = (topicId: string, partition: number) => `${topicId}:${partition}`

export class ShareCoordinatorChannel {
  private readonly pool: BrokerConnections
  /** The open batch of each (broker, API, group), filled until the end of the tick. */
  private readonly open = new Map<string, Batch>()

  constructor(private readonly opts: ShareChannelOptions) {
    this.pool = new BrokerConnections({ ...opts, clientIdPrefix: 'tributary-share-persister' })
  }

  initialize(nodeId: number, key: SharePartitionKey, stateEpoch: number, startOffset: number): Promise<ShareStateResult> {
    return this.enqueue(nodeId, 'initialize', key, { stateEpoch, startOffset })
  }

  read(nodeId: number, key: SharePartitionKey, leaderEpoch: number): Promise<ShareStateRead> {
    return this.enqueue(nodeId, 'read', key, { leaderEpoch }).then((a) => ({
      errorCode: a.errorCode,
      errorMessage: a.errorMessage ?? null,
      stateEpoch: (a.stateEpoch as number | undefined) ?? 0,
      startOffset: (a.startOffset as number | undefined) ?? -1,
      stateBatches: (a.stateBatches as ShareStateRead['stateBatches'] | undefined) ?? [],
    }))
  }

  write(nodeId: number, key: SharePartitionKey, w: ShareStateWrite): Promise<ShareStateResult> {
    return this.enqueue(nodeId, 'write', key, { ...w })
  }

  delete(nodeId: number, key: SharePartitionKey): Promise<ShareStateResult> {
    return this.enqueue(nodeId, 'delete', key, {})
  }

  readSummary(nodeId: number, key: SharePartitionKey, leaderEpoch: number): Promise<ShareStateSummary> {
    return this.enqueue(nodeId, 'summary', key, { leaderEpoch }).then((a) => ({
      errorCode: a.errorCode,
      errorMessage: a.errorMessage ?? null,
      stateEpoch: (a.stateEpoch as number | undefined) ?? 0,
      leaderEpoch: (a.leaderEpoch as number | undefined) ?? 0,
      startOffset: (a.startOffset as number | undefined) ?? -1,
      deliveryCompleteCount: (a.deliveryCompleteCount as number | undefined) ?? -1,
    }))
  }

  close(): void {
    this.pool.close()
  }

  private enqueue(
    nodeId: number,
    api: Api,
    key: SharePartitionKey,
    fields: Record<string, unknown>,
  ): Promise<Record<string, unknown> & ShareStateResult> {
    return new Promise((resolve) => {
      const id = `${nodeId}|${api}|${key.groupId}`
      const k = entryKey(key.topicId, key.partition)
      let batch = this.open.get(id)
      if (batch?.keys.has(k)) {
        this.open.delete(id) // its key is taken: that batch goes as it is, this call opens the next
        batch = undefined
      }
      if (!batch) {
        const b: Batch = { nodeId, api, groupId: key.groupId, entries: [], keys: new Set() }
        batch = b
        this.open.set(id, b)
        queueMicrotask(() => {
          if (this.open.get(id) === b) this.open.delete(id)
          void this.send(b)
        })
      }
      batch.keys.add(k)
      batch.entries.push({ key, fields, resolve })
    })
  }

  /** The batch's entries grouped by topic id, as the requests carry them. */
  private topicsOf(b: Batch): Array<{ topicId: string; partitions: Array<Record<string, unknown>> }> {
    const byTopic = new Map<string, Array<Record<string, unknown>>>()
    for (const e of b.entries) {
      let list = byTopic.get(e.key.topicId)
      if (!list) byTopic.set(e.key.topicId, (list = []))
      list.push({ partition: e.key.partition, ...e.fields })
    }
    return [...byTopic].map(([topicId, partitions]) => ({ topicId, partitions }))
  }

  private async send(b: Batch): Promise<void> {
    let answers: Map<string, Record<string, unknown> & ShareStateResult>
    try {
      const conn = await this.pool.connection(b.nodeId)
      const results = await this.request(conn, b)
      answers = new Map()
      for (const t of results) for (const p of t.partitions) answers.set(entryKey(t.topicId, p.partition), p)
    } catch (err) {
      this.opts.logger.debug('a share-state request to the coordinator failed', { nodeId: b.nodeId, api: b.api, err })
      this.pool.drop(b.nodeId)
      for (const e of b.entries) e.resolve({ errorCode: NETWORK, errorMessage: (err as Error).message })
      return
    }
    for (const e of b.entries) {
      e.resolve(
        answers.get(entryKey(e.key.topicId, e.key.partition)) ?? { errorCode: UNKNOWN, errorMessage: 'no answer for the partition' },
      )
    }
  }

  private async request(
    conn: Connection,
    b: Batch,
  ): Promise<Array<{ topicId: string; partitions: Array<{ partition: number } & ShareStateResult & Record<string, unknown>> }>> {
    const versions = conn.versions!
    const topics = this.topicsOf(b) as never
    const groupId = b.groupId
    switch (b.api) {
      case 'initialize': {
        const v = versions.pick(InitializeShareGroupStateRequest, InitializeShareGroupStateResponse)
        return (await conn.request(InitializeShareGroupStateRequest, InitializeShareGroupStateResponse, v, { groupId, topics })).results
      }
      case 'read': {
        const v = versions.pick(ReadShareGroupStateRequest, ReadShareGroupStateResponse)
        return (await conn.request(ReadShareGroupStateRequest, ReadShareGroupStateResponse, v, { groupId, topics })).results
      }
      case 'write': {
        const v = versions.pick(WriteShareGroupStateRequest, WriteShareGroupStateResponse)
        return (await conn.request(WriteShareGroupStateRequest, WriteShareGroupStateResponse, v, { groupId, topics })).results
      }
      case 'delete': {
        const v = versions.pick(DeleteShareGroupStateRequest, DeleteShareGroupStateResponse)
        return (await conn.request(DeleteShareGroupStateRequest, DeleteShareGroupStateResponse, v, { groupId, topics })).results
      }
      case 'summary': {
        const v = versions.pick(ReadShareGroupStateSummaryRequest, ReadShareGroupStateSummaryResponse)
        return (await conn.request(ReadShareGroupStateSummaryRequest, ReadShareGroupStateSummaryResponse, v, { groupId, topics })).results
      }
    }
  }
}
