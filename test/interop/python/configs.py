#!/usr/bin/env python3
# Topic and broker configs through librdkafka's admin API (confluent-kafka for Python, whose wheel
# bundles librdkafka), run by test/integration/configs-librdkafka.test.ts against a real broker.
#
# Usage: configs.py BOOTSTRAP TOPIC [all|describe]
#   all (default): create TOPIC with configs, IncrementalAlterConfigs on the topic and on the broker
#     (by node id), AlterConfigs (the legacy whole-set replace), CreatePartitions, and
#     DescribeConfigs after each change;
#   describe: only DescribeConfigs of TOPIC and of broker 0, and the partition count (after a restart).
# Prints ONE JSON line: every step's result, or {"error": {code, name, message}} for a step the
# client or the broker refused. The calling test decides what is right; this script only reports,
# and exits 0 unless something outside those steps breaks.
import json
import sys
import warnings

from confluent_kafka import KafkaException, libversion
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewPartitions,
    NewTopic,
    ResourceType,
)

TIMEOUT_S = 30
# The keys reported for the topic and for the broker.
TOPIC_KEYS = ['retention.ms', 'segment.bytes', 'max.message.bytes', 'segment.ms', 'index.interval.bytes', 'cleanup.policy']
BROKER_KEYS = ['log.retention.ms', 'log.index.interval.bytes', 'num.partitions', 'log.dirs']


def error_of(exc):
    """A KafkaException (broker or client error) or a local ValueError, as plain data."""
    if isinstance(exc, KafkaException) and exc.args and hasattr(exc.args[0], 'code'):
        err = exc.args[0]
        return {'error': {'code': err.code(), 'name': err.name(), 'message': err.str()}}
    return {'error': {'code': None, 'name': type(exc).__name__, 'message': str(exc)}}


def wait_all(futures):
    """Waits for a dict of admin futures; None when all succeeded, else the first error."""
    try:
        for f in futures.values():
            f.result(timeout=TIMEOUT_S)
        return None
    except (KafkaException, ValueError) as exc:
        return error_of(exc)


def entry(e):
    return {
        'value': e.value,
        'source': int(getattr(e.source, 'value', e.source)),
        'is_default': e.is_default,
        'is_read_only': e.is_read_only,
        'is_sensitive': e.is_sensitive,
        # librdkafka asks for synonyms (DescribeConfigs v1+); the broker lists them by precedence.
        # confluent-kafka keys them by name: a name listed under two sources keeps only its last.
        'synonyms': [[s.name, s.value, int(getattr(s.source, 'value', s.source))] for s in e.synonyms.values()],
    }


def describe(admin, restype, name, keys):
    try:
        [future] = admin.describe_configs([ConfigResource(restype, name)], request_timeout=TIMEOUT_S).values()
        configs = future.result(timeout=TIMEOUT_S)
    except (KafkaException, ValueError) as exc:
        return error_of(exc)
    return {k: entry(configs[k]) if k in configs else None for k in keys}


def incremental(admin, restype, name, ops):
    """ops: [(key, AlterConfigOpType, value or None)]."""
    try:
        resource = ConfigResource(
            restype, name, incremental_configs=[ConfigEntry(k, v, incremental_operation=op) for k, op, v in ops]
        )
        return wait_all(admin.incremental_alter_configs([resource], request_timeout=TIMEOUT_S))
    except (KafkaException, ValueError) as exc:  # refused by the client before anything is sent
        return error_of(exc)


def partition_count(admin, topic):
    md = admin.list_topics(topic, timeout=TIMEOUT_S)
    t = md.topics.get(topic)
    return None if t is None or t.error is not None else len(t.partitions)


def describe_all(admin, topic):
    return {
        'topic': describe(admin, ResourceType.TOPIC, topic, TOPIC_KEYS),
        'broker': describe(admin, ResourceType.BROKER, '0', BROKER_KEYS),
        'partitions': partition_count(admin, topic),
    }


def run_all(admin, topic):
    out = {}
    created = admin.create_topics(
        [
            NewTopic(
                topic,
                num_partitions=1,
                replication_factor=1,
                config={'retention.ms': '3600000', 'segment.bytes': '1048576', 'max.message.bytes': '500000'},
            )
        ],
        operation_timeout=TIMEOUT_S,
        request_timeout=TIMEOUT_S,
    )
    out['create'] = wait_all(created)
    out['after_create'] = describe(admin, ResourceType.TOPIC, topic, TOPIC_KEYS)

    # IncrementalAlterConfigs: SET one key and DELETE another on the topic; a dynamic broker
    # config on this broker by its node id; the cluster-wide default (resource name "").
    out['incremental_topic'] = incremental(
        admin,
        ResourceType.TOPIC,
        topic,
        [('retention.ms', AlterConfigOpType.SET, '7200000'), ('segment.bytes', AlterConfigOpType.DELETE, None)],
    )
    out['incremental_broker'] = incremental(
        admin, ResourceType.BROKER, '0', [('log.retention.ms', AlterConfigOpType.SET, '86400000')]
    )
    out['incremental_cluster_default'] = incremental(
        admin, ResourceType.BROKER, '', [('log.retention.ms', AlterConfigOpType.SET, '86400000')]
    )
    out['incremental_invalid'] = incremental(
        admin, ResourceType.TOPIC, topic, [('retention.ms', AlterConfigOpType.SET, 'soon')]
    )
    out['after_incremental'] = describe(admin, ResourceType.TOPIC, topic, TOPIC_KEYS)
    out['broker'] = describe(admin, ResourceType.BROKER, '0', BROKER_KEYS)

    # AlterConfigs replaces the topic's whole override set: retention.ms, not sent, falls back to
    # the dynamic broker config set above. (The client marks it deprecated; it is used on purpose.)
    warnings.filterwarnings('ignore', message='alter_configs has been deprecated', category=DeprecationWarning)
    altered = admin.alter_configs(
        [ConfigResource(ResourceType.TOPIC, topic, set_config={'max.message.bytes': '600000', 'segment.ms': '3600000'})],
        request_timeout=TIMEOUT_S,
    )
    out['alter'] = wait_all(altered)
    out['after_alter'] = describe(admin, ResourceType.TOPIC, topic, TOPIC_KEYS)

    out['create_partitions'] = wait_all(
        admin.create_partitions([NewPartitions(topic, 3)], operation_timeout=TIMEOUT_S, request_timeout=TIMEOUT_S)
    )
    out['create_partitions_decrease'] = wait_all(
        admin.create_partitions([NewPartitions(topic, 2)], operation_timeout=TIMEOUT_S, request_timeout=TIMEOUT_S)
    )
    out['partitions'] = partition_count(admin, topic)
    return out


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and sys.argv[3] not in ('all', 'describe')):
        print('usage: configs.py BOOTSTRAP TOPIC [all|describe]', file=sys.stderr)
        return 2
    bootstrap, topic = sys.argv[1], sys.argv[2]
    mode = sys.argv[3] if len(sys.argv) == 4 else 'all'
    admin = AdminClient({'bootstrap.servers': bootstrap, 'socket.timeout.ms': TIMEOUT_S * 1000})
    result = run_all(admin, topic) if mode == 'all' else describe_all(admin, topic)
    result['librdkafka'] = libversion()[0]
    print(json.dumps(result))
    return 0


if __name__ == '__main__':
    sys.exit(main())
