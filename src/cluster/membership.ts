// The Membership port: which brokers are alive, which one is the controller, and whether this
// broker's own registration stands — what Kafka's controller quorum tells a broker. A single broker
// is a cluster of one: LocalMembership says so (this broker, registered and controller from the
// moment it joins), and EtcdMembership learns it from leases and an election in etcd. The broker
// builds the same parts on either (cluster-parts.ts): replica sync, leader election, coordinator
// ownership by leadership of their internal partitions.
//
// A ClusterBackend pairs a Membership with its MetadataStore: the composition root opens one,
// starts its listeners, then join()s with the endpoints it bound.
import type { MetadataStore } from '../ports/metadata-store.js'

export interface RegisteredEndpoint {
  listener: string
  host: string
  port: number
  securityProtocol: string
}

export interface BrokerRegistration {
  nodeId: number
  rack: string | null
  endpoints: RegisteredEndpoint[]
  registeredMs: number
}

export interface ControllerState {
  /** The elected controller's node id, -1 while there is none. */
  controllerId: number
  /** Grows with every election; 0 while there is no controller. */
  controllerEpoch: number
  isController: boolean
}

export interface Membership {
  /** True while this broker is the controller (and its registration stands). */
  readonly isController: boolean
  /** True while this broker's registration is known to stand: no other broker can have taken its partitions. */
  readonly leaseValid: boolean
  readonly controllerId: number
  readonly controllerEpoch: number
  /** The registered (live) brokers, by node id. */
  brokers(): readonly BrokerRegistration[]
  onControllerChange(listener: (state: ControllerState) => void): void
  onBrokersChange(listener: (brokers: readonly BrokerRegistration[]) => void): void
  /** Leaves the cluster. */
  close(): Promise<void>
}

export interface ClusterBackend {
  readonly store: MetadataStore
  /** The membership, once join() succeeded. */
  readonly membership: Membership | undefined
  /** Registers this broker with its advertised endpoints. */
  join(endpoints: RegisteredEndpoint[]): Promise<Membership>
  /** Leaves the cluster, then closes the store. */
  close(): Promise<void>
}

/** A cluster of one: this broker is the only one, always registered, always the controller. */
export class LocalMembership implements Membership {
  private closed = false
  private readonly self: readonly BrokerRegistration[]

  constructor(registration: BrokerRegistration) {
    this.self = Object.freeze([registration])
  }

  get isController(): boolean {
    return !this.closed
  }

  get leaseValid(): boolean {
    return !this.closed
  }

  get controllerId(): number {
    return this.closed ? -1 : this.self[0]!.nodeId
  }

  get controllerEpoch(): number {
    return this.closed ? 0 : 1
  }

  brokers(): readonly BrokerRegistration[] {
    return this.closed ? [] : this.self
  }

  // Nothing ever changes in a cluster of one but its end, which close() reports to nobody: the
  // broker is stopping its parts itself.
  onControllerChange(_listener: (state: ControllerState) => void): void {}

  onBrokersChange(_listener: (brokers: readonly BrokerRegistration[]) => void): void {}

  async close(): Promise<void> {
    this.closed = true
  }
}

/** The backend of a broker with no etcd: its local store and a LocalMembership. */
export function localClusterBackend(
  store: MetadataStore,
  self: { nodeId: number; rack: string | null; clock: { now(): number } },
): ClusterBackend {
  let membership: LocalMembership | undefined
  return {
    store,
    get membership() {
      return membership
    },
    async join(endpoints) {
      membership = new LocalMembership({ nodeId: self.nodeId, rack: self.rack, endpoints, registeredMs: self.clock.now() })
      return membership
    },
    async close() {
      await membership?.close()
      await store.close()
    },
  }
}
