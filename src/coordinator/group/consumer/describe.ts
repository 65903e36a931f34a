// ConsumerGroupDescribe's view of consumer-protocol groups (KIP-848; Kafka's
// ConsumerGroup.asDescribedGroup): state, epochs, the assignor in use and each member with its
// current and target assignment, topic names beside ids; memberType 1 for a consumer-protocol
// member, 0 for a classic one (classic-members.ts). An unknown id is GROUP_ID_NOT_FOUND, Dead.
import { ErrorCode } from '../../../protocol/errors.js'
import type { ConsumerGroupDescribeResponseData } from '../../../protocol/messages/69-consumer-group-describe.js'
import { type Assignment, emptyAssignment, toWire } from './assignment.js'
import type { ConsumerGroup, TopicInfo } from './group-model.js'

export function describeGroups(
  groupIds: readonly string[],
  groups: ReadonlyMap<string, ConsumerGroup>,
  topics: ReadonlyMap<string, TopicInfo>,
  assignorName: (group: ConsumerGroup) => string,
): ConsumerGroupDescribeResponseData['groups'] {
  const names = new Map([...topics].map(([name, t]) => [t.id, name]))
  const wire = (a: Assignment) => ({ topicPartitions: toWire(a).map((tp) => ({ ...tp, topicName: names.get(tp.topicId) ?? '' })) })
  return groupIds.map((groupId) => {
    const group = groups.get(groupId)
    const base = { errorMessage: null, groupId, authorizedOperations: -2147483648 }
    if (group === undefined) {
      return {
        ...base,
        errorCode: ErrorCode.GROUP_ID_NOT_FOUND.code,
        errorMessage: `Group ${groupId} not found.`,
        groupState: 'Dead',
        groupEpoch: 0,
        assignmentEpoch: 0,
        assignorName: '',
        members: [],
      }
    }
    return {
      ...base,
      errorCode: 0,
      groupState: group.state,
      groupEpoch: group.groupEpoch,
      assignmentEpoch: group.targetAssignmentEpoch,
      assignorName: assignorName(group),
      members: [...group.members.values()].map((m) => ({
        memberId: m.memberId,
        instanceId: m.instanceId,
        rackId: m.rackId,
        memberEpoch: m.memberEpoch,
        clientId: m.clientId,
        clientHost: m.clientHost,
        subscribedTopicNames: m.subscribedTopicNames,
        subscribedTopicRegex: m.subscribedTopicRegex,
        assignment: wire(m.assigned),
        targetAssignment: wire(group.target.get(m.memberId) ?? emptyAssignment()),
        memberType: m.classic === null ? 1 : 0,
      })),
    }
  })
}
