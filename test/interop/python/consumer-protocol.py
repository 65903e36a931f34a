"""librdkafka (confluent-kafka) consumers with group.protocol=consumer (KIP-848) against a broker.

Usage: consumer-protocol.py BOOTSTRAP PREFIX            (the orchestrator)
       consumer-protocol.py BOOTSTRAP PREFIX restart    (the broker-restart scenario, below)
       consumer-protocol.py BOOTSTRAP PREFIX member GROUP INSTANCE PROTOCOL TOPIC...   (one consumer)

The orchestrator runs four scenarios, each consumer in its own process so that it can be killed:

1. churn: records are produced to a 6-partition topic while consumers c1, c2, c3 join one after
   another, c2 leaves (close), c3 is killed (SIGKILL), c4 joins; then the rest is drained. Each
   consumer commits synchronously after every batch it printed, so a record consumed twice must
   have been read first by the killed consumer (not committed before the kill).
2. regex: one consumer subscribed to ^PREFIX-rx-.* reads the records of two matching topics and
   none of a third that does not match.
3. static: two static members (group.instance.id s1, s2) share a 4-partition topic; s1 closes and
   a new process with the same instance id starts within the session timeout: it must get the
   partitions it had, and s2 keeps its own.
4. upgrade: two classic consumers (group.protocol=classic) share a 6-partition topic while records
   are produced; each in turn is closed and replaced by a consumer with group.protocol=consumer
   (the first converts the group, the remaining classic member keeps consuming in it). Every
   record must be consumed, and the group must end as a consumer group of two.

restart: two members share a 4-partition topic and read 500 records; the orchestrator prints
{"ev": "ready"} and waits for a line on stdin, meanwhile the caller restarts the broker on the same
address and data; then 500 more records are produced. The group must have come back from
`__consumer_offsets`: the members read every record and neither has anything revoked or assigned
after the restart (no rejoin).

A member process prints one JSON line per event: {"ev": "assigned", "partitions": [...]},
{"ev": "rec", "t": topic, "p": partition, "o": offset, "v": value} for every record (printed
before its batch is committed), {"ev": "committed"} after each commit, {"ev": "closed"}.
The orchestrator prints one JSON object (the last line) and exits 0 when the scenarios ran; the
test judges the results.
"""
import json
import os
import signal
import subprocess
import sys
import threading
import time

from confluent_kafka import Consumer, Producer, TopicPartition, libversion
from confluent_kafka.admin import AdminClient, NewTopic

BOOTSTRAP, PREFIX = sys.argv[1], sys.argv[2]


def out(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


# ---------------------------------------------------------------------------------------------
# One consumer process


def member(group, instance, protocol, topics):
    stop = {"now": False}
    signal.signal(signal.SIGTERM, lambda *_: stop.update(now=True))
    conf = {
        "bootstrap.servers": BOOTSTRAP,
        "group.id": group,
        "group.protocol": protocol,
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
    }
    if instance != "-":
        conf["group.instance.id"] = instance
    c = Consumer(conf)

    def assigned(consumer, partitions):
        out({"ev": "assigned", "partitions": [[p.topic, p.partition] for p in partitions]})

    def revoked(consumer, partitions):
        out({"ev": "revoked", "partitions": [[p.topic, p.partition] for p in partitions]})

    c.subscribe(topics, on_assign=assigned, on_revoke=revoked)
    while not stop["now"]:
        batch = c.consume(num_messages=200, timeout=0.5)
        got = False
        for m in batch:
            if m.error():
                out({"ev": "error", "error": str(m.error())})
                continue
            got = True
            out({"ev": "rec", "t": m.topic(), "p": m.partition(), "o": m.offset(), "v": m.value().decode()})
        if got:
            try:
                c.commit(asynchronous=False)
                out({"ev": "committed"})
            except Exception as e:  # a commit refused during a rebalance: the records may come again
                out({"ev": "commit_failed", "error": str(e)})
    c.close()
    out({"ev": "closed"})


# ---------------------------------------------------------------------------------------------
# The orchestrator


class Proc:
    """A member process and the events it printed so far."""

    def __init__(self, name, group, topics, instance="-", protocol="consumer"):
        self.name = name
        self.events = []
        self.p = subprocess.Popen(
            [sys.executable, __file__, BOOTSTRAP, PREFIX, "member", group, instance, protocol, *topics],
            stdout=subprocess.PIPE,
            text=True,
        )
        self.t = threading.Thread(target=self._read, daemon=True)
        self.t.start()

    def _read(self):
        for line in self.p.stdout:
            try:
                self.events.append(json.loads(line))
            except ValueError:
                pass

    def records(self):
        return [e for e in self.events if e["ev"] == "rec"]

    def last_assignment(self):
        for e in reversed(self.events):
            if e["ev"] == "assigned":
                return sorted(map(tuple, e["partitions"]))
        return []

    def owned(self):
        """Partitions owned now: assigned minus revoked, in event order."""
        owned = set()
        for e in self.events:
            if e["ev"] == "assigned":
                owned |= set(map(tuple, e["partitions"]))
            elif e["ev"] == "revoked":
                owned -= set(map(tuple, e["partitions"]))
        return sorted(owned)

    def close(self):
        self.p.send_signal(signal.SIGTERM)
        self.p.wait(timeout=60)
        self.t.join(timeout=10)

    def kill(self):
        self.p.kill()
        self.p.wait(timeout=30)
        self.t.join(timeout=10)


def wait_until(cond, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cond():
            return True
        time.sleep(0.2)
    return False


def create(admin, topics):
    fs = admin.create_topics([NewTopic(t, num_partitions=n, replication_factor=1) for t, n in topics])
    for f in fs.values():
        f.result(30)


def produce(topic, values, pace_s=0.0):
    p = Producer({"bootstrap.servers": BOOTSTRAP, "acks": "all", "linger.ms": 5})
    failures = []
    for i, v in enumerate(values):
        p.produce(topic, value=v.encode(), key=str(i).encode(), on_delivery=lambda err, m: err and failures.append(str(err)))
        p.poll(0)
        if pace_s:
            time.sleep(pace_s)
    p.flush(30)
    return failures


def produce_in_background(topic, values):
    """A started thread producing the values one every 6 ms, and the list its failures go to."""
    failures = []
    t = threading.Thread(target=lambda: failures.extend(produce(topic, values, pace_s=0.006)))
    t.start()
    return t, failures


def churn(admin):
    topic = f"{PREFIX}-churn"
    create(admin, [(topic, 6)])
    group = f"{PREFIX}-g-churn"
    n = 3000
    values = [f"c{i}" for i in range(n)]
    producer, failures = produce_in_background(topic, values)
    procs = {}
    procs["c1"] = Proc("c1", group, [topic])
    time.sleep(3)
    procs["c2"] = Proc("c2", group, [topic])
    time.sleep(3)
    procs["c3"] = Proc("c3", group, [topic])
    wait_until(lambda: all(len(p.owned()) == 2 for p in procs.values()), 30)
    spread = {k: p.owned() for k, p in procs.items()}
    procs["c2"].close()
    time.sleep(2)
    procs["c3"].kill()
    time.sleep(1)
    procs["c4"] = Proc("c4", group, [topic])
    producer.join()

    def consumed():
        return {r["v"] for p in procs.values() for r in p.records()}

    drained = wait_until(lambda: len(consumed()) >= n, 60)
    for k in ("c1", "c4"):
        procs[k].close()
    seen = {}
    for k, p in procs.items():
        for r in p.records():
            seen.setdefault(r["v"], []).append(k)
    dups = {v: who for v, who in seen.items() if len(who) > 1}
    return {
        "produced": n,
        "delivery_failures": failures,
        "drained": drained,
        "consumed_distinct": len(consumed() & set(values)),
        "missing": sorted(set(values) - consumed())[:20],
        "duplicates": len(dups),
        "duplicates_without_kill": sorted(v for v, who in dups.items() if "c3" not in who)[:20],
        "spread": spread,
        "commit_failures": [e for p in procs.values() for e in p.events if e["ev"] in ("commit_failed", "error")][:10],
    }


def regex(admin):
    topics = [f"{PREFIX}-rx-a", f"{PREFIX}-rx-b", f"{PREFIX}-other"]
    create(admin, [(t, 2) for t in topics])
    for t in topics:
        produce(t, [f"{t}:{i}" for i in range(100)])
    p = Proc("rx", f"{PREFIX}-g-regex", [f"^{PREFIX}-rx-.*"])
    wait_until(lambda: len(p.records()) >= 200, 60)
    time.sleep(2)  # anything of the third topic would show up meanwhile
    p.close()
    return {
        "topics": sorted({r["t"] for r in p.records()}),
        "distinct": len({r["v"] for r in p.records()}),
        "assignment": p.last_assignment(),
    }


def static(admin):
    topic = f"{PREFIX}-static"
    create(admin, [(topic, 4)])
    group = f"{PREFIX}-g-static"
    s1 = Proc("s1", group, [topic], instance="s1")
    time.sleep(2)
    s2 = Proc("s2", group, [topic], instance="s2")
    stable = wait_until(lambda: len(s1.owned()) == 2 and len(s2.owned()) == 2, 30)
    before = {"s1": s1.owned(), "s2": s2.owned()}
    s1.close()
    time.sleep(1)
    s1b = Proc("s1b", group, [topic], instance="s1")
    rejoined = wait_until(lambda: len(s1b.owned()) == 2, 30)
    time.sleep(2)
    after = {"s1": s1b.owned(), "s2": s2.owned()}
    s2_revoked = [e for e in s2.events if e["ev"] == "revoked" and e["partitions"]]
    s1b.close()
    s2.close()
    return {"stable": stable, "rejoined": rejoined, "before": before, "after": after, "s2_revocations": len(s2_revoked)}


def restart(admin):
    topic = f"{PREFIX}-restart"
    create(admin, [(topic, 4)])
    group = f"{PREFIX}-g-restart"
    produce(topic, [f"r{i}" for i in range(500)])
    procs = [Proc("m1", group, [topic]), Proc("m2", group, [topic])]

    def consumed():
        return {r["v"] for p in procs for r in p.records()}

    settled = wait_until(lambda: all(len(p.owned()) == 2 for p in procs) and len(consumed()) >= 500, 60)
    time.sleep(3)  # a few heartbeats at the settled epochs
    marks = [len(p.events) for p in procs]
    owned_before = [p.owned() for p in procs]
    out({"ev": "ready"})
    sys.stdin.readline()
    failures = produce(topic, [f"r{i}" for i in range(500, 1000)])
    drained = wait_until(lambda: len(consumed()) >= 1000, 60)
    time.sleep(3)
    moves = [e for p, m in zip(procs, marks) for e in p.events[m:] if e["ev"] in ("assigned", "revoked") and e["partitions"]]
    owned_after = [p.owned() for p in procs]
    for p in procs:
        p.close()
    return {
        "settled": settled,
        "drained": drained,
        "delivery_failures": failures,
        "consumed_distinct": len(consumed()),
        "moves_after_restart": moves,
        "owned_before": owned_before,
        "owned_after": owned_after,
    }


def describe(admin, group):
    """The group's type and member count as ConsumerGroupDescribe/DescribeGroups tell them, or None."""
    try:
        d = admin.describe_consumer_groups([group])[group].result(10)
        return {"type": d.type.name, "members": len(d.members)}
    except Exception:
        return None


def upgrade(admin):
    topic = f"{PREFIX}-upgrade"
    create(admin, [(topic, 6)])
    group = f"{PREFIX}-g-upgrade"
    n = 3000
    values = [f"u{i}" for i in range(n)]
    producer, failures = produce_in_background(topic, values)
    procs = {"u1": Proc("u1", group, [topic], protocol="classic"), "u2": Proc("u2", group, [topic], protocol="classic")}
    wait_until(lambda: all(len(p.owned()) == 3 for p in procs.values()), 60)
    before = describe(admin, group)
    procs["u1"].close()
    procs["u1b"] = Proc("u1b", group, [topic])
    wait_until(lambda: (describe(admin, group) or {}).get("type") == "CONSUMER" and procs["u1b"].owned(), 60)
    mixed = describe(admin, group)
    time.sleep(3)
    procs["u2"].close()
    procs["u2b"] = Proc("u2b", group, [topic])
    wait_until(lambda: len(procs["u1b"].owned()) == 3 and len(procs["u2b"].owned()) == 3, 60)
    end = describe(admin, group)
    producer.join()

    def consumed():
        return {r["v"] for p in procs.values() for r in p.records()}

    drained = wait_until(lambda: len(consumed()) >= n, 60)
    owned_at_end = {k: procs[k].owned() for k in ("u1b", "u2b")}
    for k in ("u1b", "u2b"):
        procs[k].close()
    return {
        "produced": n,
        "delivery_failures": failures,
        "drained": drained,
        "missing": sorted(set(values) - consumed())[:20],
        "before": before,
        "mixed": mixed,
        "end": end,
        "owned_at_end": owned_at_end,
        "errors": [e for p in procs.values() for e in p.events if e["ev"] == "error"][:10],
    }


def main():
    admin = AdminClient({"bootstrap.servers": BOOTSTRAP})
    result = {"librdkafka": libversion()[0]}
    for name, fn in (("churn", churn), ("regex", regex), ("static", static), ("upgrade", upgrade)):
        try:
            result[name] = fn(admin)
        except Exception as e:
            result[name] = {"exception": repr(e)}
    out(result)


if __name__ == "__main__":
    if len(sys.argv) > 3 and sys.argv[3] == "member":
        member(sys.argv[4], sys.argv[5], sys.argv[6], sys.argv[7:])
    elif len(sys.argv) > 3 and sys.argv[3] == "restart":
        admin = AdminClient({"bootstrap.servers": BOOTSTRAP})
        try:
            out(restart(admin))
        except Exception as e:
            out({"exception": repr(e)})
    else:
        main()
