package io.tributary.interop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Java 4.4 transactional producer and read_committed consumer, end to end (run by
 * test/integration/txn-java.test.ts). Four checks, each a section of its own; any mismatch throws.
 * <ol>
 *   <li><b>commit and abort</b>: one transactional producer runs TXNS transactions over two topics of
 *       three partitions each, committing the even ones and aborting the odd ones. A read_committed
 *       consumer must read exactly the committed records (each once, in send order per partition) and
 *       none of the aborted; a read_uncommitted consumer reads every record of both kinds once; neither
 *       ever sees a control record.
 *   <li><b>open transaction</b>: while a second producer's transaction is open (its records written
 *       and flushed), a read_committed consumer must stop before them (the last stable offset) and see
 *       them once the transaction commits.
 *   <li><b>zombie fencing</b>: producer Z1 commits one transaction, then writes into a second one; Z2,
 *       with the same transactional.id, calls initTransactions (which bumps the epoch and aborts Z1's
 *       open transaction) and commits one of its own. Z1's later send/commit must fail with
 *       ProducerFencedException or InvalidProducerEpochException, and none of Z1's records from its
 *       second transaction may ever be visible to read_committed.
 *   <li><b>consume-transform-produce</b>: a read_committed consumer in group GROUP reads a source
 *       topic; a transactional producer writes one output per input together with
 *       sendOffsetsToTransaction. The first transaction is aborted: its offsets must not be committed
 *       (a new consumer of the group starts again at offset 0). Afterwards the group's committed
 *       offsets (listConsumerGroupOffsets with requireStable) are the source's end offsets, and the
 *       output holds each source value exactly once.
 * </ol>
 *
 * <p>Usage: {@code Transactions HOST:PORT[,...] PREFIX [REPLICATION_FACTOR]}. Topics and ids start
 * with PREFIX. Prints {@code TXN <section> ...} lines, then {@code TXN OK} and exits 0; on failure
 * {@code TXN FAIL ...} and exit 1.
 */
public final class Transactions {
  static final int TXNS = 20;
  static final int PER_TXN = 30;
  static final int PARTITIONS = 3;
  static final int SOURCE_RECORDS = 600;
  static final Duration POLL = Duration.ofMillis(200);
  static final long READ_TIMEOUT_MS = 60_000;

  public static void main(String[] args) {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      String level = System.getenv("INTEROP_LOG_LEVEL");
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", level == null || level.isEmpty() ? "warn" : level);
    }
    if (args.length < 2 || args.length > 3) {
      System.err.println("usage: Transactions HOST:PORT[,...] PREFIX [REPLICATION_FACTOR]");
      System.exit(2);
    }
    try {
      short rf = args.length == 3 ? Short.parseShort(args[2]) : 1;
      new Transactions(args[0], args[1], rf).run();
    } catch (Throwable t) {
      System.out.println("TXN FAIL " + t);
      t.printStackTrace();
      System.out.flush();
      Runtime.getRuntime().halt(1);
    }
    System.out.println("TXN OK");
    System.out.flush();
    Runtime.getRuntime().halt(0);
  }

  final String bootstrap;
  final String prefix;
  final short rf;

  Transactions(String bootstrap, String prefix, short rf) {
    this.bootstrap = bootstrap;
    this.prefix = prefix;
    this.rf = rf;
  }

  static void check(boolean ok, String what) {
    if (!ok) throw new IllegalStateException(what);
  }

  void run() throws Exception {
    String a = prefix + "-a";
    String b = prefix + "-b";
    String open = prefix + "-open";
    String zombie = prefix + "-zombie";
    String source = prefix + "-src";
    String out = prefix + "-out";
    try (Admin admin = Admin.create(adminProps())) {
      List<NewTopic> topics = new ArrayList<>();
      for (String t : List.of(a, b, open, zombie, source, out)) topics.add(new NewTopic(t, PARTITIONS, rf));
      admin.createTopics(topics).all().get(60, TimeUnit.SECONDS);
      commitAndAbort(a, b);
      openTransaction(open);
      zombie(zombie);
      consumeTransformProduce(admin, source, out);
    }
  }

  Properties adminProps() {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    return p;
  }

  Properties producerProps(String transactionalId) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    if (transactionalId != null) p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "60000");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    return p;
  }

  Properties consumerProps(String isolation, String group) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    if (group != null) p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    return p;
  }

  /** Small polls, so consume-transform-produce runs a dozen transactions. */
  Properties ctpConsumerProps(String group) {
    Properties p = consumerProps("read_committed", group);
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "50");
    return p;
  }

  static List<TopicPartition> partitions(String... topics) {
    List<TopicPartition> tps = new ArrayList<>();
    for (String t : topics) for (int i = 0; i < PARTITIONS; i++) tps.add(new TopicPartition(t, i));
    return tps;
  }

  /**
   * Every record of the partitions from the start up to the consumer's end offsets (for
   * read_committed these are the last stable offsets), per partition in log order.
   */
  Map<TopicPartition, List<String>> readAll(String isolation, List<TopicPartition> tps) {
    try (KafkaConsumer<String, String> c = new KafkaConsumer<>(consumerProps(isolation, null))) {
      c.assign(tps);
      c.seekToBeginning(tps);
      Map<TopicPartition, Long> end = c.endOffsets(tps, Duration.ofSeconds(30));
      Map<TopicPartition, List<String>> got = new HashMap<>();
      for (TopicPartition tp : tps) got.put(tp, new ArrayList<>());
      long deadline = System.currentTimeMillis() + READ_TIMEOUT_MS;
      while (true) {
        boolean done = true;
        for (TopicPartition tp : tps) if (c.position(tp, Duration.ofSeconds(30)) < end.get(tp)) done = false;
        if (done) break;
        check(System.currentTimeMillis() < deadline, isolation + " read did not reach the end offsets " + end + " within " + READ_TIMEOUT_MS + " ms");
        ConsumerRecords<String, String> rs = c.poll(POLL);
        for (ConsumerRecord<String, String> r : rs) got.get(new TopicPartition(r.topic(), r.partition())).add(r.value());
      }
      return got;
    }
  }

  static List<String> flatten(Map<TopicPartition, List<String>> m) {
    List<String> all = new ArrayList<>();
    for (List<String> l : m.values()) all.addAll(l);
    return all;
  }

  /** Multiset equality with a readable difference. */
  static void sameRecords(List<String> got, List<String> want, String what) {
    Map<String, Integer> g = new HashMap<>();
    for (String s : got) g.merge(s, 1, Integer::sum);
    List<String> dup = new ArrayList<>();
    for (Map.Entry<String, Integer> e : g.entrySet()) if (e.getValue() > 1) dup.add(e.getKey());
    Set<String> w = new HashSet<>(want);
    List<String> extra = new ArrayList<>();
    for (String s : g.keySet()) if (!w.contains(s)) extra.add(s);
    List<String> missing = new ArrayList<>();
    for (String s : w) if (!g.containsKey(s)) missing.add(s);
    check(dup.isEmpty() && extra.isEmpty() && missing.isEmpty() && got.size() == want.size(),
        what + ": got " + got.size() + " records, want " + want.size() + "; read twice " + head(dup) + "; unexpected " + head(extra) + "; missing " + head(missing));
  }

  static String head(List<String> l) {
    l.sort(null);
    return l.size() <= 8 ? l.toString() : l.subList(0, 8) + " … (" + l.size() + ")";
  }

  // 1. commit and abort across two topics

  void commitAndAbort(String a, String b) throws Exception {
    List<String> committed = new ArrayList<>();
    List<String> aborted = new ArrayList<>();
    Map<TopicPartition, List<String>> committedOrder = new HashMap<>();
    try (KafkaProducer<String, String> p = new KafkaProducer<>(producerProps(prefix + "-tx"))) {
      p.initTransactions();
      for (int t = 0; t < TXNS; t++) {
        boolean commit = t % 2 == 0;
        p.beginTransaction();
        for (int n = 0; n < PER_TXN; n++) {
          String topic = n % 2 == 0 ? a : b;
          int partition = (n / 2) % PARTITIONS;
          String value = (commit ? "c-" : "x-") + t + "-" + n;
          p.send(new ProducerRecord<>(topic, partition, null, value));
          (commit ? committed : aborted).add(value);
          if (commit) committedOrder.computeIfAbsent(new TopicPartition(topic, partition), k -> new ArrayList<>()).add(value);
        }
        if (commit) p.commitTransaction();
        else {
          p.flush(); // so the aborted records really are in the log before the abort
          p.abortTransaction();
        }
      }
    }
    List<TopicPartition> tps = partitions(a, b);
    Map<TopicPartition, List<String>> rc = readAll("read_committed", tps);
    sameRecords(flatten(rc), committed, "read_committed over " + a + ", " + b);
    for (TopicPartition tp : tps) {
      List<String> want = committedOrder.getOrDefault(tp, List.of());
      check(rc.get(tp).equals(want), "read_committed order in " + tp + ": " + rc.get(tp) + " != " + want);
    }
    List<String> both = new ArrayList<>(committed);
    both.addAll(aborted);
    sameRecords(flatten(readAll("read_uncommitted", tps)), both, "read_uncommitted over " + a + ", " + b);
    System.out.println("TXN commit-abort " + TXNS + " transactions, " + committed.size() + " committed, " + aborted.size() + " aborted records");
  }

  // 2. an open transaction holds read_committed back

  void openTransaction(String topic) throws Exception {
    List<TopicPartition> tps = partitions(topic);
    try (KafkaProducer<String, String> plain = new KafkaProducer<>(producerProps(null));
        KafkaProducer<String, String> p = new KafkaProducer<>(producerProps(prefix + "-open-tx"))) {
      for (int i = 0; i < PARTITIONS; i++) plain.send(new ProducerRecord<>(topic, i, null, "before-" + i)).get();
      p.initTransactions();
      p.beginTransaction();
      List<String> pending = new ArrayList<>();
      for (int i = 0; i < PARTITIONS * 4; i++) {
        String v = "pending-" + i;
        pending.add(v);
        p.send(new ProducerRecord<>(topic, i % PARTITIONS, null, v));
      }
      p.flush();
      // Written after the open transaction's first records: beyond the last stable offset.
      for (int i = 0; i < PARTITIONS; i++) plain.send(new ProducerRecord<>(topic, i, null, "after-" + i)).get();
      List<String> before = new ArrayList<>();
      for (int i = 0; i < PARTITIONS; i++) before.add("before-" + i);
      sameRecords(flatten(readAll("read_committed", tps)), before, "read_committed while a transaction is open");
      List<String> everything = new ArrayList<>(before);
      everything.addAll(pending);
      for (int i = 0; i < PARTITIONS; i++) everything.add("after-" + i);
      sameRecords(flatten(readAll("read_uncommitted", tps)), everything, "read_uncommitted while a transaction is open");
      p.commitTransaction();
      sameRecords(flatten(readAll("read_committed", tps)), everything, "read_committed after the commit");
    }
    System.out.println("TXN open-transaction read_committed stopped at the last stable offset until the commit");
  }

  // 3. a zombie is fenced

  /** The ProducerFencedException or InvalidProducerEpochException in e's cause chain, or null. */
  static Throwable fencing(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof ProducerFencedException || c instanceof InvalidProducerEpochException) return c;
    }
    return null;
  }

  void zombie(String topic) throws Exception {
    String id = prefix + "-zombie-tx";
    List<String> visible = new ArrayList<>();
    String fencedBy;
    KafkaProducer<String, String> z1 = new KafkaProducer<>(producerProps(id));
    try (KafkaProducer<String, String> z2 = new KafkaProducer<>(producerProps(id))) {
      z1.initTransactions();
      z1.beginTransaction();
      for (int i = 0; i < PARTITIONS; i++) {
        z1.send(new ProducerRecord<>(topic, i, null, "z1-ok-" + i));
        visible.add("z1-ok-" + i);
      }
      z1.commitTransaction();
      z1.beginTransaction();
      for (int i = 0; i < PARTITIONS; i++) z1.send(new ProducerRecord<>(topic, i, null, "z1-late-" + i));
      z1.flush();
      // The second producer takes the transactional id over: its epoch is higher.
      z2.initTransactions();
      z2.beginTransaction();
      for (int i = 0; i < PARTITIONS; i++) {
        z2.send(new ProducerRecord<>(topic, i, null, "z2-" + i));
        visible.add("z2-" + i);
      }
      z2.commitTransaction();
      // The zombie carries on as if nothing happened.
      Throwable failure = null;
      try {
        for (int i = 0; i < PARTITIONS; i++) z1.send(new ProducerRecord<>(topic, i, null, "z1-later-" + i)).get(30, TimeUnit.SECONDS);
        z1.commitTransaction();
      } catch (Throwable e) {
        failure = e;
      }
      check(failure != null, "the zombie producer's send and commit succeeded after another producer took its transactional id");
      check(fencing(failure) != null, "the zombie failed, but not as fenced: " + failure);
      fencedBy = fencing(failure).getClass().getSimpleName();
      // A new transaction of the survivor still works after the zombie's attempts.
      z2.beginTransaction();
      z2.send(new ProducerRecord<>(topic, 0, null, "z2-again"));
      visible.add("z2-again");
      z2.commitTransaction();
    } finally {
      z1.close(Duration.ofSeconds(5));
    }
    sameRecords(flatten(readAll("read_committed", partitions(topic))), visible, "read_committed after the zombie was fenced");
    System.out.println("TXN zombie fenced with " + fencedBy + "; its late records are not visible");
  }

  // 4. consume-transform-produce with sendOffsetsToTransaction

  void consumeTransformProduce(Admin admin, String source, String out) throws Exception {
    String group = prefix + "-ctp";
    List<String> sourceValues = new ArrayList<>();
    try (KafkaProducer<String, String> plain = new KafkaProducer<>(producerProps(null))) {
      for (int i = 0; i < SOURCE_RECORDS; i++) {
        String v = "s-" + i;
        sourceValues.add(v);
        plain.send(new ProducerRecord<>(source, i % PARTITIONS, null, v));
      }
      plain.flush();
    }
    List<TopicPartition> srcTps = partitions(source);
    Map<TopicPartition, Long> sourceEnd;
    try (KafkaConsumer<String, String> c = new KafkaConsumer<>(consumerProps("read_committed", null))) {
      sourceEnd = c.endOffsets(srcTps, Duration.ofSeconds(30));
    }
    try (KafkaProducer<String, String> p = new KafkaProducer<>(producerProps(prefix + "-ctp-tx"))) {
      p.initTransactions();
      // The first transaction is aborted: its outputs and its offsets must vanish together.
      int abortedInputs;
      try (KafkaConsumer<String, String> c = new KafkaConsumer<>(ctpConsumerProps(group))) {
        c.subscribe(List.of(source));
        ConsumerRecords<String, String> rs = pollSome(c);
        abortedInputs = rs.count();
        p.beginTransaction();
        for (ConsumerRecord<String, String> r : rs) p.send(new ProducerRecord<>(out, r.partition(), null, "out-" + r.value()));
        p.sendOffsetsToTransaction(nextOffsets(rs), c.groupMetadata());
        p.flush();
        p.abortTransaction();
      }
      Map<TopicPartition, OffsetAndMetadata> afterAbort = committedOffsets(admin, group);
      check(afterAbort.values().stream().allMatch(o -> o == null), "offsets committed by an aborted transaction: " + afterAbort);
      // A new consumer of the group starts where the last committed transaction left: offset 0.
      int transactions = 0;
      try (KafkaConsumer<String, String> c = new KafkaConsumer<>(ctpConsumerProps(group))) {
        c.subscribe(List.of(source));
        long consumed = 0;
        long deadline = System.currentTimeMillis() + READ_TIMEOUT_MS;
        while (consumed < SOURCE_RECORDS) {
          check(System.currentTimeMillis() < deadline, "consume-transform-produce read " + consumed + " of " + SOURCE_RECORDS + " source records in " + READ_TIMEOUT_MS + " ms");
          ConsumerRecords<String, String> rs = c.poll(POLL);
          if (rs.isEmpty()) continue;
          p.beginTransaction();
          for (ConsumerRecord<String, String> r : rs) p.send(new ProducerRecord<>(out, r.partition(), null, "out-" + r.value()));
          p.sendOffsetsToTransaction(nextOffsets(rs), c.groupMetadata());
          p.commitTransaction();
          consumed += rs.count();
          transactions++;
        }
        check(consumed == SOURCE_RECORDS, "consumed " + consumed + " source records, want " + SOURCE_RECORDS + " (the aborted transaction's offsets were committed?)");
      }
      Map<TopicPartition, OffsetAndMetadata> committed = committedOffsets(admin, group);
      for (TopicPartition tp : srcTps) {
        OffsetAndMetadata o = committed.get(tp);
        check(o != null && o.offset() == sourceEnd.get(tp), "group offset of " + tp + " is " + o + ", want " + sourceEnd.get(tp));
      }
      List<String> want = new ArrayList<>();
      for (String v : sourceValues) want.add("out-" + v);
      sameRecords(flatten(readAll("read_committed", partitions(out))), want, "read_committed output of consume-transform-produce");
      System.out.println("TXN consume-transform-produce " + abortedInputs + " inputs aborted then " + SOURCE_RECORDS + " in " + transactions + " committed transactions; group offsets at the end offsets");
    }
  }

  static ConsumerRecords<String, String> pollSome(KafkaConsumer<String, String> c) {
    long deadline = System.currentTimeMillis() + READ_TIMEOUT_MS;
    while (true) {
      ConsumerRecords<String, String> rs = c.poll(POLL);
      if (!rs.isEmpty()) return rs;
      check(System.currentTimeMillis() < deadline, "no source record within " + READ_TIMEOUT_MS + " ms");
    }
  }

  static Map<TopicPartition, OffsetAndMetadata> nextOffsets(ConsumerRecords<String, String> rs) {
    Map<TopicPartition, OffsetAndMetadata> m = new HashMap<>();
    for (TopicPartition tp : rs.partitions()) {
      List<ConsumerRecord<String, String>> l = rs.records(tp);
      m.put(tp, new OffsetAndMetadata(l.get(l.size() - 1).offset() + 1));
    }
    return m;
  }

  static Map<TopicPartition, OffsetAndMetadata> committedOffsets(Admin admin, String group) throws Exception {
    return admin.listConsumerGroupOffsets(group, new ListConsumerGroupOffsetsOptions().requireStable(true))
        .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
  }
}
