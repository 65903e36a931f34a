#!/usr/bin/env python3
# Produce and consume over TLS with confluent-kafka (Python; its wheel bundles librdkafka), run by
# test/integration/tls-librdkafka.test.ts against a real broker with an SSL listener.
#
# Usage: tls-roundtrip.py BOOTSTRAP TOPIC CA_PEM [CLIENT_CERT_PEM CLIENT_KEY_PEM] [key=value ...]
# (key=value pairs are more client properties, e.g. security.protocol=SASL_SSL sasl.mechanism=...)
# Produces 3 records at acks=all, then reads them back with a consumer group. Prints ONE JSON
# line: {"librdkafka", "produced", "consumed"} or {"error": message} for the step that failed (a
# refused handshake shows up as a delivery or metadata timeout). The calling test decides what is
# right; this script only reports.
import json
import sys
import time

from confluent_kafka import Consumer, KafkaException, Producer, libversion

TIMEOUT_S = 15


def main() -> None:
    bootstrap, topic, ca = sys.argv[1], sys.argv[2], sys.argv[3]
    positional = [a for a in sys.argv[4:] if '=' not in a]
    tls = {'bootstrap.servers': bootstrap, 'security.protocol': 'SSL', 'ssl.ca.location': ca}
    if len(positional) >= 2:
        tls['ssl.certificate.location'] = positional[0]
        tls['ssl.key.location'] = positional[1]
    for pair in (a for a in sys.argv[4:] if '=' in a):
        key, value = pair.split('=', 1)
        tls[key] = value
    out = {'librdkafka': libversion()[0]}
    errors = []
    producer = Producer({**tls, 'acks': 'all', 'message.timeout.ms': TIMEOUT_S * 1000, 'error_cb': lambda e: errors.append(str(e))})
    delivered = []
    for i in range(3):
        producer.produce(topic, value=f'py-{i}'.encode(), on_delivery=lambda err, msg: delivered.append(err))
    producer.flush(TIMEOUT_S + 5)
    if len(delivered) != 3 or any(d is not None for d in delivered):
        out['error'] = f'delivery: {[str(d) for d in delivered]} {errors[:3]}'
        print(json.dumps(out))
        return
    out['produced'] = 3
    consumer = Consumer({**tls, 'group.id': f'{topic}-py', 'auto.offset.reset': 'earliest'})
    consumer.subscribe([topic])
    seen = []
    deadline = time.time() + TIMEOUT_S
    try:
        while len(seen) < 3 and time.time() < deadline:
            msg = consumer.poll(0.5)
            if msg is None:
                continue
            if msg.error():
                raise KafkaException(msg.error())
            seen.append(msg.value().decode())
    finally:
        consumer.close()
    out['consumed'] = seen
    print(json.dumps(out))


main()
