// DescribeLogDirs over a fake LogDirService: for every version served, the request is encoded and
// decoded with the message codec, handled, and the answer encoded and decoded again, so a field a
// version cannot carry (totalBytes before v4, the top-level error before v3) fails here.
import { testConn } from '../../helpers/local-broker.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import describeLogDirs from '../../../src/handlers/35-describe-log-dirs.js'
import type { RequestContext } from '../../../src/handlers/define.js'
import { allHandlers } from '../../../src/handlers/index.js'
import type { BrokerServices } from '../../../src/ports/broker-services.js'
import type { LogDirDescription } from '../../../src/ports/log-dirs.js'
import type { DescribeLogDirsRequestData, DescribeLogDirsResponseData } from '../../../src/protocol/messages/35-describe-log-dirs.js'
import type { Encodable } from '../../../src/protocol/schema.js'
import { silentLogger } from '../../../src/util/logger.js'

const DIR: LogDirDescription = {
  path: '/var/lib/tributary',
  errorCode: 0,
  totalBytes: 500_000_000_000,
  usableBytes: 123_456_789_012,
  // Deliberately unsorted: the answer is grouped by topic and sorted.
  partitions: [
    { topic: 'orders', partition: 1, sizeBytes: 4096, offsetLag: 0 },
    { topic: 'events', partition: 2, sizeBytes: 300, offsetLag: 0 },
    { topic: 'orders', partition: 0, sizeBytes: 2 ** 40, offsetLag: 7 },
    { topic: 'events', partition: 0, sizeBytes: 0, offsetLag: 0 },
  ],
}

function context(apiVersion: number, dirs: LogDirDescription[]): RequestContext {
  const broker = {
    nodeId: 0,
    clusterId: 'c',
    logger: silentLogger,
    logDirs: { describe: async () => dirs },
  } as unknown as BrokerServices
  return {
    header: { apiKey: 35, apiVersion, correlationId: 1, clientId: 'cli', bodyOffset: 0 },
    apiVersion,
    conn: testConn({ remoteAddress: '10.0.0.1', remotePort: 5 }),
    broker,
    apis: [],
  }
}

async function call(version: number, req: Encodable<DescribeLogDirsRequestData>, dirs = [DIR]): Promise<DescribeLogDirsResponseData> {
  const decoded = describeLogDirs.request.decode(version, describeLogDirs.request.encode(version, req))
  const res = await describeLogDirs.handle(context(version, dirs), decoded)
  assert.ok(res !== null)
  return describeLogDirs.response.decode(version, describeLogDirs.response.encode(version, res))
}

const VERSIONS = [1, 2, 3, 4, 5]

const shape = (res: DescribeLogDirsResponseData) =>
  res.results.map((r) => ({
    logDir: r.logDir,
    errorCode: r.errorCode,
    topics: r.topics.map((t) => [t.name, t.partitions.map((p) => [p.partitionIndex, p.partitionSize, p.offsetLag, p.isFutureKey])]),
  }))

describe('DescribeLogDirs handler', () => {
  it('is registered for v1–5, as Kafka 4.4 serves it', () => {
    const h = allHandlers.find((x) => x.request.apiKey === 35)
    assert.ok(h, 'DescribeLogDirs is served')
    assert.deepEqual([h.minVersion, h.maxVersion], [1, 5])
  })

  it('null topics: every partition, grouped by topic and sorted, in every version', async () => {
    for (const v of VERSIONS) {
      const res = await call(v, { topics: null })
      assert.equal(res.throttleTimeMs, 0)
      assert.equal(res.errorCode, 0)
      assert.deepEqual(
        shape(res),
        [
          {
            logDir: '/var/lib/tributary',
            errorCode: 0,
            topics: [
              [
                'events',
                [
                  [0, 0, 0, false],
                  [2, 300, 0, false],
                ],
              ],
              [
                'orders',
                [
                  [0, 2 ** 40, 7, false],
                  [1, 4096, 0, false],
                ],
              ],
            ],
          },
        ],
        `v${v}`,
      )
    }
  })

  it('a topic list: only the partitions asked for that this broker holds; unknown ones are left out', async () => {
    for (const v of VERSIONS) {
      const res = await call(v, {
        topics: [
          { topic: 'orders', partitions: [1, 5] },
          { topic: 'missing', partitions: [0] },
          { topic: 'events', partitions: [] },
        ],
      })
      assert.deepEqual(shape(res)[0]!.topics, [['orders', [[1, 4096, 0, false]]]], `v${v}`)
    }
    const none = await call(4, { topics: [] })
    assert.deepEqual(shape(none)[0]!.topics, [], 'an empty list asks for nothing')
    assert.equal(none.results.length, 1, 'the log dir itself is still listed')
  })

  it('v4+ carries the volume’s total and usable bytes, v5 the cordoned flag; earlier versions decode without them', async () => {
    const v4 = await call(4, { topics: null })
    assert.equal(v4.results[0]!.totalBytes, 500_000_000_000)
    assert.equal(v4.results[0]!.usableBytes, 123_456_789_012)
    const v3 = await call(3, { topics: null })
    assert.equal(v3.results[0]!.totalBytes, -1, 'default where the version lacks the field')
    const v5 = await call(5, { topics: null })
    assert.equal(v5.results[0]!.isCordoned, false, 'v5: log dirs are never cordoned here')
    assert.equal(v5.results[0]!.totalBytes, 500_000_000_000)
  })

  it('an offline log dir is reported with its error code and no partitions', async () => {
    const offline: LogDirDescription = { path: '/bad', errorCode: 56, totalBytes: -1, usableBytes: -1, partitions: [] }
    const res = await call(4, { topics: null }, [DIR, offline])
    assert.deepEqual(
      res.results.map((r) => [r.logDir, r.errorCode, r.topics.length]),
      [
        ['/var/lib/tributary', 0, 2],
        ['/bad', 56, 0],
      ],
    )
  })
})
