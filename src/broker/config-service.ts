// DescribeConfigs answers, from the broker config and the topics' overrides.
import type { TopicRecord } from '../cluster/metadata-store.js'
import type { ConfigEntry, ConfigService } from '../handlers/services.js'
import type { BrokerConfig } from './config.js'
import { describeTopicConfig } from './topic-config.js'

export class BrokerConfigService implements ConfigService {
  constructor(private readonly config: BrokerConfig) {}

  describeTopic(topic: TopicRecord, keys: string[] | null): ConfigEntry[] {
    return describeTopicConfig(this.config, topic.configs, keys)
  }

  describeBroker(keys: string[] | null): ConfigEntry[] {
    return this.config.describeKeys(keys)
  }
}
