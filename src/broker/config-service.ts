// The broker's configuration at run time: the static config (file, environment, flags) under the
// dynamic broker configs (KIP-226) kept in the metadata store — the cluster-wide default (resource
// "") and this broker's own (resource = node id). DescribeConfigs answers from it; AlterConfigs and
// IncrementalAlterConfigs on a BROKER resource change it here: validate, persist, then swap in the
// new BrokerConfig and tell the listeners (the controller re-applies topic defaults to the live
// logs, the acceptor its connection quotas), so a change takes effect without a restart and
// survives one. The sets live in the metadata store, shared by the cluster: a change written
// through another broker (the cluster-wide default, or this broker's own set) reaches this one as
// a store change, and is applied the same way.
//
// A value a dynamic broker key refuses (a bad number, a rule across keys) is INVALID_REQUEST with
// the reason, as Kafka's ConfigAdminManager answers for BROKER resources; an unknown key is
// INVALID_CONFIG, a key fixed at start INVALID_REQUEST (config-dynamic.ts).
//
// At start the stored sets are applied as Kafka does: a stored key that no longer validates (an
// older or newer version wrote it) is skipped with a warning instead of stopping the broker.
//
// Group configs (GROUP resources; config/group-config.ts) live in the metadata store too, one set
// per group id, shared by every broker; they are read when used, so a change made through any
// broker applies at once: a share group's settings (shareGroupSettings, for its partition leaders)
// and its coordinator's session timeout and heartbeat interval (groupTimeouts).
import type { MetadataStore, TopicRecord } from '../ports/metadata-store.js'
import type { ConfigEntry, ConfigService } from '../ports/configs.js'
import type { ShareGroupSettings } from '../ports/shares.js'
import type { Logger } from '../util/logger.js'
import type { BrokerConfig } from '../config/config.js'
import { checkBrokerResourceName, validateDynamicBrokerConfigs } from '../config/config-dynamic.js'
import { ConfigError, isDynamicBrokerConfig } from '../config/config-values.js'
import { describeTopicConfig } from '../config/topic-config.js'
import { describeGroupConfigs, groupConfigValue, validateGroupConfigs } from '../config/group-config.js'
import { shareGroupSettingsOf } from './share-group-settings.js'
import { KafkaError } from '../protocol/errors.js'

export type BrokerConfigListener = (config: BrokerConfig) => void

type Store = Pick<MetadataStore, 'getBrokerConfigs' | 'setBrokerConfigs'> &
  Partial<Pick<MetadataStore, 'getGroupConfigs' | 'setGroupConfigs' | 'onChange'>>

export class BrokerConfigService implements ConfigService {
  private current: BrokerConfig
  private readonly listeners: BrokerConfigListener[] = []
  /** Alterations run one at a time, so a read-modify-write never loses a concurrent one. */
  private queue: Promise<unknown> = Promise.resolve()

  /**
   * `store` may be omitted for a broker without dynamic configs (tests); then changes are refused.
   */
  constructor(
    private readonly staticConfig: BrokerConfig,
    private readonly store?: Store,
    private readonly logger?: Logger,
  ) {
    this.current = store ? this.loadStored(store) : staticConfig
    store?.onChange?.((change) => {
      if (change.kind !== 'brokerConfigs') return
      if (change.resourceName !== '' && change.resourceName !== String(staticConfig.nodeId)) return
      // After the alterations under way, so a read-modify-write here sees the stored set.
      const run = async () => this.adopt(this.loadStored(store))
      this.queue = this.queue.then(run, run).catch(() => {})
    })
  }

  /** Swaps in a config whose dynamic layers differ from the current ones, and tells the listeners. */
  private adopt(config: BrokerConfig): void {
    const same = (a: Record<string, string>, b: Record<string, string>) =>
      Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v)
    if (
      same(config.dynamicTexts('default'), this.current.dynamicTexts('default')) &&
      same(config.dynamicTexts('broker'), this.current.dynamicTexts('broker'))
    ) {
      return
    }
    this.current = config
    for (const l of this.listeners) l(config)
  }

  /** The effective broker config: static, under the dynamic layers. */
  get config(): BrokerConfig {
    return this.current
  }

  /** Called with the new config after every applied change. */
  onChange(listener: BrokerConfigListener): void {
    this.listeners.push(listener)
  }

  describeTopic(topic: TopicRecord, keys: string[] | null): ConfigEntry[] {
    return describeTopicConfig(this.current, topic.configs, keys)
  }

  describeBroker(keys: string[] | null): ConfigEntry[] {
    return this.current.describeKeys(keys)
  }

  describeBrokerDefaults(keys: string[] | null): ConfigEntry[] {
    return this.current.describeDynamicDefaults(keys)
  }

  private groupConfigs(groupId: string): Readonly<Record<string, string>> {
    return this.store?.getGroupConfigs?.(groupId) ?? {}
  }

  shareGroupSettings(groupId: string): ShareGroupSettings {
    return shareGroupSettingsOf(this.current, this.groupConfigs(groupId))
  }

  /** A group's own session timeout and heartbeat interval (its group configs within the broker's bounds). */
  groupTimeouts(kind: 'consumer' | 'share', groupId: string): { sessionTimeoutMs?: number; heartbeatIntervalMs?: number } {
    const own = this.groupConfigs(groupId)
    const out: { sessionTimeoutMs?: number; heartbeatIntervalMs?: number } = {}
    if (own[`${kind}.session.timeout.ms`] !== undefined)
      out.sessionTimeoutMs = groupConfigValue(this.current, own, `${kind}.session.timeout.ms`) as number
    if (own[`${kind}.heartbeat.interval.ms`] !== undefined) {
      out.heartbeatIntervalMs = groupConfigValue(this.current, own, `${kind}.heartbeat.interval.ms`) as number
    }
    return out
  }

  describeGroup(groupId: string, keys: string[] | null): ConfigEntry[] {
    return describeGroupConfigs(this.current, this.groupConfigs(groupId), keys)
  }

  alterGroupConfigs(
    groupId: string,
    change: (current: Readonly<Record<string, string>>) => Record<string, string>,
    validateOnly: boolean,
  ): Promise<void> {
    const run = async () => {
      if (groupId === '') throw new KafkaError('INVALID_REQUEST', 'Group config resource name must not be empty.')
      const next = validateGroupConfigs(change(this.groupConfigs(groupId)), this.current)
      if (validateOnly) return
      if (!this.store?.setGroupConfigs) throw new Error('group configs need a metadata store')
      await this.store.setGroupConfigs(groupId, next)
      this.logger?.info('group config changed', { group: groupId, configs: next })
    }
    const p = this.queue.then(run, run)
    this.queue = p.catch(() => {})
    return p
  }

  brokerConfigs(resourceName: string): Record<string, string> {
    checkBrokerResourceName(resourceName, this.staticConfig.nodeId)
    return this.current.dynamicTexts(resourceName === '' ? 'default' : 'broker')
  }

  alterBrokerConfigs(
    resourceName: string,
    change: (current: Readonly<Record<string, string>>) => Record<string, string>,
    validateOnly: boolean,
  ): Promise<void> {
    const run = async () => {
      const level = resourceName === '' ? 'default' : 'broker'
      const next = validateDynamicBrokerConfigs(change(this.brokerConfigs(resourceName)))
      const other = this.current.dynamicTexts(level === 'default' ? 'broker' : 'default')
      // Building the config checks the rules across keys (e.g. compaction lags) with both layers.
      let config: BrokerConfig
      try {
        config = level === 'default' ? this.staticConfig.withDynamic(next, other) : this.staticConfig.withDynamic(other, next)
      } catch (err) {
        if (err instanceof ConfigError) throw new KafkaError('INVALID_REQUEST', err.message)
        throw err
      }
      if (validateOnly) return
      if (!this.store) throw new Error('dynamic broker configs need a metadata store')
      await this.store.setBrokerConfigs(level === 'default' ? '' : String(this.staticConfig.nodeId), next)
      this.logger?.info('dynamic broker config changed', { resource: resourceName === '' ? '<default>' : resourceName, configs: next })
      this.adopt(config)
    }
    const p = this.queue.then(run, run)
    this.queue = p.catch(() => {})
    return p
  }

  private loadStored(store: Store): BrokerConfig {
    const usable = (set: Readonly<Record<string, string>>, what: string): Record<string, string> => {
      const out: Record<string, string> = {}
      for (const [k, v] of Object.entries(set)) {
        try {
          if (!isDynamicBrokerConfig(k)) throw new Error('it cannot be changed at run time')
          Object.assign(out, validateDynamicBrokerConfigs({ [k]: v }))
        } catch (err) {
          this.logger?.warn('skipping a stored dynamic broker config', { resource: what, key: k, value: v, error: (err as Error).message })
        }
      }
      return out
    }
    const nodeId = this.staticConfig.nodeId
    const clusterDefault = usable(store.getBrokerConfigs(''), '<default>')
    const broker = usable(store.getBrokerConfigs(String(nodeId)), String(nodeId))
    try {
      return this.staticConfig.withDynamic(clusterDefault, broker)
    } catch (err) {
      this.logger?.warn('ignoring the stored dynamic broker configs', { error: (err as Error).message })
      return this.staticConfig
    }
  }
}
