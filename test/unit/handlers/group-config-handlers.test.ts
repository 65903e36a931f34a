// Group configs through the config handlers (GROUP resource type 32): IncrementalAlterConfigs
// sets and deletes them, DescribeConfigs shows every key with its source, AlterConfigs refuses
// GROUP resources, the broker's ConfigService answers a share group's settings from them, and they
// persist in the metadata store across a reopen.
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import type { BrokerConfigService } from '../../../src/broker/config-service.js'
import { ConfigSource } from '../../../src/config/config.js'
import describeConfigs from '../../../src/handlers/32-describe-configs.js'
import alterConfigs from '../../../src/handlers/33-alter-configs.js'
import incrementalAlterConfigs from '../../../src/handlers/44-incremental-alter-configs.js'
import type { BrokerServices } from '../../../src/ports/broker-services.js'
import { ErrorCode } from '../../../src/protocol/errors.js'
import { silentLogger } from '../../../src/util/logger.js'
import { callHandler, openLocalBroker } from '../../helpers/local-broker.js'

const GROUP = 32
const { SET, DELETE, APPEND } = { SET: 0, DELETE: 1, APPEND: 2 }
const code = (name: keyof typeof ErrorCode) => ErrorCode[name].code

let dir: string
let broker: Awaited<ReturnType<typeof openLocalBroker>>
let services: BrokerServices
let configs: BrokerConfigService

async function open(): Promise<void> {
  broker = await openLocalBroker(dir, {})
  configs = broker.configs
  services = {
    nodeId: 0,
    clusterId: broker.store.clusterId(),
    clock: broker.clock,
    logger: silentLogger,
    configs,
  } as unknown as BrokerServices
}

const incremental = (resourceName: string, ops: Array<[string, number, string | null]>, validateOnly = false) => ({
  resources: [
    { resourceType: GROUP, resourceName, configs: ops.map(([name, configOperation, value]) => ({ name, configOperation, value })) },
  ],
  validateOnly,
})

async function describeGroup(groupId: string, keys: string[] | null = null) {
  const r = await callHandler(services, describeConfigs, 4, {
    resources: [{ resourceType: GROUP, resourceName: groupId, configurationKeys: keys }],
    includeSynonyms: false,
    includeDocumentation: false,
  })
  return r.results[0]!
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tributary-group-cfg-'))
  await open()
})
afterEach(async () => {
  await broker.close()
  await rm(dir, { recursive: true, force: true })
})

describe('group configs through the config handlers', () => {
  it('IncrementalAlterConfigs SET/DELETE on a GROUP, DescribeConfigs shows every key with its source, and a reopen keeps them', async () => {
    for (const v of [0, 1]) {
      const r = await callHandler(
        services,
        incrementalAlterConfigs,
        v,
        incremental('orders', [
          ['share.record.lock.duration.ms', SET, '20000'],
          ['share.auto.offset.reset', SET, 'earliest'],
        ]),
      )
      assert.deepEqual(r.responses, [{ resourceType: GROUP, resourceName: 'orders', errorCode: 0, errorMessage: null }])
    }
    const d = await describeGroup('orders')
    assert.equal(d.errorCode, 0)
    const byName = new Map(d.configs.map((c) => [c.name, c]))
    assert.deepEqual(
      { value: byName.get('share.record.lock.duration.ms')!.value, source: byName.get('share.record.lock.duration.ms')!.configSource },
      { value: '20000', source: ConfigSource.GROUP_CONFIG },
    )
    assert.deepEqual(
      { value: byName.get('share.delivery.count.limit')!.value, source: byName.get('share.delivery.count.limit')!.configSource },
      { value: '5', source: ConfigSource.DEFAULT_CONFIG },
    )
    assert.ok(byName.has('consumer.session.timeout.ms') && byName.has('errors.deadletterqueue.topic.name'))
    assert.deepEqual(
      (await describeGroup('orders', ['share.auto.offset.reset'])).configs.map((c) => [c.name, c.value]),
      [['share.auto.offset.reset', 'earliest']],
    )
    assert.equal(configs.shareGroupSettings('orders').recordLockDurationMs, 20000)
    assert.equal(configs.shareGroupSettings('orders').autoOffsetReset, 'earliest')
    assert.equal(configs.shareGroupSettings('other').recordLockDurationMs, 30000)

    await broker.close()
    await open()
    assert.equal(configs.shareGroupSettings('orders').recordLockDurationMs, 20000)
    const del = await callHandler(
      services,
      incrementalAlterConfigs,
      1,
      incremental('orders', [['share.record.lock.duration.ms', DELETE, null]]),
    )
    assert.equal(del.responses[0]!.errorCode, 0)
    assert.equal(configs.shareGroupSettings('orders').recordLockDurationMs, 30000)
    assert.deepEqual(broker.store.getGroupConfigs('orders'), { 'share.auto.offset.reset': 'earliest' })
  })

  it('refuses what Kafka refuses: unknown key, out of bounds, APPEND on a non-list, the empty group; validate_only changes nothing', async () => {
    const cases: Array<[string, [string, number, string | null], keyof typeof ErrorCode, RegExp]> = [
      ['g', ['no.such', SET, '1'], 'INVALID_CONFIG', /Unknown group config name: no\.such/],
      ['g', ['share.delivery.count.limit', SET, '1'], 'INVALID_CONFIG', /share\.delivery\.count\.limit/],
      ['g', ['share.record.lock.duration.ms', SET, '90000'], 'INVALID_CONFIG', /group\.share\.max\.record\.lock\.duration\.ms/],
      ['g', ['share.auto.offset.reset', APPEND, 'x'], 'INVALID_CONFIG', /not LIST/],
      ['', ['share.delivery.count.limit', SET, '3'], 'INVALID_REQUEST', /must not be empty/],
    ]
    for (const [group, op, expected, message] of cases) {
      const r = await callHandler(services, incrementalAlterConfigs, 1, incremental(group, [op]))
      assert.equal(r.responses[0]!.errorCode, code(expected), `${op[0]}: ${r.responses[0]!.errorMessage}`)
      assert.match(r.responses[0]!.errorMessage!, message)
    }
    const dry = await callHandler(services, incrementalAlterConfigs, 1, incremental('g', [['share.delivery.count.limit', SET, '3']], true))
    assert.equal(dry.responses[0]!.errorCode, 0)
    assert.deepEqual(broker.store.getGroupConfigs('g'), {})
    const legacy = await callHandler(services, alterConfigs, 2, {
      resources: [{ resourceType: GROUP, resourceName: 'g', configs: [{ name: 'share.delivery.count.limit', value: '3' }] }],
      validateOnly: false,
    })
    assert.equal(legacy.responses[0]!.errorCode, code('INVALID_REQUEST'))
    assert.equal((await describeGroup('')).errorCode, code('INVALID_REQUEST'))
  })

  it('a group’s own share timeouts, within the broker’s bounds, for the coordinator', async () => {
    await callHandler(services, incrementalAlterConfigs, 1, incremental('g', [['share.session.timeout.ms', SET, '50000']]))
    assert.deepEqual(configs.groupTimeouts('share', 'g'), { sessionTimeoutMs: 50000 })
    assert.deepEqual(configs.groupTimeouts('share', 'none'), {})
  })
})
