// The share groups' offsets admin APIs (src/coordinator/group/share/share-offsets.ts through
// GroupCoordinator) over an in-memory share state: describe with v1's lag, alter only while
// empty (a new state epoch each time), delete whole topics, and their errors.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ZERO_UUID } from '../../../../../src/protocol/primitives/uuid.js'
import { code } from '../../group-helpers.js'
import { client, hb, shareSetup, T_ID, U_ID } from './share-helpers.js'

const alter = (groupId: string, partitions: Array<[number, number]>, topicName = 'T') => ({
  groupId,
  topics: [{ topicName, partitions: partitions.map(([partitionIndex, startOffset]) => ({ partitionIndex, startOffset })) }],
})

describe('share groups: offsets admin', () => {
  it('AlterShareGroupOffsets creates an empty group, initializes each partition with a newer state epoch; DescribeShareGroupOffsets reads them with the lag', async () => {
    const h = await shareSetup()
    const c = h.coordinator
    const r = await c.alterShareGroupOffsets(
      alter('g', [
        [0, 10],
        [1, 20],
      ]),
    )
    assert.equal(r.errorCode, 0)
    assert.deepEqual(r.responses, [
      {
        topicName: 'T',
        topicId: T_ID,
        partitions: [
          { partitionIndex: 0, errorCode: 0, errorMessage: null },
          { partitionIndex: 1, errorCode: 0, errorMessage: null },
        ],
      },
    ])
    await c.alterShareGroupOffsets(alter('g', [[0, 15]]))
    assert.deepEqual(h.state.calls, [`initialize g:${T_ID}:0 1 10`, `initialize g:${T_ID}:1 1 20`, `initialize g:${T_ID}:0 2 15`])
    assert.equal(c.shareGroupDescribe(['g'])[0]!.groupState, 'Empty')
    h.hw.set('T:0', 40)
    h.state.states.get(`g:${T_ID}:0`)!.deliveryCompleteCount = 5
    const [d] = await c.describeShareGroupOffsets([{ groupId: 'g', topics: null }])
    assert.equal(d!.errorCode, 0)
    assert.deepEqual(d!.topics, [
      {
        topicName: 'T',
        topicId: T_ID,
        partitions: [
          { partitionIndex: 0, startOffset: 15, leaderEpoch: 0, lag: 20, errorCode: 0, errorMessage: null },
          // No high watermark known here: lag -1.
          { partitionIndex: 1, startOffset: 20, leaderEpoch: 0, lag: -1, errorCode: 0, errorMessage: null },
        ],
      },
    ])
    // The topics with state survive a restart (ShareGroupStatePartitionMetadata).
    const again = await h.restart()
    const [d2] = await again.describeShareGroupOffsets([{ groupId: 'g', topics: null }])
    assert.deepEqual(
      d2!.topics[0]!.partitions.map((p) => p.startOffset),
      [15, 20],
    )
  })

  it('describe: a partition without state is -1; an unknown topic or partition UNKNOWN_TOPIC_OR_PARTITION; an unknown group GROUP_ID_NOT_FOUND', async () => {
    const { coordinator: c } = await shareSetup()
    await c.shareGroupHeartbeat(hb('m1', 0), client)
    const [d, unknown] = await c.describeShareGroupOffsets([
      {
        groupId: 'g',
        topics: [
          { topicName: 'T', partitions: [0, 9] },
          { topicName: 'nope', partitions: [0] },
        ],
      },
      { groupId: 'missing', topics: null },
    ])
    assert.deepEqual(
      d!.topics.map((t) => [t.topicName, t.topicId, t.partitions.map((p) => [p.partitionIndex, p.startOffset, p.errorCode])]),
      [
        [
          'T',
          T_ID,
          [
            [0, -1, 0],
            [9, -1, code('UNKNOWN_TOPIC_OR_PARTITION')],
          ],
        ],
        ['nope', ZERO_UUID, [[0, -1, code('UNKNOWN_TOPIC_OR_PARTITION')]]],
      ],
    )
    assert.equal(unknown!.errorCode, code('GROUP_ID_NOT_FOUND'))
  })

  it('alter and delete refuse a group with members (NON_EMPTY_GROUP) and a classic group id (GROUP_ID_NOT_FOUND)', async () => {
    const { coordinator: c } = await shareSetup()
    await c.shareGroupHeartbeat(hb('m1', 0), client)
    assert.equal((await c.alterShareGroupOffsets(alter('g', [[0, 1]]))).errorCode, code('NON_EMPTY_GROUP'))
    assert.equal((await c.deleteShareGroupOffsets({ groupId: 'g', topics: [{ topicName: 'T' }] })).errorCode, code('NON_EMPTY_GROUP'))
    await c.commitOffsets({
      groupId: 'classic',
      generationId: -1,
      memberId: '',
      groupInstanceId: null,
      retentionTimeMs: -1,
      offsets: [{ topic: 'T', partition: 0, offset: 1, leaderEpoch: -1, metadata: null }],
      apiVersion: 8,
    })
    const r = await c.alterShareGroupOffsets(alter('classic', [[0, 1]]))
    assert.equal(r.errorCode, code('GROUP_ID_NOT_FOUND'))
    assert.equal(r.errorMessage, 'Group classic is not a share group.')
    assert.equal((await c.deleteShareGroupOffsets({ groupId: 'none', topics: [] })).errorCode, code('GROUP_ID_NOT_FOUND'))
    assert.equal((await c.alterShareGroupOffsets(alter('', [[0, 1]]))).errorCode, code('INVALID_GROUP_ID'))
  })

  it('DeleteShareGroupOffsets deletes every partition of a topic with state; a topic without state is UNKNOWN_TOPIC_OR_PARTITION', async () => {
    const h = await shareSetup()
    const c = h.coordinator
    await c.alterShareGroupOffsets(
      alter('g', [
        [0, 1],
        [2, 3],
      ]),
    )
    const unknownPartition = await c.alterShareGroupOffsets(alter('g', [[7, 1]]))
    assert.equal(unknownPartition.responses[0]!.partitions[0]!.errorCode, code('UNKNOWN_TOPIC_OR_PARTITION'))
    const r = await c.deleteShareGroupOffsets({ groupId: 'g', topics: [{ topicName: 'T' }, { topicName: 'U' }, { topicName: 'nope' }] })
    assert.equal(r.errorCode, 0)
    assert.deepEqual(
      r.responses.map((t) => [t.topicName, t.errorCode]),
      [
        ['T', 0],
        ['U', code('UNKNOWN_TOPIC_OR_PARTITION')],
        ['nope', code('UNKNOWN_TOPIC_OR_PARTITION')],
      ],
    )
    assert.deepEqual(h.state.calls.filter((x) => x.startsWith('delete')).sort(), [`delete g:${T_ID}:0`, `delete g:${T_ID}:2`])
    assert.equal(h.state.states.size, 0)
    const [d] = await c.describeShareGroupOffsets([{ groupId: 'g', topics: null }])
    assert.deepEqual(d!.topics, [])
  })

  it('a deleted topic: describing every topic leaves it out, and DeleteGroups still deletes the group', async () => {
    const h = await shareSetup()
    const c = h.coordinator
    await c.alterShareGroupOffsets(alter('g', [[0, 5]], 'U'))
    await c.alterShareGroupOffsets(alter('g', [[1, 2]]))
    h.topics.delete('U')
    h.state.goneTopics.add(U_ID)
    const [d] = await c.describeShareGroupOffsets([{ groupId: 'g', topics: null }])
    assert.deepEqual(
      d!.topics.map((t) => t.topicName),
      ['T'],
    )
    assert.deepEqual(await c.deleteGroups(['g']), [{ groupId: 'g', errorCode: 0 }])
    assert.ok(h.state.calls.includes(`delete g:${U_ID}:0`))
  })

  it('OffsetCommit to a share group id is GROUP_ID_NOT_FOUND (a share group commits no offsets)', async () => {
    const { coordinator: c } = await shareSetup()
    await c.shareGroupHeartbeat(hb('m1', 0), client)
    const r = await c.commitOffsets({
      groupId: 'g',
      generationId: -1,
      memberId: '',
      groupInstanceId: null,
      retentionTimeMs: -1,
      offsets: [{ topic: 'T', partition: 0, offset: 1, leaderEpoch: -1, metadata: null }],
      apiVersion: 9,
    })
    assert.deepEqual(r, [code('GROUP_ID_NOT_FOUND')])
  })

  it('without a share state persister the offsets APIs answer COORDINATOR_NOT_AVAILABLE', async () => {
    const { coordinator: c } = await shareSetup({ noState: true })
    assert.equal((await c.alterShareGroupOffsets(alter('g', [[0, 1]]))).errorCode, code('COORDINATOR_NOT_AVAILABLE'))
    const [d] = await c.describeShareGroupOffsets([{ groupId: 'g', topics: null }])
    assert.equal(d!.errorCode, code('COORDINATOR_NOT_AVAILABLE'))
  })
})
