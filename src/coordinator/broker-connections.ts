// Connections from this broker's coordinators to other brokers, over the inter-broker listener with
// Tributary's own client connection (client/connection.ts): the transaction coordinator's
// (txn/inter-broker.ts) and the share-state persister's (share/inter-broker.ts).
// One connection per broker, opened on first use with version negotiation, forgotten when it
// closes or fails to open, and dropped by the caller on any failure of a request on it (the next
// call reconnects). A broker without a known endpoint rejects at once. close() drops every
// connection and refuses new ones.
import type { InterBrokerEndpoint } from '../client/security.js'
import { connectNegotiated } from '../client/api-versions.js'
import type { Connection } from '../client/connection.js'

export interface BrokerConnectionsOptions {
  /** Names the connections (the client id is `${clientIdPrefix}-${nodeId}`). */
  clientIdPrefix: string
  nodeId: number
  /** The broker's address on the inter-broker listener; undefined when it is not registered. */
  endpointOf: (nodeId: number) => InterBrokerEndpoint | undefined
  requestTimeoutMs: number
}

export class BrokerConnections {
  private readonly conns = new Map<number, Promise<Connection>>()
  private closed = false

  constructor(private readonly opts: BrokerConnectionsOptions) {}

  /** The connection to `nodeId` (opened now if there is none). */
  connection(nodeId: number): Promise<Connection> {
    let c = this.conns.get(nodeId)
    if (!c) {
      const at = this.opts.endpointOf(nodeId)
      if (!at || this.closed) return Promise.reject(new Error(`no endpoint for broker ${nodeId}`))
      c = connectNegotiated({
        host: at.host,
        port: at.port,
        ...(at.security ? { security: at.security } : {}),
        clientId: `${this.opts.clientIdPrefix}-${this.opts.nodeId}`,
        requestTimeoutMs: this.opts.requestTimeoutMs,
      }).then((conn) => {
        conn.onClose(() => {
          if (this.conns.get(nodeId) === c) this.conns.delete(nodeId)
        })
        return conn
      })
      c.catch(() => {
        if (this.conns.get(nodeId) === c) this.conns.delete(nodeId)
      })
      this.conns.set(nodeId, c)
    }
    return c
  }

  /** Closes and forgets the connection to `nodeId` (after a failure on it). */
  drop(nodeId: number): void {
    const c = this.conns.get(nodeId)
    this.conns.delete(nodeId)
    c?.then((conn) => conn.close()).catch(() => {})
  }

  close(): void {
    this.closed = true
    for (const nodeId of [...this.conns.keys()]) this.drop(nodeId)
  }
}
