#!/usr/bin/env python3
# confluent-kafka (Python; its wheel bundles librdkafka) against a broker with an authorizer, one
# login after another in one process; run by test/integration/sasl-ssl.test.ts.
#
# Usage: secured-clients.py PREFIX DENIED_TOPIC DENIED_GROUP SPEC_JSON...
#   SPEC_JSON: {"label", "mode": "ok"|"refused", "config": {librdkafka properties}, "token"?: JWT}
#   (with "token" the login is OAUTHBEARER and oauth_cb hands the token over).
#   ok: create topic PREFIX+label, produce 3 records at acks=all, read them back in group
#     PREFIX+label; then what the login may not do: produce to DENIED_TOPIC, consume in
#     DENIED_GROUP, create an ACL (a cluster operation), each reported with librdkafka's error name.
#   refused: list topics, which must fail; reports the errors librdkafka told (error_cb).
# Prints ONE JSON line {label: {...}}; the calling test decides what is right; this script only
# reports.
import json
import sys
import time

from confluent_kafka import Consumer, KafkaException, Producer, libversion
from confluent_kafka.admin import AclBinding, AclOperation, AclPermissionType, AdminClient, NewTopic, ResourcePatternType, ResourceType

TIMEOUT_S = 20


def conf_of(spec, errors):
    c = dict(spec['config'])
    c['error_cb'] = lambda err: errors.append({'code': err.code(), 'name': err.name(), 'message': err.str()})
    if 'token' in spec:
        token = spec['token']
        c['oauth_cb'] = lambda _config: (token, time.time() + 3600)
    return c


def error_name(exc):
    if isinstance(exc, KafkaException) and exc.args and hasattr(exc.args[0], 'name'):
        return exc.args[0].name()
    return type(exc).__name__


def consume(conf, topic, group):
    """The values of topic read in group; the first error a poll returns is raised."""
    consumer = Consumer({**conf, 'group.id': group, 'auto.offset.reset': 'earliest'})
    consumer.subscribe([topic])
    values = []
    deadline = time.time() + TIMEOUT_S
    try:
        while len(values) < 3 and time.time() < deadline:
            m = consumer.poll(0.5)
            if m is None:
                continue
            if m.error():
                raise KafkaException(m.error())
            values.append(m.value().decode())
    finally:
        consumer.close()
    return values


def produce(conf, topic):
    """The delivery errors of 3 records (None for a delivered one)."""
    producer = Producer({**conf, 'acks': 'all', 'message.timeout.ms': TIMEOUT_S * 1000})
    results = []
    for i in range(3):
        producer.produce(topic, value=f'py-{i}'.encode(), on_delivery=lambda err, _msg: results.append(err))
    producer.flush(TIMEOUT_S + 5)
    return results


def allowed_and_denied(spec, prefix, denied_topic, denied_group):
    errors = []
    conf = conf_of(spec, errors)
    topic = prefix + spec['label']
    out = {}
    admin = AdminClient(conf)
    try:
        for f in admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1)]).values():
            f.result(TIMEOUT_S)
        delivered = produce(conf, topic)
        out['delivered'] = sum(1 for d in delivered if d is None)
        out['consumed'] = consume(conf, topic, topic)
    except KafkaException as e:
        out['failed'] = error_name(e)
        out['errors'] = errors
        return out
    out['denied_topic'] = [d.name() if d is not None else None for d in produce(conf, denied_topic)][:1]
    try:
        out['denied_group'] = f'none {len(consume(conf, topic, denied_group))}'
    except KafkaException as e:
        out['denied_group'] = error_name(e)
    acl = AclBinding(ResourceType.TOPIC, topic, ResourcePatternType.LITERAL, 'User:mallory', '*', AclOperation.READ, AclPermissionType.ALLOW)
    try:
        for f in admin.create_acls([acl], request_timeout=TIMEOUT_S).values():
            f.result(TIMEOUT_S)
        out['denied_cluster'] = 'none'
    except KafkaException as e:
        out['denied_cluster'] = error_name(e)
    return out


def refused(spec):
    errors = []
    admin = AdminClient(conf_of(spec, errors))
    # error_cb runs from poll(): serve it until librdkafka has told why it cannot get in.
    deadline = time.time() + 8
    while time.time() < deadline and not any(e['name'] in ('_AUTHENTICATION', '_SSL', '_ALL_BROKERS_DOWN') for e in errors):
        admin.poll(0.25)
    listed = None
    try:
        listed = sorted(admin.list_topics(timeout=1).topics.keys())
    except KafkaException as e:  # the expected outcome: no metadata without a login
        errors.append({'code': None, 'name': error_name(e), 'message': str(e)})
    return {'listed': listed, 'errors': errors}


def main():
    prefix, denied_topic, denied_group = sys.argv[1:4]
    out = {'librdkafka': libversion()[0]}
    for arg in sys.argv[4:]:
        spec = json.loads(arg)
        t0 = time.time()
        if spec['mode'] == 'ok':
            out[spec['label']] = allowed_and_denied(spec, prefix, denied_topic, denied_group)
        else:
            out[spec['label']] = refused(spec)
        out[spec['label']]['ms'] = round((time.time() - t0) * 1000)
    print(json.dumps(out))


if __name__ == '__main__':
    main()
