"""librdkafka's (confluent-kafka) idempotent and transactional producers against a running broker.

Usage: txn-librdkafka.py BOOTSTRAP PREFIX

Run by test/integration/txn-librdkafka.test.ts. Steps:
1. an idempotent producer (enable.idempotence, acks=all) sends IDEM records over three partitions;
   a consumer reads the topic back (each value once, offsets 0..n-1 per partition);
2. a group consumer (read_committed) reads SRC records of a source topic; a transactional producer
   then runs: T1 the outputs of the first half of each partition + send_offsets_to_transaction at
   that half, committed; T2 the outputs of the second half + its offsets, aborted; T3 some more
   records, committed (a transaction begins only once the previous one is complete, so the abort's
   outcome is final afterwards);
3. the output topic read back with read_committed and with read_uncommitted (to each partition's
   end, partition EOF), and the group's committed offsets.

Prints one JSON object on stdout (the test judges it) and exits 0 when every step ran.
"""
import json
import sys
import time

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition, libversion
from confluent_kafka.admin import AdminClient, NewTopic

BOOTSTRAP, PREFIX = sys.argv[1], sys.argv[2]
PARTITIONS = 3
IDEM = 3000
SRC = 60
IDEM_TOPIC, SRC_TOPIC, OUT_TOPIC = f"{PREFIX}-idem", f"{PREFIX}-src", f"{PREFIX}-out"
GROUP = f"{PREFIX}-group"
errors = []


def on_error(err):
    errors.append(f"{err.name()}: {err.str()}")


def conf(**extra):
    c = {"bootstrap.servers": BOOTSTRAP, "error_cb": on_error}
    c.update(extra)
    return c


def read_all(topic, isolation):
    """Every (partition, offset, value) of the topic from the start to each partition's end."""
    c = Consumer(conf(**{"group.id": f"{PREFIX}-reader", "isolation.level": isolation, "enable.partition.eof": True,
                         "enable.auto.commit": False}))
    c.assign([TopicPartition(topic, p, -2) for p in range(PARTITIONS)])  # -2: the beginning
    out, eof = [], set()
    deadline = time.time() + 60
    while len(eof) < PARTITIONS:
        if time.time() > deadline:
            raise RuntimeError(f"{isolation} read of {topic} reached the end of only {sorted(eof)}")
        for m in c.consume(num_messages=500, timeout=0.5):
            if m.error():
                if m.error().code() == KafkaError._PARTITION_EOF:
                    eof.add(m.partition())
                    continue
                raise RuntimeError(f"consume {topic}: {m.error()}")
            eof.discard(m.partition())
            out.append((m.partition(), m.offset(), m.value().decode()))
    c.close()
    return out


def idempotent():
    acks, failures = [], []

    def on_delivery(err, msg):
        if err:
            failures.append(str(err))
        else:
            acks.append((msg.partition(), msg.offset(), msg.value().decode()))

    p = Producer(conf(**{"enable.idempotence": True, "acks": "all", "linger.ms": 5}))
    for i in range(IDEM):
        p.produce(IDEM_TOPIC, value=f"idem-{i}", partition=i % PARTITIONS, on_delivery=on_delivery)
        if i % 500 == 0:
            p.poll(0)
    left = p.flush(60)
    stored = read_all(IDEM_TOPIC, "read_uncommitted")
    per_partition = {}
    for part, off, _ in stored:
        per_partition.setdefault(part, []).append(off)
    return {
        "sent": IDEM,
        "acked": len(acks),
        "failures": failures[:5],
        "unflushed": left,
        "stored": len(stored),
        "stored_distinct": len({v for _, _, v in stored}),
        "acked_match_stored": sorted(acks) == sorted(stored),
        "offsets_contiguous": all(offs == list(range(len(offs))) for offs in per_partition.values()),
    }


def transactional():
    plain = Producer(conf())
    for i in range(SRC):
        plain.produce(SRC_TOPIC, value=f"src-{i}", partition=i % PARTITIONS)
    plain.flush(30)

    consumer = Consumer(conf(**{"group.id": GROUP, "isolation.level": "read_committed", "enable.auto.commit": False,
                                "auto.offset.reset": "earliest"}))
    consumer.subscribe([SRC_TOPIC])
    records = []
    deadline = time.time() + 60
    while len(records) < SRC:
        if time.time() > deadline:
            raise RuntimeError(f"consumed only {len(records)} of {SRC} source records")
        m = consumer.poll(0.5)
        if m is None:
            continue
        if m.error():
            raise RuntimeError(f"consume {SRC_TOPIC}: {m.error()}")
        records.append((m.partition(), m.offset(), m.value().decode()))
    half = SRC // PARTITIONS // 2

    producer = Producer(conf(**{"transactional.id": f"{PREFIX}-tx", "linger.ms": 5}))
    producer.init_transactions(30)
    committed, everything = [], []

    def transaction(part, offsets, commit, extra=()):
        producer.begin_transaction()
        values = [f"out-{v}" for _, _, v in part] + list(extra)
        for i, v in enumerate(values):
            partition = part[i][0] if i < len(part) else i % PARTITIONS
            producer.produce(OUT_TOPIC, value=v, partition=partition)
        if offsets is not None:
            producer.send_offsets_to_transaction(
                [TopicPartition(SRC_TOPIC, p, o) for p, o in offsets.items()], consumer.consumer_group_metadata(), 30)
        if commit:
            producer.commit_transaction(30)
            committed.extend(values)
        else:
            producer.flush(30)
            producer.abort_transaction(30)
        everything.extend(values)

    transaction([r for r in records if r[1] < half], {p: half for p in range(PARTITIONS)}, True)
    transaction([r for r in records if r[1] >= half], {p: 2 * half for p in range(PARTITIONS)}, False)
    transaction([], None, True, extra=[f"last-{i}" for i in range(10)])

    group_offsets = {tp.partition: tp.offset for tp in consumer.committed(
        [TopicPartition(SRC_TOPIC, p) for p in range(PARTITIONS)], timeout=30)}
    consumer.close()
    rc = sorted(v for _, _, v in read_all(OUT_TOPIC, "read_committed"))
    ru = sorted(v for _, _, v in read_all(OUT_TOPIC, "read_uncommitted"))
    return {
        "read_committed_ok": rc == sorted(committed),
        "read_committed": len(rc),
        "committed": len(committed),
        "read_committed_unexpected": sorted(set(rc) - set(committed))[:5],
        "read_committed_missing": sorted(set(committed) - set(rc))[:5],
        "read_uncommitted_ok": ru == sorted(everything),
        "read_uncommitted": len(ru),
        "everything": len(everything),
        "group_offsets": [group_offsets.get(p) for p in range(PARTITIONS)],
        "want_group_offsets": [half] * PARTITIONS,
    }


out = {"librdkafka": libversion()[0]}
admin = AdminClient(conf())
for t, f in admin.create_topics([NewTopic(t, num_partitions=PARTITIONS, replication_factor=1)
                                  for t in (IDEM_TOPIC, SRC_TOPIC, OUT_TOPIC)]).items():
    f.result(timeout=30)
out["idempotent"] = idempotent()
out["transactional"] = transactional()
out["errors"] = errors[:10]
print(json.dumps(out))
