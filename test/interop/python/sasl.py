#!/usr/bin/env python3
# SASL logins through librdkafka (confluent-kafka for Python, whose wheel bundles librdkafka), run by
# test/integration/sasl-librdkafka.test.ts against a broker with a SASL_PLAINTEXT listener.
#
# Usage: sasl.py BOOTSTRAP TOPIC MECHANISM USER PASSWORD [BAD_PASSWORD]
#   With the given credentials: create TOPIC, produce 5 records, consume them back in a group.
#   With BAD_PASSWORD (and with an unknown user): try to list topics and record the errors
#   librdkafka reports (error_cb).
# Prints ONE JSON line with what happened; the calling test decides what is right.
import json
import sys
import time

from confluent_kafka import Consumer, KafkaError, Producer, libversion
from confluent_kafka.admin import AdminClient, NewTopic

TIMEOUT_S = 30


def conf(bootstrap, mechanism, user, password, errors=None):
    c = {
        'bootstrap.servers': bootstrap,
        'security.protocol': 'SASL_PLAINTEXT',
        'sasl.mechanism': mechanism,
        'sasl.username': user,
        'sasl.password': password,
    }
    if errors is not None:
        c['error_cb'] = lambda err: errors.append({'code': err.code(), 'name': err.name(), 'message': err.str()})
    return c


def refused(bootstrap, mechanism, user, password):
    errors = []
    admin = AdminClient(conf(bootstrap, mechanism, user, password, errors))
    listed = None
    try:
        listed = sorted(admin.list_topics(timeout=5).topics.keys())
    except Exception as e:  # the expected outcome: no metadata without a login
        errors.append({'code': None, 'name': type(e).__name__, 'message': str(e)})
    # error_cb runs from poll(): serve it until the authentication error has been told.
    deadline = time.time() + 10
    while time.time() < deadline and not any(e['code'] == KafkaError._AUTHENTICATION for e in errors):
        admin.poll(0.5)
    return {
        'listed': listed,
        'authentication_errors': [e for e in errors if e['code'] == KafkaError._AUTHENTICATION],
        'other_errors': [e for e in errors if e['code'] != KafkaError._AUTHENTICATION],
    }


def main():
    bootstrap, topic, mechanism, user, password = sys.argv[1:6]
    bad = sys.argv[6] if len(sys.argv) > 6 else None
    out = {'librdkafka': libversion()[0]}
    errors = []
    admin = AdminClient(conf(bootstrap, mechanism, user, password, errors))
    for f in admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1)]).values():
        f.result(TIMEOUT_S)
    producer = Producer(conf(bootstrap, mechanism, user, password, errors))
    delivered = []
    for i in range(5):
        producer.produce(topic, value=f'r{i}'.encode(), on_delivery=lambda err, msg: delivered.append(err is None))
    producer.flush(TIMEOUT_S)
    out['delivered'] = sum(delivered)
    consumer = Consumer({
        **conf(bootstrap, mechanism, user, password, errors),
        'group.id': f'{topic}-group',
        'auto.offset.reset': 'earliest',
    })
    consumer.subscribe([topic])
    values = []
    deadline = time.time() + TIMEOUT_S
    while len(values) < 5 and time.time() < deadline:
        m = consumer.poll(1.0)
        if m is not None and m.error() is None:
            values.append(m.value().decode())
    consumer.close()
    out['consumed'] = values
    out['errors'] = errors
    if bad is not None:
        out['wrong_password'] = refused(bootstrap, mechanism, user, bad)
        out['unknown_user'] = refused(bootstrap, mechanism, 'nobody-' + user, password)
    print(json.dumps(out))


if __name__ == '__main__':
    main()
