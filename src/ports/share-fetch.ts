// The ShareFetchService port: what the ShareFetch (78) and ShareAcknowledge (79) handlers call at
// a partition leader (KIP-932). share/share-requests.ts implements it over the share session
// cache and the share-partitions this broker leads; the handlers stay thin and never see them.
import type { ShareAcknowledgeRequestData, ShareAcknowledgeResponseData } from '../protocol/messages/79-share-acknowledge.js'
import type { ShareFetchRequestData, ShareFetchResponseData } from '../protocol/messages/78-share-fetch.js'

/** Where a request came from: its version and connection (sessions belong to connections). */
export interface ShareRequestOrigin {
  apiVersion: number
  connectionId: number
  /** The listener the connection came in on (leaders' endpoints are answered on it). */
  listenerName: string
  /** Aborts when the connection closes: a long poll stops, the connection's sessions close. */
  closed: AbortSignal
}

export interface ShareFetchAnswer {
  response: ShareFetchResponseData
  /** Gives back the read buffers the records point into, once the socket has taken the response. */
  release(): void
  /**
   * The response was not sent as it is (throttled: answered without records): the records it
   * acquired go back to AVAILABLE, as if never acquired, instead of waiting for their locks to run
   * out — and counting as a delivery — while the member never saw them.
   */
  unsent(): void
}

export interface ShareFetchService {
  shareFetch(req: ShareFetchRequestData, origin: ShareRequestOrigin): Promise<ShareFetchAnswer>
  shareAcknowledge(req: ShareAcknowledgeRequestData, origin: ShareRequestOrigin): Promise<ShareAcknowledgeResponseData>
}
