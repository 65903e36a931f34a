import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import {
  BROKER_CONFIG_DEFS,
  buildBrokerConfig,
  ConfigError,
  ConfigSource,
  ConfigTypeId,
  configKeyToEnvVar,
  defaultBrokerConfig,
  envVarToConfigKey,
  loadBrokerConfig,
  parseOverride,
  TOPIC_CONFIG_DEFS,
  topicNameOf,
} from '../../../src/config/config.js'
import {
  describeTopicConfig,
  resolveTopicConfig,
  topicConfigText,
  topicDefaults,
  validateTopicConfig,
  validateTopicConfigs,
} from '../../../src/config/topic-config.js'

const LONG_MAX = '9223372036854775807'

function expectConfigError(fn: () => unknown, ...patterns: RegExp[]): ConfigError {
  let caught: unknown
  try {
    fn()
  } catch (e) {
    caught = e
  }
  assert.ok(caught instanceof ConfigError, `expected ConfigError, got ${String(caught)}`)
  for (const p of patterns) assert.match(caught.message, p)
  assert.equal(caught.code, 40, 'ConfigError maps to INVALID_CONFIG')
  return caught
}

describe('broker config defaults', () => {
  it("uses Kafka's names and defaults, with our single-node choices", () => {
    const c = defaultBrokerConfig()
    assert.equal(c.get('num.partitions'), 1)
    assert.equal(c.get('default.replication.factor'), 1)
    assert.equal(c.get('auto.create.topics.enable'), true)
    assert.equal(c.get('delete.topic.enable'), true)
    assert.equal(c.get('message.max.bytes'), 1048588)
    assert.equal(c.get('socket.request.max.bytes'), 104857600)
    assert.equal(c.get('connections.max.idle.ms'), 600000)
    assert.equal(c.get('queued.max.requests'), 500)
    assert.equal(c.get('log.segment.bytes'), 1073741824)
    assert.equal(c.get('log.roll.hours'), 168)
    assert.equal(c.get('log.roll.ms'), null)
    assert.equal(c.get('log.retention.hours'), 168)
    assert.equal(c.get('log.retention.bytes'), -1)
    assert.deepEqual(c.get('log.cleanup.policy'), ['delete'])
    assert.equal(c.get('log.message.timestamp.type'), 'CreateTime')
    assert.equal(c.get('compression.type'), 'producer')
    assert.equal(c.get('offsets.topic.num.partitions'), 50)
    assert.equal(c.get('offsets.topic.replication.factor'), 1)
    assert.equal(c.get('group.initial.rebalance.delay.ms'), 3000)
    assert.equal(c.get('group.min.session.timeout.ms'), 6000)
    assert.equal(c.get('group.max.session.timeout.ms'), 1800000)
    assert.equal(c.get('fetch.max.bytes'), 57671680)
    assert.equal(c.get('replica.lag.time.max.ms'), 30000)
    assert.equal(c.get('unclean.leader.election.enable'), false)
    assert.equal(c.get('cluster.id'), null)
    assert.equal(c.nodeId, 0)
    assert.deepEqual(c.logDirs, ['./tributary-data'])
    assert.deepEqual(c.listeners, [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 9092, securityProtocol: 'PLAINTEXT' }])
    assert.deepEqual(c.advertisedListeners, c.listeners)
    assert.equal(c.interBrokerListenerName, 'PLAINTEXT')
  })

  it('Long.MAX_VALUE ("never") becomes MAX_SAFE_INTEGER but is described as Long.MAX_VALUE', () => {
    const c = defaultBrokerConfig()
    assert.equal(c.get('log.flush.interval.messages'), Number.MAX_SAFE_INTEGER)
    assert.equal(c.text('log.flush.interval.messages'), LONG_MAX)
    assert.equal(c.describe('log.flush.interval.messages')!.value, LONG_MAX)
    assert.equal(topicDefaults(c)['flush.ms'], Number.MAX_SAFE_INTEGER)
    assert.equal(topicConfigText(c, {}, 'flush.ms'), LONG_MAX)
  })

  it('types get() from the table', () => {
    const c = defaultBrokerConfig()
    const n: number = c.get('num.partitions')
    const r: number | null = c.get('log.retention.ms')
    const l: readonly string[] = c.get('log.cleanup.policy')
    const b: boolean = c.get('auto.create.topics.enable')
    assert.deepEqual([n, r, l, b], [1, null, ['delete'], true])
    // @ts-expect-error unknown keys do not type-check
    assert.throws(() => c.get('no.such.key'))
  })

  it('every table default parses and every topic synonym is a broker config', () => {
    const names = new Set<string>(BROKER_CONFIG_DEFS.map((d) => d.name))
    for (const t of TOPIC_CONFIG_DEFS) {
      for (const s of ('brokerSynonyms' in t ? t.brokerSynonyms : []) as readonly { name: string }[]) {
        assert.ok(names.has(s.name), `${t.name} synonym ${s.name} is a broker config`)
        assert.equal(topicNameOf(s.name), t.name)
      }
    }
    assert.equal(names.size, BROKER_CONFIG_DEFS.length, 'no duplicate broker keys')
    assert.equal(new Set(TOPIC_CONFIG_DEFS.map((d) => d.name)).size, TOPIC_CONFIG_DEFS.length)
  })
})

describe('config sources and precedence', () => {
  it('defaults < file < env < programmatic values < overrides', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tributary-config-'))
    try {
      const file = join(dir, 'server.properties')
      await writeFile(file, 'num.partitions=2\nlog.retention.hours=10\nmessage.max.bytes=1000\nqueued.max.requests=7\n')
      const { config } = await loadBrokerConfig({
        file,
        env: { TRIBUTARY_LOG_RETENTION_HOURS: '20', TRIBUTARY_MESSAGE_MAX_BYTES: '2000', TRIBUTARY_QUEUED_MAX_REQUESTS: '8', PATH: '/bin' },
        values: { 'message.max.bytes': 3000, 'queued.max.requests': 9 },
        overrides: ['queued.max.requests=10'],
      })
      assert.equal(config.get('num.partitions'), 2)
      assert.equal(config.origin('num.partitions'), 'file')
      assert.equal(config.get('log.retention.hours'), 20)
      assert.equal(config.origin('log.retention.hours'), 'env')
      assert.equal(config.get('message.max.bytes'), 3000)
      assert.equal(config.origin('message.max.bytes'), 'programmatic')
      assert.equal(config.get('queued.max.requests'), 10)
      assert.equal(config.origin('queued.max.requests'), 'override')
      assert.equal(config.origin('fetch.max.bytes'), 'default')
      assert.equal(config.isSet('fetch.max.bytes'), false)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('maps TRIBUTARY_* variables to keys (Kafka Docker conventions for _ and -)', () => {
    assert.equal(envVarToConfigKey('TRIBUTARY_LOG_RETENTION_HOURS'), 'log.retention.hours')
    assert.equal(envVarToConfigKey('TRIBUTARY_SOME__KEY'), 'some_key')
    assert.equal(envVarToConfigKey('TRIBUTARY_SOME___KEY_X'), 'some-key.x')
    assert.equal(envVarToConfigKey('KAFKA_LOG_RETENTION_HOURS'), undefined)
    assert.equal(envVarToConfigKey('TRIBUTARY_'), undefined)
    for (const k of ['log.retention.hours', 'some_key', 'a-b.c']) assert.equal(envVarToConfigKey(configKeyToEnvVar(k)), k)
    const { config } = buildBrokerConfig({ env: { TRIBUTARY_AUTO_CREATE_TOPICS_ENABLE: 'FALSE' } })
    assert.equal(config.get('auto.create.topics.enable'), false)
  })

  it('reads process.env when no env is given', async () => {
    process.env.TRIBUTARY_NUM_PARTITIONS = '4'
    try {
      const { config } = await loadBrokerConfig({})
      assert.equal(config.get('num.partitions'), 4)
      assert.equal((await loadBrokerConfig({ env: {} })).config.get('num.partitions'), 1)
    } finally {
      delete process.env.TRIBUTARY_NUM_PARTITIONS
    }
  })

  it('overrides come as key=value strings or as a map', () => {
    assert.deepEqual(parseOverride('a.b=c=d'), ['a.b', 'c=d'])
    expectConfigError(() => parseOverride('novalue'), /novalue/, /key=value/)
    expectConfigError(() => parseOverride('=x'))
    const { config } = buildBrokerConfig({ overrides: { 'num.partitions': '6' } })
    assert.equal(config.get('num.partitions'), 6)
  })

  it('unknown keys are warnings, with a hint for topic-level names', () => {
    const { config, warnings } = buildBrokerConfig({
      overrides: ['no.such.thing=1', 'retention.ms=5'],
      env: { TRIBUTARY_NOT_A_KEY: 'x' },
    })
    assert.equal(warnings.length, 3)
    assert.match(warnings.join('\n'), /'not\.a\.key' \(from environment variable TRIBUTARY_NOT_A_KEY\)/)
    assert.match(warnings.join('\n'), /'no\.such\.thing' \(from --override no\.such\.thing\) was supplied but isn't a known config/)
    assert.match(warnings.join('\n'), /'retention\.ms'.*log\.retention\.ms/)
    assert.equal(config.get('num.partitions'), 1)
  })
})

describe('value validation', () => {
  const load = (values: Record<string, string | number | boolean>) => buildBrokerConfig({ values })

  it('names the key, the value, the source and what was expected', () => {
    const e = expectConfigError(
      () => buildBrokerConfig({ env: { TRIBUTARY_LOG_SEGMENT_BYTES: '10' } }),
      /log\.segment\.bytes/,
      /"10"/,
      /environment variable TRIBUTARY_LOG_SEGMENT_BYTES/,
      /at least 14/,
    )
    assert.equal(e.key, 'log.segment.bytes')
    assert.equal(e.value, '10')
  })

  it('checks types: int range, long range, booleans, doubles', () => {
    expectConfigError(() => load({ 'num.partitions': '2147483648' }), /32-bit integer/)
    expectConfigError(() => load({ 'num.partitions': 1.5 }), /num\.partitions/)
    expectConfigError(() => load({ 'num.partitions': true }), /num\.partitions/)
    expectConfigError(() => load({ 'num.partitions': '' }), /num\.partitions/)
    expectConfigError(() => load({ 'log.retention.bytes': '9223372036854775808' }), /64-bit integer/)
    expectConfigError(() => load({ 'auto.create.topics.enable': 'yes' }), /true or false/)
    expectConfigError(() => load({ 'log.cleaner.min.cleanable.ratio': 'NaN' }), /a number/)
    expectConfigError(() => load({ 'log.cleaner.min.cleanable.ratio': '1.5' }), /between 0 and 1/)
    assert.equal(load({ 'num.partitions': ' +7 ' }).config.get('num.partitions'), 7)
    assert.equal(load({ 'log.retention.bytes': LONG_MAX }).config.get('log.retention.bytes'), Number.MAX_SAFE_INTEGER)
    assert.equal(load({ 'auto.create.topics.enable': false }).config.get('auto.create.topics.enable'), false)
  })

  it('checks one-of values, for strings and list elements', () => {
    expectConfigError(() => load({ 'compression.type': 'brotli' }), /one of uncompressed, zstd, lz4, snappy, gzip, producer/)
    expectConfigError(() => load({ 'log.cleanup.policy': 'compact,forever' }), /a list of compact, delete/)
    assert.deepEqual(load({ 'log.cleanup.policy': ' compact , delete,' }).config.get('log.cleanup.policy'), ['compact', 'delete'])
    expectConfigError(() => load({ 'compression.gzip.level': 10 }), /-1 or a level from 1 to 9/)
  })

  it('node.id and broker.id are one setting', () => {
    assert.equal(load({ 'broker.id': 3 }).config.nodeId, 3)
    assert.equal(load({ 'broker.id': 3 }).config.get('node.id'), 3)
    assert.equal(load({ 'node.id': 4 }).config.get('broker.id'), 4)
    assert.equal(load({ 'node.id': 4, 'broker.id': 4 }).config.nodeId, 4)
    expectConfigError(() => load({ 'node.id': 4, 'broker.id': 5 }), /node\.id \(4\) and broker\.id \(5\)/)
  })

  it('checks rules across keys', () => {
    expectConfigError(
      () => load({ 'group.min.session.timeout.ms': 10000, 'group.max.session.timeout.ms': 9000 }),
      /group\.min\.session\.timeout\.ms/,
    )
  })

  it('log.dirs wins over log.dir', () => {
    assert.deepEqual(load({ 'log.dir': '/a' }).config.logDirs, ['/a'])
    assert.deepEqual(load({ 'log.dir': '/a', 'log.dirs': '/b,/c' }).config.logDirs, ['/b', '/c'])
  })
})

describe('listeners', () => {
  const load = (values: Record<string, string>) => buildBrokerConfig({ values }).config

  it('advertises wildcard hosts as 127.0.0.1, keeps port 0 for the caller to fill', () => {
    const c = load({ listeners: 'PLAINTEXT://0.0.0.0:0' })
    assert.equal(c.listeners[0]!.host, '0.0.0.0')
    assert.deepEqual(c.advertisedListeners, [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 0, securityProtocol: 'PLAINTEXT' }])
  })

  it('uses advertised.listeners when given, and refuses wildcard or unknown names there', () => {
    const c = load({ listeners: 'PLAINTEXT://:9092', 'advertised.listeners': 'PLAINTEXT://broker1.example.com:9092' })
    assert.equal(c.advertisedListeners[0]!.host, 'broker1.example.com')
    expectConfigError(
      () => load({ listeners: 'PLAINTEXT://:9092', 'advertised.listeners': 'PLAINTEXT://0.0.0.0:9092' }),
      /advertised\.listeners/,
      /non-routable/,
    )
    expectConfigError(
      () =>
        load({
          listeners: 'PLAINTEXT://:9092',
          'advertised.listeners': 'OTHER://h:9092',
          'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,OTHER:PLAINTEXT',
        }),
      /OTHER is not one of the listeners/,
    )
  })

  it('custom listener names need the protocol map; the inter-broker listener falls back sensibly', () => {
    expectConfigError(() => load({ listeners: 'CLIENT://:9092' }), /configuration listeners/, /CLIENT/)
    const c = load({
      listeners: 'CLIENT://:9092,REPL://:9093',
      'listener.security.protocol.map': 'CLIENT:PLAINTEXT,REPL:PLAINTEXT',
    })
    assert.equal(c.interBrokerListenerName, 'CLIENT')
    const d = load({
      listeners: 'CLIENT://:9092,REPL://:9093',
      'listener.security.protocol.map': 'CLIENT:PLAINTEXT,REPL:PLAINTEXT',
      'inter.broker.listener.name': 'repl',
    })
    assert.equal(d.interBrokerListenerName, 'REPL')
    expectConfigError(() => load({ 'inter.broker.listener.name': 'NOPE' }), /inter\.broker\.listener\.name/)
  })

  it('refuses malformed listeners naming the key', () => {
    expectConfigError(() => load({ listeners: 'localhost:9092' }), /configuration listeners/)
    expectConfigError(() => load({ listeners: 'PLAINTEXT://h:99999' }), /configuration listeners/)
    expectConfigError(() => load({ 'listener.security.protocol.map': 'PLAINTEXT:TLS' }), /listener\.security\.protocol\.map/)
  })
})

describe('topic configs derived from broker synonyms', () => {
  const cfg = (values: Record<string, string | number | boolean>) => buildBrokerConfig({ values }).config

  it('retention: log.retention.ms > log.retention.minutes > log.retention.hours', () => {
    assert.equal(topicDefaults(cfg({}))['retention.ms'], 7 * 24 * 3600_000)
    assert.equal(topicDefaults(cfg({ 'log.retention.hours': 1 }))['retention.ms'], 3600_000)
    assert.equal(topicDefaults(cfg({ 'log.retention.hours': 1, 'log.retention.minutes': 2 }))['retention.ms'], 120_000)
    assert.equal(topicDefaults(cfg({ 'log.retention.hours': 1, 'log.retention.minutes': 2, 'log.retention.ms': 5 }))['retention.ms'], 5)
    assert.equal(topicDefaults(cfg({ 'log.retention.ms': -1 }))['retention.ms'], -1)
    assert.equal(topicDefaults(cfg({ 'log.retention.hours': -5 }))['retention.ms'], -1, 'negative means forever')
  })

  it('segment.ms: log.roll.ms > log.roll.hours; flush.ms: interval > scheduler interval', () => {
    assert.equal(topicDefaults(cfg({ 'log.roll.hours': 2 }))['segment.ms'], 7_200_000)
    assert.equal(topicDefaults(cfg({ 'log.roll.hours': 2, 'log.roll.ms': 100 }))['segment.ms'], 100)
    assert.equal(topicDefaults(cfg({ 'log.flush.scheduler.interval.ms': 500 }))['flush.ms'], 500)
    assert.equal(topicDefaults(cfg({ 'log.flush.scheduler.interval.ms': 500, 'log.flush.interval.ms': 50 }))['flush.ms'], 50)
  })

  it('the other synonyms map one to one', () => {
    const d = topicDefaults(
      cfg({
        'log.segment.bytes': 1000,
        'message.max.bytes': 2000,
        'log.index.interval.bytes': 10,
        'log.index.size.max.bytes': 4096,
        'log.flush.interval.messages': 3,
        'log.cleanup.policy': 'compact,delete',
        'log.retention.bytes': 1234,
        'min.insync.replicas': 2,
        'compression.type': 'zstd',
        'log.message.timestamp.type': 'LogAppendTime',
        'unclean.leader.election.enable': true,
      }),
    )
    assert.equal(d['segment.bytes'], 1000)
    assert.equal(d['max.message.bytes'], 2000)
    assert.equal(d['index.interval.bytes'], 10)
    assert.equal(d['segment.index.bytes'], 4096)
    assert.equal(d['flush.messages'], 3)
    assert.deepEqual(d['cleanup.policy'], ['compact', 'delete'])
    assert.equal(d['retention.bytes'], 1234)
    assert.equal(d['min.insync.replicas'], 2)
    assert.equal(d['compression.type'], 'zstd')
    assert.equal(d['message.timestamp.type'], 'LogAppendTime')
    assert.equal(d['unclean.leader.election.enable'], true)
  })

  it('resolveTopicConfig lays topic overrides over the broker defaults', () => {
    const c = cfg({ 'log.retention.hours': 1 })
    const r = resolveTopicConfig(c, { 'segment.bytes': '2048', 'cleanup.policy': 'compact' })
    assert.equal(r['segment.bytes'], 2048)
    assert.deepEqual(r['cleanup.policy'], ['compact'])
    assert.equal(r['retention.ms'], 3600_000)
  })
})

describe('validating topic configs', () => {
  it('returns canonical text, refuses unknown names and bad values with INVALID_CONFIG', () => {
    assert.equal(validateTopicConfig('retention.ms', ' 1000 '), '1000')
    assert.equal(validateTopicConfig('cleanup.policy', 'compact, delete'), 'compact,delete')
    expectConfigError(() => validateTopicConfig('retention.hours', '1'), /Unknown topic config name: retention\.hours/)
    expectConfigError(() => validateTopicConfig('retention.ms', '-2'), /retention\.ms/, /at least -1/)
    expectConfigError(() => validateTopicConfig('segment.bytes', '1e9'), /segment\.bytes/)
    expectConfigError(() => validateTopicConfig('message.timestamp.type', 'Now'), /CreateTime, LogAppendTime/)
  })

  it('checks rules across keys of the whole set', () => {
    assert.deepEqual(validateTopicConfigs({ 'min.compaction.lag.ms': '10', 'max.compaction.lag.ms': '20' }), {
      'min.compaction.lag.ms': '10',
      'max.compaction.lag.ms': '20',
    })
    expectConfigError(
      () => validateTopicConfigs({ 'min.compaction.lag.ms': '30', 'max.compaction.lag.ms': '20' }),
      /min\.compaction\.lag\.ms/,
    )
  })
})

describe('DescribeConfigs', () => {
  it('describes a topic: override, broker synonym or default, with synonyms in priority order', () => {
    const c = buildBrokerConfig({ values: { 'log.retention.minutes': 30, 'log.retention.hours': 2 } }).config
    const byName = new Map(describeTopicConfig(c, { 'segment.bytes': '4096' }).map((e) => [e.name, e]))
    assert.equal(byName.size, TOPIC_CONFIG_DEFS.length, 'every topic config is listed')

    const seg = byName.get('segment.bytes')!
    assert.equal(seg.value, '4096')
    assert.equal(seg.source, ConfigSource.TOPIC_CONFIG)
    assert.equal(seg.isDefault, false)
    assert.deepEqual(seg.synonyms, [
      { name: 'segment.bytes', value: '4096', source: ConfigSource.TOPIC_CONFIG },
      { name: 'log.segment.bytes', value: '1073741824', source: ConfigSource.DEFAULT_CONFIG },
    ])
    assert.equal(seg.type, ConfigTypeId.INT)

    const ret = byName.get('retention.ms')!
    assert.equal(ret.value, '1800000')
    assert.equal(ret.source, ConfigSource.STATIC_BROKER_CONFIG)
    assert.deepEqual(ret.synonyms, [
      { name: 'log.retention.minutes', value: '30', source: ConfigSource.STATIC_BROKER_CONFIG },
      { name: 'log.retention.hours', value: '2', source: ConfigSource.STATIC_BROKER_CONFIG },
      { name: 'log.retention.hours', value: '168', source: ConfigSource.DEFAULT_CONFIG },
    ])
    assert.equal(ret.type, ConfigTypeId.LONG)

    const mmb = byName.get('max.message.bytes')!
    assert.equal(mmb.value, '1048588')
    assert.equal(mmb.source, ConfigSource.DEFAULT_CONFIG)
    assert.equal(mmb.isDefault, true)
    assert.equal(mmb.readOnly, false)
    assert.deepEqual(mmb.synonyms, [{ name: 'message.max.bytes', value: '1048588', source: ConfigSource.DEFAULT_CONFIG }])
  })

  it('describes only the requested topic keys, leaving unknown ones out', () => {
    const c = defaultBrokerConfig()
    assert.deepEqual(
      describeTopicConfig(c, {}, ['cleanup.policy', 'bogus']).map((e) => [e.name, e.value]),
      [['cleanup.policy', 'delete']],
    )
  })

  it('describes the broker: static or default source, read-only, synonyms', () => {
    const c = buildBrokerConfig({ values: { 'log.retention.hours': 5, 'num.partitions': 3 } }).config
    const entries = c.entries()
    assert.equal(entries.length, BROKER_CONFIG_DEFS.length)
    const np = c.describe('num.partitions')!
    assert.equal(np.value, '3')
    assert.equal(np.source, ConfigSource.STATIC_BROKER_CONFIG)
    assert.equal(np.readOnly, true)
    assert.deepEqual(np.synonyms, [
      { name: 'num.partitions', value: '3', source: ConfigSource.STATIC_BROKER_CONFIG },
      { name: 'num.partitions', value: '1', source: ConfigSource.DEFAULT_CONFIG },
    ])
    const ms = c.describe('log.retention.ms')!
    assert.equal(ms.value, null)
    assert.equal(ms.source, ConfigSource.DEFAULT_CONFIG)
    assert.deepEqual(ms.synonyms, [
      { name: 'log.retention.hours', value: '5', source: ConfigSource.STATIC_BROKER_CONFIG },
      { name: 'log.retention.hours', value: '168', source: ConfigSource.DEFAULT_CONFIG },
    ])
    assert.deepEqual(
      c.describeKeys(['num.partitions', 'nope']).map((e) => e.name),
      ['num.partitions'],
    )
    assert.equal(c.describeKeys(null).length, BROKER_CONFIG_DEFS.length)
  })
})
