// The ConfigService port: described and altered configs of topics, brokers and groups
// (DescribeConfigs, AlterConfigs, IncrementalAlterConfigs), implemented by broker/config-service.ts.
import type { TopicRecord } from './metadata-store.js'
import type { ShareGroupSettings } from './shares.js'

export interface ConfigEntry {
  name: string
  value: string | null
  readOnly: boolean
  /** Kafka's ConfigSource: 1 topic, 2 dynamic broker, 3 dynamic default broker, 4 static broker, 5 default. */
  source: number
  isSensitive: boolean
  /** Kafka's ConfigType: 1 boolean, 2 string, 3 int, 4 short, 5 long, 6 double, 7 list, 8 class, 9 password. */
  type: number
  documentation: string | null
  synonyms: Array<{ name: string; value: string | null; source: number }>
}

export interface ConfigService {
  /** Every config of the topic (or only `keys`), with sources and synonyms. */
  describeTopic(topic: TopicRecord, keys: string[] | null): ConfigEntry[]
  /** Every config of this broker (or only `keys`). */
  describeBroker(keys: string[] | null): ConfigEntry[]
  /** The cluster-wide dynamic defaults (resource name ""): only the keys set there (or only `keys`). */
  describeBrokerDefaults(keys: string[] | null): ConfigEntry[]
  /**
   * Replaces the dynamic config set of a BROKER resource ("" = cluster-wide default, else this
   * node's id) with `change(current)`: validated (INVALID_CONFIG / INVALID_REQUEST), persisted and
   * applied unless validateOnly. INVALID_REQUEST for another broker's id.
   */
  alterBrokerConfigs(
    resourceName: string,
    change: (current: Readonly<Record<string, string>>) => Record<string, string>,
    validateOnly: boolean,
  ): Promise<void>
  /** Every group config of a group id (or only `keys`): set ones with source GROUP_CONFIG (8), the rest defaults. */
  describeGroup(groupId: string, keys: string[] | null): ConfigEntry[]
  /**
   * Replaces a group's config set with `change(current)`: validated as Kafka's GroupConfig
   * (INVALID_CONFIG), persisted cluster-wide unless validateOnly; INVALID_REQUEST for the empty id.
   */
  alterGroupConfigs(
    groupId: string,
    change: (current: Readonly<Record<string, string>>) => Record<string, string>,
    validateOnly: boolean,
  ): Promise<void>
  /** The settings a share group's partition leaders apply: its group configs over the broker's group.share.* defaults. */
  shareGroupSettings(groupId: string): ShareGroupSettings
}
