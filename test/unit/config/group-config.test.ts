// Group configs (src/config/group-config.ts): Kafka's GroupConfig validation against the broker's
// bounds, the ISO-8601 durations of share.auto.offset.reset, and a share group's settings.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { defaultBrokerConfig } from '../../../src/config/config.js'
import { shareGroupSettingsOf } from '../../../src/broker/share-group-settings.js'
import { isoDurationMs, validateGroupConfigs } from '../../../src/config/group-config.js'
import { DEFAULT_SHARE_GROUP_SETTINGS } from '../../../src/ports/shares.js'

const broker = defaultBrokerConfig()
const refused = (configs: Record<string, string>, message: RegExp) =>
  assert.throws(
    () => validateGroupConfigs(configs, broker),
    (err: Error & { errorName?: string }) => err.errorName === 'INVALID_CONFIG' && message.test(err.message),
  )

describe('group configs', () => {
  it('accepts Kafka’s keys and KIP-1191’s and Tributary’s, returning canonical texts', () => {
    assert.deepEqual(
      validateGroupConfigs(
        {
          'share.record.lock.duration.ms': ' 20000 ',
          'share.delivery.count.limit': '3',
          'share.auto.offset.reset': 'by_duration:PT1H30M',
          'share.isolation.level': 'read_committed',
          'share.session.timeout.ms': '50000',
          'consumer.heartbeat.interval.ms': '6000',
          'errors.deadletterqueue.topic.name': 'dlq.orders',
          'errors.deadletterqueue.copy.record.enable': 'TRUE',
          'tributary.share.delivery.delay.ms': '1000',
          'streams.num.standby.replicas': '1',
        },
        broker,
      ),
      {
        'share.record.lock.duration.ms': '20000',
        'share.delivery.count.limit': '3',
        'share.auto.offset.reset': 'by_duration:PT1H30M',
        'share.isolation.level': 'read_committed',
        'share.session.timeout.ms': '50000',
        'consumer.heartbeat.interval.ms': '6000',
        'errors.deadletterqueue.topic.name': 'dlq.orders',
        'errors.deadletterqueue.copy.record.enable': 'true',
        'tributary.share.delivery.delay.ms': '1000',
        'streams.num.standby.replicas': '1',
      },
    )
  })

  it('refuses an unknown key, a bad value, and values outside the broker’s bounds with INVALID_CONFIG', () => {
    refused({ 'no.such.key': '1' }, /Unknown group config name: no\.such\.key/)
    refused({ 'share.delivery.count.limit': 'five' }, /share\.delivery\.count\.limit/)
    refused({ 'share.record.lock.duration.ms': '10000' }, /must be greater than or equal to group\.share\.min\.record\.lock\.duration\.ms/)
    refused({ 'share.record.lock.duration.ms': '70000' }, /must be less than or equal to group\.share\.max\.record\.lock\.duration\.ms/)
    refused({ 'share.delivery.count.limit': '11' }, /group\.share\.max\.delivery\.count\.limit/)
    refused({ 'share.session.timeout.ms': '30000' }, /group\.share\.min\.session\.timeout\.ms/)
    refused({ 'consumer.session.timeout.ms': '61000' }, /group\.consumer\.max\.session\.timeout\.ms/)
    refused({ 'share.heartbeat.interval.ms': '4000' }, /group\.share\.min\.heartbeat\.interval\.ms/)
    refused({ 'share.isolation.level': 'committed' }, /share\.isolation\.level/)
    refused({ 'share.auto.offset.reset': 'none' }, /share\.auto\.offset\.reset/)
    refused({ 'share.auto.offset.reset': 'by_duration:-PT1H' }, /share\.auto\.offset\.reset/)
    refused({ 'share.partition.max.record.locks': '50' }, /share\.partition\.max\.record\.locks/)
    refused({ 'tributary.share.release.backoff.ms': '-1' }, /tributary\.share\.release\.backoff\.ms/)
    // KIP-1191: not an internal topic.
    refused({ 'errors.deadletterqueue.topic.name': '__consumer_offsets' }, /must not start with '__'/)
  })

  it('a session timeout must exceed the heartbeat interval, with the broker’s value for the key not set', () => {
    const wide = defaultBrokerConfig({ 'group.share.min.session.timeout.ms': '1000', 'group.share.max.heartbeat.interval.ms': '50000' })
    assert.throws(
      () => validateGroupConfigs({ 'share.session.timeout.ms': '5000' }, wide),
      /share\.session\.timeout\.ms must be greater than share\.heartbeat\.interval\.ms/,
    )
    assert.throws(() => validateGroupConfigs({ 'share.heartbeat.interval.ms': '45000' }, wide), /must be greater than/)
    assert.deepEqual(validateGroupConfigs({ 'share.heartbeat.interval.ms': '44999' }, wide), { 'share.heartbeat.interval.ms': '44999' })
  })

  it('ISO-8601 durations as Java’s Duration.parse reads days and time', () => {
    assert.equal(isoDurationMs('PT1H'), 3_600_000)
    assert.equal(isoDurationMs('P1DT2M3.5S'), 86_400_000 + 120_000 + 3500)
    assert.equal(isoDurationMs('pt0s'), 0)
    for (const bad of ['P', 'PT', '1H', 'P1Y', 'PT-1S', '-PT1S']) assert.equal(isoDurationMs(bad), null, bad)
  })

  it('a share group’s settings: its configs over the broker’s group.share.* keys', () => {
    assert.deepEqual(shareGroupSettingsOf(broker, {}), DEFAULT_SHARE_GROUP_SETTINGS)
    const b = defaultBrokerConfig({ 'group.share.record.lock.duration.ms': '45000', 'group.share.delivery.count.limit': '7' })
    assert.deepEqual(
      shareGroupSettingsOf(b, {
        'share.auto.offset.reset': 'EARLIEST',
        'errors.deadletterqueue.topic.name': 'dlq.x',
        'errors.deadletterqueue.copy.record.enable': 'true',
        'tributary.share.release.backoff.ms': '250',
      }),
      {
        ...DEFAULT_SHARE_GROUP_SETTINGS,
        recordLockDurationMs: 45000,
        deliveryCountLimit: 7,
        autoOffsetReset: 'earliest',
        deadLetterTopic: 'dlq.x',
        deadLetterCopyRecord: true,
        releaseBackoffMs: 250,
      },
    )
    // A stored value outside bounds narrowed later is capped to them (Kafka's GroupConfig.evaluate).
    assert.equal(shareGroupSettingsOf(broker, { 'share.record.lock.duration.ms': '90000' }).recordLockDurationMs, 60000)
  })
})
