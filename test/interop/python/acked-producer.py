#!/usr/bin/env python3
# A continuous acks=all producer through librdkafka (confluent-kafka for Python), for the cluster
# tests (test/helpers/acked-producer.ts): it sends numbered values "v-<n>" one small batch after
# another and prints ONE JSON line per delivery report, so the test knows exactly which values the
# cluster acknowledged and at which offset. (kcat prints the partition and offset of a delivery but
# not which message it was, so it cannot serve here.)
#
# Usage: acked-producer.py BOOTSTRAP TOPIC [OPTIONS_JSON]
#   OPTIONS_JSON: {"batchSize": 10, "partition": null, "firstValue": 0, "maxValues": null,
#                  "config": {<librdkafka properties overriding the defaults below>}}
#   partition null: batch k goes to partition k % <partition count>.
# Output lines:
#   {"ready": true, "partitions": P, "librdkafka": "2.x"}                once the topic's metadata is known
#   {"partition": p, "offset": o, "value": "v-n"}                         acknowledged
#   {"value": "v-n", "partition": p, "error": {"code", "name", "message"}} failed after the retries
#   {"done": true, "sent": N, "undelivered": U}                          after stdin closed and the flush
# Stops when stdin closes (or maxValues were sent): no new values, then waits for every report.
import json
import sys
import threading

from confluent_kafka import KafkaException, Producer, libversion

FLUSH_TIMEOUT_S = 180
stop = threading.Event()
out_lock = threading.Lock()


def emit(obj):
    with out_lock:
        sys.stdout.write(json.dumps(obj) + '\n')
        sys.stdout.flush()


def watch_stdin():
    for _ in sys.stdin:
        pass
    stop.set()


def on_delivery(err, msg):
    value = msg.value().decode('utf-8') if msg.value() is not None else None
    if err is not None:
        emit({'value': value, 'partition': msg.partition(),
              'error': {'code': err.code(), 'name': err.name(), 'message': err.str()}})
    else:
        emit({'partition': msg.partition(), 'offset': msg.offset(), 'value': value})


def partition_count(producer, topic):
    while not stop.is_set():
        try:
            md = producer.list_topics(topic, timeout=5)
            t = md.topics.get(topic)
            if t is not None and t.error is None and len(t.partitions) > 0:
                return len(t.partitions)
        except KafkaException:
            pass
        stop.wait(0.2)
    return 0


def main():
    bootstrap, topic = sys.argv[1], sys.argv[2]
    opts = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
    batch_size = int(opts.get('batchSize', 10))
    fixed_partition = opts.get('partition')
    n = int(opts.get('firstValue', 0))
    max_values = opts.get('maxValues')
    config = {
        'bootstrap.servers': bootstrap,
        'client.id': 'acked-producer',
        'acks': 'all',
        'enable.idempotence': False,
        'max.in.flight.requests.per.connection': 1,
        'message.send.max.retries': 1000000,
        'retry.backoff.ms': 100,
        'retry.backoff.max.ms': 1000,
        'message.timeout.ms': 120000,
        'socket.timeout.ms': 10000,
        'topic.metadata.refresh.interval.ms': 2000,
        'linger.ms': 5,
        'allow.auto.create.topics': False,
    }
    config.update(opts.get('config', {}))
    threading.Thread(target=watch_stdin, daemon=True).start()
    producer = Producer(config)
    partitions = partition_count(producer, topic)
    emit({'ready': True, 'partitions': partitions, 'librdkafka': libversion()[0]})
    sent = 0
    batch = 0
    while partitions > 0 and not stop.is_set() and (max_values is None or sent < max_values):
        p = fixed_partition if fixed_partition is not None else batch % partitions
        for _ in range(batch_size):
            if max_values is not None and sent >= max_values:
                break
            producer.produce(topic, value=f'v-{n}'.encode('utf-8'), partition=p, on_delivery=on_delivery)
            n += 1
            sent += 1
        batch += 1
        # One batch at a time: wait for its reports (or for stdin to close) before the next one.
        while len(producer) > 0 and not stop.is_set():
            producer.poll(0.1)
    undelivered = producer.flush(FLUSH_TIMEOUT_S)
    emit({'done': True, 'sent': sent, 'undelivered': undelivered})


if __name__ == '__main__':
    main()
