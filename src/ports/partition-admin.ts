// The PartitionAdminService port: replica moves and leader elections, implemented by
// cluster/reassignment.ts.
import type { KafkaError } from '../protocol/errors.js'

/** A partition with a reassignment in progress (ListPartitionReassignments). */
export interface PartitionReassignment {
  topic: string
  partition: number
  /** The current replica set: the target and the replicas leaving, together. */
  replicas: number[]
  addingReplicas: number[]
  removingReplicas: number[]
}

/**
 * Replica moves (KIP-455) and leader elections (KIP-460) — cluster/reassignment.ts. Failures are
 * KafkaErrors with Kafka's codes; on a single node only the no-op assignment [this node] exists.
 */
export interface PartitionAdminService {
  /**
   * Starts moving the partition to `target` (first = preferred leader), or cancels its move when
   * target is null; resolves once the change is recorded (the move completes in the background).
   * Throws UNKNOWN_TOPIC_OR_PARTITION, INVALID_REPLICA_ASSIGNMENT (empty, duplicates, unregistered
   * brokers), INVALID_REPLICATION_FACTOR (a different count while not allowed),
   * NO_REASSIGNMENT_IN_PROGRESS (cancel with nothing to cancel).
   */
  alterReassignment(
    topic: string,
    partition: number,
    target: readonly number[] | null,
    allowReplicationFactorChange: boolean,
  ): Promise<void>
  /** The reassignments in progress: every one (null), or among the partitions named. */
  listReassignments(topics: ReadonlyArray<{ name: string; partitions: readonly number[] }> | null): PartitionReassignment[]
  /**
   * Elects the preferred replica (unclean false) or, when no in-sync replica lives, any live one.
   * Resolves with null (done) or ELECTION_NOT_NEEDED, PREFERRED_LEADER_NOT_AVAILABLE,
   * ELIGIBLE_LEADERS_NOT_AVAILABLE, UNKNOWN_TOPIC_OR_PARTITION.
   */
  electLeader(topic: string, partition: number, unclean: boolean): Promise<KafkaError | null>
}
