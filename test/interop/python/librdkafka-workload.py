"""A mixed librdkafka workload against a running broker, reporting every disconnect.

Usage: librdkafka-workload.py BOOTSTRAP PREFIX

confluent-kafka's wheel bundles a current librdkafka (2.12+), whose all-topics Metadata v12
request carries three bytes after its body. Steps: list all topics; create three topics; produce
keyed records to each (acks=all, lz4); a consumer group subscribed by regex (^PREFIX.*) reads them
all and commits; list and describe the group; list all topics again; a transactional producer
commits one transaction. librdkafka's own log lines are captured:
every 'Disconnected' or transport failure is reported.

Prints one JSON object on stdout and exits 0 when every step ran (the test judges the results).
"""
import json
import logging
import sys
import time

from confluent_kafka import Consumer, KafkaException, Producer, libversion
from confluent_kafka.admin import AdminClient, NewTopic

BOOTSTRAP, PREFIX = sys.argv[1], sys.argv[2]
TOPICS = [f"{PREFIX}{i}" for i in range(3)]
PER_TOPIC = 2000


class Capture(logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


capture = Capture()
log = logging.getLogger("librdkafka")
log.setLevel(logging.DEBUG)
log.addHandler(capture)
errors = []


def on_error(err):
    errors.append(f"{err.name()}: {err.str()}")


def conf(**extra):
    c = {"bootstrap.servers": BOOTSTRAP, "logger": log, "error_cb": on_error}
    c.update(extra)
    return c


out = {"librdkafka": libversion()[0]}
admin = AdminClient(conf())
out["topics_before"] = sorted(admin.list_topics(timeout=10).topics.keys())

futures = admin.create_topics([NewTopic(t, num_partitions=3, replication_factor=1) for t in TOPICS])
for t, f in futures.items():
    f.result(timeout=10)

producer = Producer(conf(**{"acks": "all", "compression.type": "lz4", "linger.ms": 5}))
delivered = {"ok": 0, "failed": []}


def on_delivery(err, msg):
    if err is None:
        delivered["ok"] += 1
    else:
        delivered["failed"].append(str(err))


for t in TOPICS:
    for i in range(PER_TOPIC):
        producer.produce(t, key=f"k{i % 50}", value=f"{t}:{i}", on_delivery=on_delivery)
        if i % 500 == 0:
            producer.poll(0)
producer.flush(30)
out["delivered"] = delivered["ok"]
out["delivery_failures"] = delivered["failed"][:5]

consumer = Consumer(conf(**{
    "group.id": f"{PREFIX}group",
    "auto.offset.reset": "earliest",
    "enable.auto.commit": False,
    "topic.metadata.refresh.interval.ms": 1000,
}))
consumer.subscribe([f"^{PREFIX}.*"])
seen = set()
deadline = time.time() + 60
while len(seen) < PER_TOPIC * len(TOPICS) and time.time() < deadline:
    msgs = consumer.consume(num_messages=500, timeout=1.0)
    for m in msgs:
        if m.error():
            errors.append(f"consume: {m.error()}")
            continue
        seen.add(m.value().decode())
    if msgs:
        consumer.commit(asynchronous=False)
out["consumed_distinct"] = len(seen)
out["assignment_topics"] = sorted({tp.topic for tp in consumer.assignment()})
consumer.close()

groups = admin.list_consumer_groups().result(timeout=10)
out["groups"] = sorted(g.group_id for g in groups.valid)
described = admin.describe_consumer_groups([f"{PREFIX}group"])[f"{PREFIX}group"].result(timeout=10)
out["group_state"] = str(described.state)
out["topics_after"] = sorted(t for t in admin.list_topics(timeout=10).topics.keys() if t.startswith(PREFIX))

# A transactional producer: init_transactions, one committed transaction (librdkafka speaks
# transaction protocol v1: AddPartitionsToTxn, EndTxn v3).
txn = Producer(conf(**{"transactional.id": f"{PREFIX}txn"}))
t0 = time.time()
try:
    txn.init_transactions(30)
    txn.begin_transaction()
    txn.produce(f"{PREFIX}0", key=b"txn", value=b"committed")
    txn.commit_transaction(30)
    out["transactions"] = {"result": "committed", "seconds": round(time.time() - t0, 1)}
except KafkaException as e:
    err = e.args[0]
    out["transactions"] = {"result": "error", "code": err.name(), "seconds": round(time.time() - t0, 1)}

out["disconnects"] = [l for l in capture.lines if "Disconnected" in l or "transport failure" in l.lower()][:10]
out["errors"] = [e for e in errors if "TRANSPORT" in e or "Disconnected" in e][:10]
print(json.dumps(out))
