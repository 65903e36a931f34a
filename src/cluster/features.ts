// The cluster features Tributary supports and has finalized (KIP-584), as a Kafka 4.x broker lists
// them in ApiVersions (org.apache.kafka.server.common.Feature, BrokerFeatures). This table is the
// one place their levels live: raising a feature's level (when Tributary implements what it gates)
// is a change here and nowhere else.
//
// What a level means to clients: a *supported* range says which levels this broker could run at;
// the *finalized* level is the one the cluster runs at, and it is what clients act on — e.g. a
// Kafka 4 producer uses transaction protocol v2 (KIP-890) only when transaction.version is
// finalized at ≥ 2, and a KIP-848 consumer needs group.version ≥ 1. So a level must never be
// finalized above what Tributary implements.
//
// As Kafka's BrokerFeatures does, a feature whose supported maximum is 0 is not listed at all, and a
// feature finalized at level 0 is not listed among the finalized ones: a client reads "absent" as
// level 0.

export interface FeatureLevels {
  readonly name: string
  /** Lowest level this broker can run at. */
  readonly minVersion: number
  /** Highest level this broker can run at; 0 = not supported (not advertised). */
  readonly maxVersion: number
  /** The level the cluster runs at (0 = off). Never above maxVersion. */
  readonly finalizedLevel: number
}

/**
 * metadata.version 21 is IBP_3_9_IV0. The levels above it (Kafka 4.x) gate KRaft-controller records
 * and inter-broker behaviour Tributary does not run (its metadata lives in the local store or etcd);
 * clients do not read metadata.version to pick request versions (those come from the API ranges),
 * and what clients do act on has a feature of its own below. Its minimum, 7 (IBP_3_3_IV3), is a 4.x
 * broker's minimum (MetadataVersion.MINIMUM_VERSION).
 */
export const METADATA_VERSION_LEVEL = 21

export const FEATURES: readonly FeatureLevels[] = [
  // The metadata format level, always finalized. See METADATA_VERSION_LEVEL.
  { name: 'metadata.version', minVersion: 7, maxVersion: METADATA_VERSION_LEVEL, finalizedLevel: METADATA_VERSION_LEVEL },
  // KIP-853 dynamic KRaft quorums: Tributary keeps its metadata in the local store or etcd, not in
  // a KRaft quorum, so there is no KRaft version to report.
  { name: 'kraft.version', minVersion: 0, maxVersion: 0, finalizedLevel: 0 },
  // KIP-890 transactions: the coordinator serves v1 (explicit AddPartitionsToTxn, the epoch kept
  // across transactions) and v2 (2: Produce v12 adds partitions implicitly, EndTxn v5 bumps the
  // epoch every transaction — the Java 4 clients switch to it at this level); clients that do not
  // read the feature (librdkafka, kafkajs) keep using v1. Level 1 (flexible transaction log values)
  // is between them.
  { name: 'transaction.version', minVersion: 0, maxVersion: 2, finalizedLevel: 2 },
  // KIP-848 consumer groups (1): ConsumerGroupHeartbeat/ConsumerGroupDescribe are served
  // (coordinator/group/consumer/); the Java 4 consumer with group.protocol=consumer needs it.
  { name: 'group.version', minVersion: 0, maxVersion: 1, finalizedLevel: 1 },
  // KIP-966 eligible leader replicas (1) — leaders are elected from the ISR only; the ELR lists
  // in DescribeTopicPartitions stay empty.
  { name: 'eligible.leader.replicas.version', minVersion: 0, maxVersion: 0, finalizedLevel: 0 },
  // KIP-932 share groups: ShareGroupHeartbeat/Describe, ShareFetch/ShareAcknowledge and the share
  // coordinator are served (coordinator/group/share/, share/, coordinator/share/); 2 is Kafka 4.4's
  // production level, at which a share group's dead-letter topic (KIP-1191) is written.
  { name: 'share.version', minVersion: 0, maxVersion: 2, finalizedLevel: 2 },
  // KIP-1071 streams groups (1) — not implemented.
  { name: 'streams.version', minVersion: 0, maxVersion: 0, finalizedLevel: 0 },
]

export interface SupportedFeature {
  name: string
  minVersion: number
  maxVersion: number
}

export interface FinalizedFeature {
  name: string
  minVersionLevel: number
  maxVersionLevel: number
}

/**
 * The supported features as ApiVersions lists them. Below v4 a feature whose minimum is 0 is left
 * out: older clients failed to parse such a range (KAFKA-17011, ApiVersionsResponse's
 * alterFeatureLevel0).
 */
export function supportedFeatures(apiVersion: number, table: readonly FeatureLevels[] = FEATURES): SupportedFeature[] {
  return table
    .filter((f) => f.maxVersion > 0 && (apiVersion >= 4 || f.minVersion > 0))
    .map((f) => ({ name: f.name, minVersion: f.minVersion, maxVersion: f.maxVersion }))
}

/** The finalized features (min = max = the level, as Kafka reports them); level 0 is left out. */
export function finalizedFeatures(table: readonly FeatureLevels[] = FEATURES): FinalizedFeature[] {
  return table
    .filter((f) => f.finalizedLevel > 0)
    .map((f) => ({ name: f.name, minVersionLevel: f.finalizedLevel, maxVersionLevel: f.finalizedLevel }))
}

/**
 * The epoch of the finalized levels (≥ 0, so clients trust them). Kafka uses the metadata log
 * offset; Java clients keep the finalized features of the highest epoch they have seen, so the
 * epoch must grow whenever a level does. Levels only ever rise between Tributary releases, hence
 * their sum.
 */
export function finalizedFeaturesEpoch(table: readonly FeatureLevels[] = FEATURES): number {
  return table.reduce((sum, f) => sum + f.finalizedLevel, 0)
}

/** The level a feature is finalized at (0 when not listed). */
export function finalizedLevel(name: string, table: readonly FeatureLevels[] = FEATURES): number {
  return table.find((f) => f.name === name)?.finalizedLevel ?? 0
}
