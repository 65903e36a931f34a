// A share group's settings as its partition leaders apply them (ports/shares.ts ShareGroupSettings):
// the group's configs (config/group-config.ts) over the broker's group.share.* keys, within the
// broker's bounds. Here, above both the config model and the ports, because it joins the two.
import type { BrokerConfig } from '../config/config.js'
import { groupConfigValue } from '../config/group-config.js'
import type { ShareGroupSettings } from '../ports/shares.js'

/** The settings a share group's partition leaders apply: its group configs over the broker's group.share.* keys. */
export function shareGroupSettingsOf(broker: BrokerConfig, own: Readonly<Record<string, string>>): ShareGroupSettings {
  const v = (name: string) => groupConfigValue(broker, own, name)
  const dlq = v('errors.deadletterqueue.topic.name') as string
  return {
    recordLockDurationMs: v('share.record.lock.duration.ms') as number,
    deliveryCountLimit: v('share.delivery.count.limit') as number,
    autoOffsetReset: (v('share.auto.offset.reset') as string).toLowerCase(),
    isolationLevel: v('share.isolation.level') as ShareGroupSettings['isolationLevel'],
    deadLetterTopic: dlq === '' ? null : dlq,
    deadLetterCopyRecord: v('errors.deadletterqueue.copy.record.enable') as boolean,
    releaseBackoffMs: v('tributary.share.release.backoff.ms') as number,
    deliveryDelayMs: v('tributary.share.delivery.delay.ms') as number,
  }
}
