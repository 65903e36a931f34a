// `__share_group_state` as Apache Kafka 4.4 itself reads it: a real broker (in this process, on a
// data directory) initializes and writes share-partition state over the wire (RPCs 83 and 85),
// then Kafka's own DumpLogSegments tool, with its share-group-state decoder (the jars of
// bench/kafka/pom.xml), decodes the partition's segment file. Every record must come out as the
// ShareSnapshot / ShareUpdate that was written — our bytes are Kafka's. Missing Java or Maven
// fails the test (test/helpers/apache-kafka.ts); it never skips.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { prepareKafka } from '../../bench/harness/brokers.js'
import { describeMachine } from '../../bench/harness/machine.js'
import { createTopics } from '../../src/client/admin.js'
import { KafkaClient } from '../../src/client/client.js'
import { startBroker } from '../../src/index.js'
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../../src/protocol/messages/10-find-coordinator.js'
import {
  InitializeShareGroupStateRequest,
  InitializeShareGroupStateResponse,
} from '../../src/protocol/messages/83-initialize-share-group-state.js'
import { WriteShareGroupStateRequest, WriteShareGroupStateResponse } from '../../src/protocol/messages/85-write-share-group-state.js'
import { silentLogger } from '../../src/util/logger.js'
import { runOk } from '../helpers/run-process.js'

describe('__share_group_state read by Apache Kafka’s DumpLogSegments', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-share-dump-'))
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('decodes every record as the ShareSnapshot / ShareUpdate written', async () => {
    const machine = await describeMachine()
    const env = await prepareKafka(machine.java, machine.maven, () => {})
    if ('skip' in env) throw new Error(`cannot run Apache Kafka's tools: ${env.skip}`)

    const broker = await startBroker({
      dataDir: dir,
      port: 0,
      logger: silentLogger,
      config: { 'share.coordinator.state.topic.num.partitions': 1 },
    })
    let topicId: string
    try {
      const c = await KafkaClient.connect({ bootstrap: [broker.bootstrap], requestTimeoutMs: 10_000 })
      try {
        await createTopics(c, [{ name: 'dump', numPartitions: 1, replicationFactor: 1 }])
        topicId = (await c.metadata(['dump'], { refresh: true })).topics.get('dump')!.topicId
        const key = `grp:${topicId}:0`
        const found = await c.request(
          FindCoordinatorRequest,
          FindCoordinatorResponse,
          { keyType: 2, coordinatorKeys: [key] },
          { maxVersion: 6 },
        )
        assert.equal(found.coordinators[0]!.errorCode, 0)
        // The partition is loaded right after it is created; retry while it is.
        let code = -1
        for (let i = 0; i < 100 && code !== 0; i++) {
          const init = await c.request(InitializeShareGroupStateRequest, InitializeShareGroupStateResponse, {
            groupId: 'grp',
            topics: [{ topicId, partitions: [{ partition: 0, stateEpoch: 1, startOffset: 5 }] }],
          })
          code = init.results[0]!.partitions[0]!.errorCode
          if (code !== 0) await new Promise((r) => setTimeout(r, 100))
        }
        assert.equal(code, 0)
        const w = await c.request(WriteShareGroupStateRequest, WriteShareGroupStateResponse, {
          groupId: 'grp',
          topics: [
            {
              topicId,
              partitions: [
                {
                  partition: 0,
                  stateEpoch: 1,
                  leaderEpoch: 2,
                  startOffset: -1,
                  deliveryCompleteCount: 3,
                  stateBatches: [{ firstOffset: 5, lastOffset: 7, deliveryState: 2, deliveryCount: 1 }],
                },
              ],
            },
          ],
        })
        assert.equal(w.results[0]!.partitions[0]!.errorCode, 0)
      } finally {
        await c.close()
      }
    } finally {
      await broker.close()
    }

    const segment = join(dir, '__share_group_state-0', '00000000000000000000.log')
    const dump = await runOk(
      env.java,
      [...env.toolArgs, '-cp', env.classpath, 'org.apache.kafka.tools.DumpLogSegments', '--share-group-state-decoder', '--files', segment],
      { timeoutMs: 120_000 },
    )
    const records = [...dump.stdout.matchAll(/key: (\{.*\}) payload: (\{.*\})$/gm)].map((m) => ({
      key: JSON.parse(m[1]!),
      payload: JSON.parse(m[2]!),
    }))
    assert.equal(records.length, 2, dump.stdout)
    const k = { groupId: 'grp', topicId: topicId!, partition: 0 }
    assert.deepEqual(records[0]!.key, { type: '0', data: k })
    const snap = records[0]!.payload
    assert.equal(snap.version, '0')
    assert.deepEqual(
      { ...snap.data, createTimestamp: 0, writeTimestamp: 0 },
      // A start offset given at initialization has nothing delivered past it: deliveryCompleteCount 0,
      // as Kafka's ShareGroupOffset.fromRequest writes it (the tagged field shows when not -1).
      {
        snapshotEpoch: 0,
        stateEpoch: 1,
        leaderEpoch: -1,
        startOffset: 5,
        deliveryCompleteCount: 0,
        createTimestamp: 0,
        writeTimestamp: 0,
        stateBatches: [],
      },
    )
    assert.ok(snap.data.createTimestamp > 1_600_000_000_000)
    assert.deepEqual(records[1], {
      key: { type: '1', data: k },
      payload: {
        version: '0',
        data: {
          snapshotEpoch: 0,
          leaderEpoch: 2,
          startOffset: -1,
          deliveryCompleteCount: 3,
          stateBatches: [{ firstOffset: 5, lastOffset: 7, deliveryState: 2, deliveryCount: 1 }],
        },
      },
    })
  })
})
