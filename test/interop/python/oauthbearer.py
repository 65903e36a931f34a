#!/usr/bin/env python3
# SASL/OAUTHBEARER through librdkafka (confluent-kafka for Python) with a pre-made token given by
# oauth_cb, run by test/integration/sasl-oauthbearer.test.ts against a real broker.
#
# Usage: oauthbearer.py BOOTSTRAP TOPIC TOKEN_FILE ok|refused
#   ok: produce 3 records to TOPIC (which must exist) and read them back from the beginning;
#   refused: ask for metadata, which must fail; the errors librdkafka reported are returned.
# Prints ONE JSON line: {"librdkafka", "produced", "consumed", "errors": [{code, name, message}]}.
# The calling test decides what is right; this script only reports.
import json
import sys
import time

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition, libversion

TIMEOUT_S = 30


def main():
    bootstrap, topic, token_file, mode = sys.argv[1:5]
    with open(token_file) as f:
        token = f.read().strip()
    errors = []

    def error_cb(err):
        errors.append({'code': err.code(), 'name': err.name(), 'message': err.str()})

    def oauth_cb(_config):
        # The token and its expiry (seconds since the epoch): librdkafka refreshes at 80% of it.
        return token, time.time() + 3600

    base = {
        'bootstrap.servers': bootstrap,
        'security.protocol': 'SASL_PLAINTEXT',
        'sasl.mechanism': 'OAUTHBEARER',
        'oauth_cb': oauth_cb,
        'error_cb': error_cb,
    }
    out = {'librdkafka': libversion()[0], 'produced': 0, 'consumed': [], 'errors': errors}
    if mode == 'refused':
        p = Producer(base)
        try:
            p.list_topics(timeout=10)
        except KafkaException as e:
            err = e.args[0]
            errors.append({'code': err.code(), 'name': err.name(), 'message': err.str()})
        # error_cb is called from poll(): let the errors librdkafka queued come out.
        for _ in range(10):
            p.poll(0.2)
        print(json.dumps(out))
        return

    p = Producer(base)
    for i in range(3):
        p.produce(topic, value=f'v{i}'.encode())
    left = p.flush(TIMEOUT_S)
    out['produced'] = 3 - left
    c = Consumer({**base, 'group.id': 'oauth-py', 'enable.auto.commit': False})
    c.assign([TopicPartition(topic, 0, 0)])
    deadline = time.time() + TIMEOUT_S
    while len(out['consumed']) < 3 and time.time() < deadline:
        m = c.poll(0.5)
        if m is not None and m.error() is None:
            out['consumed'].append(m.value().decode())
    c.close()
    print(json.dumps(out))


main()
