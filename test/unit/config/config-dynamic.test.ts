// Dynamic broker configs (KIP-226) and the config-change rules shared by AlterConfigs and
// IncrementalAlterConfigs: incremental operations, which broker keys may change at run time, the
// layering of dynamic values over the static config, and how DescribeConfigs reports them.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { buildBrokerConfig, ConfigSource, defaultBrokerConfig } from '../../../src/config/config.js'
import { describeTopicConfig, topicDefaults } from '../../../src/config/topic-config.js'
import {
  AlterConfigOp,
  applyIncrementalOps,
  checkBrokerResourceName,
  validateDynamicBrokerConfigs,
} from '../../../src/config/config-dynamic.js'
import { BrokerConfigService } from '../../../src/broker/config-service.js'
import { isDynamicBrokerConfig } from '../../../src/config/config-values.js'
import { KafkaError } from '../../../src/protocol/errors.js'
import type { StoreChange } from '../../../src/ports/metadata-store.js'

function errorOf(fn: () => unknown): { name: string; message: string } {
  try {
    fn()
  } catch (err) {
    assert.ok(err instanceof KafkaError, String(err))
    return { name: err.errorName, message: err.message }
  }
  assert.fail('expected a KafkaError')
}

const { SET, DELETE, APPEND, SUBTRACT } = AlterConfigOp

describe('incremental config operations', () => {
  it('SET and DELETE change only the keys named', () => {
    const next = applyIncrementalOps(
      { 'retention.ms': '1000', 'segment.bytes': '4096' },
      [
        { name: 'retention.ms', op: SET, value: '2000' },
        { name: 'segment.bytes', op: DELETE, value: null },
        { name: 'flush.messages', op: SET, value: '5' },
      ],
      'topic',
    )
    assert.deepEqual(next, { 'retention.ms': '2000', 'flush.messages': '5' })
  })

  it('APPEND and SUBTRACT edit list keys, starting from the default when unset', () => {
    const appended = applyIncrementalOps({}, [{ name: 'cleanup.policy', op: APPEND, value: 'compact' }], 'topic')
    assert.deepEqual(appended, { 'cleanup.policy': 'delete,compact' })
    const again = applyIncrementalOps(appended, [{ name: 'cleanup.policy', op: APPEND, value: 'compact,delete' }], 'topic')
    assert.deepEqual(again, { 'cleanup.policy': 'delete,compact' }, 'present values are not added twice')
    const subtracted = applyIncrementalOps(again, [{ name: 'cleanup.policy', op: SUBTRACT, value: 'delete' }], 'topic')
    assert.deepEqual(subtracted, { 'cleanup.policy': 'compact' })
    const broker = applyIncrementalOps({}, [{ name: 'log.cleanup.policy', op: APPEND, value: 'compact' }], 'broker')
    assert.deepEqual(broker, { 'log.cleanup.policy': 'delete,compact' })
  })

  it('refuses APPEND/SUBTRACT on non-list keys and unknown names (INVALID_CONFIG), unknown operations (INVALID_REQUEST)', () => {
    const notList = errorOf(() => applyIncrementalOps({}, [{ name: 'retention.ms', op: APPEND, value: '1' }], 'topic'))
    assert.equal(notList.name, 'INVALID_CONFIG')
    assert.match(notList.message, /retention\.ms.*not LIST/)
    assert.equal(errorOf(() => applyIncrementalOps({}, [{ name: 'segment.ms', op: SUBTRACT, value: '1' }], 'topic')).name, 'INVALID_CONFIG')
    const unknown = errorOf(() => applyIncrementalOps({}, [{ name: 'no.such.key', op: SET, value: '1' }], 'topic'))
    assert.equal(unknown.name, 'INVALID_CONFIG')
    assert.match(unknown.message, /Unknown topic config name: no\.such\.key/)
    assert.equal(errorOf(() => applyIncrementalOps({}, [{ name: 'retention.ms', op: 7, value: '1' }], 'topic')).name, 'INVALID_REQUEST')
  })
})

describe('dynamic broker config validation', () => {
  it('accepts the highest-priority broker synonym of each topic config, in canonical form', () => {
    assert.deepEqual(validateDynamicBrokerConfigs({ 'log.retention.ms': ' 60000 ', 'message.max.bytes': '2048' }), {
      'log.retention.ms': '60000',
      'message.max.bytes': '2048',
    })
    assert.ok(isDynamicBrokerConfig('log.segment.bytes'))
    assert.ok(isDynamicBrokerConfig('log.message.timestamp.type'))
    assert.ok(!isDynamicBrokerConfig('log.retention.hours'), 'only the first synonym, as Kafka')
    assert.ok(!isDynamicBrokerConfig('listeners'))
  })

  it("takes Kafka's DynamicConnectionQuota keys and their listener forms (ListenerConnectionQuota)", () => {
    for (const k of ['max.connections', 'max.connections.per.ip', 'max.connections.per.ip.overrides', 'max.connection.creation.rate']) {
      assert.ok(isDynamicBrokerConfig(k), k)
    }
    assert.ok(isDynamicBrokerConfig('listener.name.plaintext.max.connections'))
    assert.ok(isDynamicBrokerConfig('listener.name.internal.max.connection.creation.rate'))
    assert.ok(!isDynamicBrokerConfig('listener.name.plaintext.max.connections.per.ip'), 'per-ip limits are broker-wide')
    assert.deepEqual(
      validateDynamicBrokerConfigs({
        'max.connections': ' 100 ',
        'listener.name.plaintext.max.connection.creation.rate': '5',
        // Kafka stores the text as given (Csv.parseCsvMap checks it), spaces inside included.
        'max.connections.per.ip.overrides': '10.0.0.1:2, localhost:4,::1:3',
      }),
      {
        'max.connections': '100',
        'listener.name.plaintext.max.connection.creation.rate': '5',
        'max.connections.per.ip.overrides': '10.0.0.1:2, localhost:4,::1:3',
      },
    )
    // Kafka accepts an unresolvable host and any int count (a negative one refuses every connection of the address).
    validateDynamicBrokerConfigs({ 'max.connections.per.ip.overrides': 'no-such-host.invalid:5,10.9.9.9:-1' })
    for (const [k, v] of [
      ['max.connections', '-1'],
      ['max.connections.per.ip', '-1'],
      ['max.connection.creation.rate', 'abc'],
      ['max.connections.per.ip.overrides', 'abc'],
      ['max.connections.per.ip.overrides', '10.9.9.9:x'],
      ['listener.name.plaintext.max.connections', '-2'],
    ] as const) {
      const e = errorOf(() => validateDynamicBrokerConfigs({ [k]: v }))
      assert.equal(e.name, 'INVALID_REQUEST', `${k}=${v}`)
      assert.ok(e.message.includes(k), e.message)
    }
  })

  it('max.connections.per.ip=0 needs overrides (Kafka checks it across keys)', () => {
    const base = defaultBrokerConfig()
    assert.match(
      errorOf(() => base.withDynamic({ 'max.connections.per.ip': '0' }, {})).message,
      /zero only if max\.connections\.per\.ip\.overrides/,
    )
    const c = base.withDynamic({ 'max.connections.per.ip': '0' }, { 'max.connections.per.ip.overrides': '127.0.0.1:5' })
    assert.equal(c.get('max.connections.per.ip'), 0)
  })

  it('DescribeConfigs lists the listener-prefixed keys set, with their base key as synonym (as Kafka)', () => {
    const c = defaultBrokerConfig().withDynamic(
      { 'listener.name.plaintext.max.connection.creation.rate': '1000' },
      { 'listener.name.plaintext.max.connections': '500', 'max.connections.per.ip': '50' },
    )
    const byName = new Map(c.describeKeys(null).map((d) => [d.name, d]))
    const own = byName.get('listener.name.plaintext.max.connections')!
    assert.equal(own.value, '500')
    assert.equal(own.source, ConfigSource.DYNAMIC_BROKER_CONFIG)
    assert.equal(own.readOnly, false)
    assert.deepEqual(own.synonyms, [
      { name: 'listener.name.plaintext.max.connections', value: '500', source: ConfigSource.DYNAMIC_BROKER_CONFIG },
      { name: 'max.connections', value: '2147483647', source: ConfigSource.DEFAULT_CONFIG },
    ])
    assert.equal(byName.get('listener.name.plaintext.max.connection.creation.rate')!.source, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG)
    assert.equal(byName.get('max.connections.per.ip')!.source, ConfigSource.DYNAMIC_BROKER_CONFIG)
    assert.equal(byName.get('max.connections.per.ip.overrides')!.value, '')
    assert.deepEqual(
      c.describeDynamicDefaults(null).map((d) => [d.name, d.value]),
      [['listener.name.plaintext.max.connection.creation.rate', '1000']],
    )
    assert.equal(c.describe('listener.name.other.max.connections'), undefined, 'a prefixed key not set is not listed')
  })

  it('answers INVALID_CONFIG for unknown keys, INVALID_REQUEST for bad values (as Kafka 4.4) and keys fixed at start', () => {
    const unknown = errorOf(() => validateDynamicBrokerConfigs({ 'log.retention.forever': '1' }))
    assert.equal(unknown.name, 'INVALID_CONFIG')
    assert.match(unknown.message, /log\.retention\.forever/)
    const bad = errorOf(() => validateDynamicBrokerConfigs({ 'log.retention.ms': 'soon' }))
    assert.equal(bad.name, 'INVALID_REQUEST')
    assert.match(bad.message, /log\.retention\.ms/)
    const range = errorOf(() => validateDynamicBrokerConfigs({ 'log.segment.bytes': '10' }))
    assert.equal(range.name, 'INVALID_REQUEST')
    assert.match(range.message, /log\.segment\.bytes.*at least 14/)
    const fixed = errorOf(() => validateDynamicBrokerConfigs({ 'log.retention.hours': '1', listeners: 'PLAINTEXT://:1' }))
    assert.equal(fixed.name, 'INVALID_REQUEST')
    assert.match(fixed.message, /Cannot update these configs dynamically: log\.retention\.hours, listeners/)
  })

  it('takes "" or this node id as a broker resource name', () => {
    checkBrokerResourceName('', 3)
    checkBrokerResourceName('3', 3)
    assert.match(errorOf(() => checkBrokerResourceName('4', 3)).message, /Unexpected broker id, expected 3, but received 4/)
    assert.match(errorOf(() => checkBrokerResourceName('x', 3)).message, /Node id must be an integer/)
  })
})

describe('dynamic layers', () => {
  const base = buildBrokerConfig({ values: { 'log.retention.hours': 5, 'log.segment.bytes': 100_000 } }).config

  it('per-broker beats the cluster default, which beats the static value', () => {
    const c = base.withDynamic({ 'log.segment.bytes': '200000', 'log.retention.ms': '1000' }, { 'log.segment.bytes': '300000' })
    assert.equal(c.get('log.segment.bytes'), 300_000)
    assert.equal(c.sourceOf('log.segment.bytes'), ConfigSource.DYNAMIC_BROKER_CONFIG)
    assert.equal(c.get('log.retention.ms'), 1000)
    assert.equal(c.sourceOf('log.retention.ms'), ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG)
    assert.equal(base.get('log.segment.bytes'), 100_000, 'the static config is unchanged')
    const seg = c.describe('log.segment.bytes')!
    assert.equal(seg.value, '300000')
    assert.equal(seg.source, ConfigSource.DYNAMIC_BROKER_CONFIG)
    assert.equal(seg.readOnly, false)
    assert.deepEqual(seg.synonyms, [
      { name: 'log.segment.bytes', value: '300000', source: ConfigSource.DYNAMIC_BROKER_CONFIG },
      { name: 'log.segment.bytes', value: '200000', source: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG },
      { name: 'log.segment.bytes', value: '100000', source: ConfigSource.STATIC_BROKER_CONFIG },
      { name: 'log.segment.bytes', value: '1073741824', source: ConfigSource.DEFAULT_CONFIG },
    ])
    assert.equal(c.describe('num.partitions')!.readOnly, true)
  })

  it('flows into topic defaults with the dynamic source and synonyms level by level', () => {
    const c = base.withDynamic({ 'log.retention.ms': '60000' }, {})
    assert.equal(topicDefaults(c)['retention.ms'], 60_000)
    assert.equal(topicDefaults(base)['retention.ms'], 5 * 3_600_000)
    const ret = describeTopicConfig(c, {}, ['retention.ms'])[0]!
    assert.equal(ret.value, '60000')
    assert.equal(ret.source, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG)
    assert.deepEqual(ret.synonyms, [
      { name: 'log.retention.ms', value: '60000', source: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG },
      { name: 'log.retention.hours', value: '5', source: ConfigSource.STATIC_BROKER_CONFIG },
      { name: 'log.retention.hours', value: '168', source: ConfigSource.DEFAULT_CONFIG },
    ])
    const overridden = describeTopicConfig(c, { 'retention.ms': '5' }, ['retention.ms'])[0]!
    assert.equal(overridden.value, '5')
    assert.equal(overridden.source, ConfigSource.TOPIC_CONFIG)
  })

  it('describes the cluster-wide default resource: only keys set there', () => {
    const c = base.withDynamic({ 'log.retention.ms': '60000' }, { 'log.segment.bytes': '300000' })
    const d = c.describeDynamicDefaults(null)
    assert.deepEqual(
      d.map((e) => [e.name, e.value, e.source]),
      [['log.retention.ms', '60000', ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG]],
    )
    assert.deepEqual(d[0]!.synonyms, [{ name: 'log.retention.ms', value: '60000', source: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG }])
    assert.deepEqual(c.describeDynamicDefaults(['log.segment.bytes']), [])
  })

  it('refuses unknown names, bad values and broken cross-key rules', () => {
    assert.equal(errorOf(() => base.withDynamic({ nope: '1' }, {})).name, 'INVALID_CONFIG')
    assert.equal(errorOf(() => base.withDynamic({}, { 'log.retention.ms': 'x' })).name, 'INVALID_CONFIG')
    const lag = errorOf(() => base.withDynamic({ 'log.cleaner.min.compaction.lag.ms': '10', 'log.cleaner.max.compaction.lag.ms': '5' }, {}))
    assert.equal(lag.name, 'INVALID_CONFIG')
    assert.match(lag.message, /compaction\.lag/)
  })
})

describe('BrokerConfigService', () => {
  function fakeStore(initial: Record<string, Record<string, string>> = {}) {
    const sets = new Map(Object.entries(initial))
    const writes: Array<[string, Record<string, string>]> = []
    const listeners: Array<(c: StoreChange) => void> = []
    const emit = (resourceName: string) => {
      for (const l of listeners) l({ kind: 'brokerConfigs', resourceName })
    }
    return {
      writes,
      getBrokerConfigs: (name: string) => sets.get(name) ?? {},
      setBrokerConfigs: async (name: string, configs: Readonly<Record<string, string>>) => {
        writes.push([name, { ...configs }])
        sets.set(name, { ...configs })
        emit(name)
      },
      onChange: (l: (c: StoreChange) => void) => listeners.push(l),
      /** Another broker writes a set: the store tells every broker. */
      writtenElsewhere(name: string, configs: Record<string, string>) {
        sets.set(name, configs)
        emit(name)
      },
    }
  }

  it('follows the sets other brokers write to the store: the default and its own, not those of other brokers', async () => {
    const store = fakeStore()
    const svc = new BrokerConfigService(defaultBrokerConfig({ 'node.id': 1 }), store)
    const seen: Array<number> = []
    svc.onChange((c) => seen.push(c.get('max.connection.creation.rate')))
    store.writtenElsewhere('', { 'max.connection.creation.rate': '2' })
    store.writtenElsewhere('7', { 'max.connection.creation.rate': '9' })
    await svc.alterBrokerConfigs('1', (cur) => cur, true) // waits for the queue
    assert.equal(svc.config.get('max.connection.creation.rate'), 2)
    assert.equal(svc.config.sourceOf('max.connection.creation.rate'), ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG)
    store.writtenElsewhere('1', { 'max.connections.per.ip': '3' })
    store.writtenElsewhere('', {})
    await svc.alterBrokerConfigs('1', (cur) => cur, true)
    assert.equal(svc.config.get('max.connection.creation.rate'), 2147483647, 'removed from the default')
    assert.equal(svc.config.get('max.connections.per.ip'), 3)
    // Told once per new config: the two writes read together are one change, and its own
    // alteration (heard back from the store too) is told once.
    await svc.alterBrokerConfigs('1', (cur) => ({ ...cur, 'max.connections': '10' }), false)
    await svc.alterBrokerConfigs('1', (cur) => cur, true)
    assert.deepEqual(seen, [2, 2147483647, 2147483647])
    assert.equal(svc.config.get('max.connections'), 10)
  })

  it('validates, persists and applies a change, and tells the listeners', async () => {
    const store = fakeStore()
    const svc = new BrokerConfigService(defaultBrokerConfig({ 'node.id': 2 }), store)
    const seen: number[] = []
    svc.onChange((c) => seen.push(c.get('message.max.bytes')))
    await svc.alterBrokerConfigs('', () => ({ 'message.max.bytes': '5000' }), true)
    assert.deepEqual(store.writes, [], 'validate_only writes nothing')
    assert.equal(svc.config.get('message.max.bytes'), 1048588)
    await svc.alterBrokerConfigs('2', (cur) => ({ ...cur, 'message.max.bytes': '5000' }), false)
    assert.deepEqual(store.writes, [['2', { 'message.max.bytes': '5000' }]])
    assert.deepEqual(seen, [5000])
    assert.equal(svc.config.sourceOf('message.max.bytes'), ConfigSource.DYNAMIC_BROKER_CONFIG)
    assert.deepEqual(svc.brokerConfigs('2'), { 'message.max.bytes': '5000' })
    assert.deepEqual(svc.brokerConfigs(''), {})
    await assert.rejects(
      svc.alterBrokerConfigs('3', () => ({}), false),
      (e: unknown) => e instanceof KafkaError && e.errorName === 'INVALID_REQUEST',
    )
    await assert.rejects(
      svc.alterBrokerConfigs('', () => ({ 'log.dirs': '/x' }), false),
      (e: unknown) => e instanceof KafkaError && e.errorName === 'INVALID_REQUEST',
    )
    assert.equal(store.writes.length, 1, 'refused changes write nothing')
  })

  it('starts from the stored sets, skipping keys that no longer validate', () => {
    const store = fakeStore({
      '': { 'log.retention.ms': '1000', 'log.dirs': '/x' },
      '0': { 'log.segment.bytes': 'big' },
      '9': { 'log.segment.bytes': '20000' },
    })
    const svc = new BrokerConfigService(defaultBrokerConfig(), store)
    assert.equal(svc.config.get('log.retention.ms'), 1000)
    assert.equal(svc.config.get('log.segment.bytes'), 1073741824, 'bad and other brokers’ values are not applied')
    assert.deepEqual(svc.brokerConfigs(''), { 'log.retention.ms': '1000' })
  })
})
