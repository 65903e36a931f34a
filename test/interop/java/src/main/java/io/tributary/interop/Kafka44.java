package io.tributary.interop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Java 4.4 client against the versions Tributary raised to Kafka 4.4's maxima; each step
 * asserts an answer that only the new version gives:
 * <ul>
 *   <li>ListOffsets v11: {@code OffsetSpec.earliestPendingUpload()} (the Admin refuses it below
 *       v11), and the tiered specs on a topic without tiered storage: earliestLocal = the log start,
 *       latestTiered and earliestPendingUpload = -1;</li>
 *   <li>DescribeCluster v2: {@code includeFencedBrokers(true)} (refused below v2), no broker fenced;</li>
 *   <li>DescribeGroups v6: an unknown group fails with GroupIdNotFoundException (below v6 it is
 *       described as Dead);</li>
 *   <li>DeleteGroups v3 and a classic KafkaConsumer group committing offsets (OffsetCommit and
 *       OffsetFetch: the classic consumer names topics, so it stays at v9 as Kafka's own client
 *       does); every client request's Metadata goes in v13.</li>
 *   <li>DescribeProducers v0 (KIP-664): {@code Admin.describeProducers} lists the idempotent
 *       producer that wrote the records, with the producer id and epoch the producer itself holds
 *       (read from its transaction manager), last sequence RECORDS - 1, a last timestamp from the
 *       run, and neither coordinator epoch nor transaction start offset.</li>
 * </ul>
 * Usage: {@code Kafka44 HOST:PORT TOPIC}. Prints {@code KAFKA44 OK} and exits 0 on success, or
 * {@code KAFKA44 FAIL [step] ...} and exits 1.
 */
public final class Kafka44 {
  static final int RECORDS = 10;
  static final long DELETED_BELOW = 3;
  static final long TIMEOUT_S = 60;

  private static String step = "start";

  public static void main(String[] args) {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      String level = System.getenv("INTEROP_LOG_LEVEL");
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", level == null || level.isEmpty() ? "warn" : level);
    }
    if (args.length != 2) {
      System.err.println("usage: Kafka44 HOST:PORT TOPIC");
      System.exit(2);
    }
    try {
      run(args[0], args[1]);
    } catch (Throwable t) {
      System.out.println("KAFKA44 FAIL [" + step + "] " + Interop.describe(t));
      System.out.flush();
      t.printStackTrace(System.err);
      System.err.flush();
      System.exit(1);
      return;
    }
    System.out.println("KAFKA44 OK");
    System.out.flush();
    System.exit(0);
  }

  static <T> T await(Future<T> f) throws InterruptedException, ExecutionException, java.util.concurrent.TimeoutException {
    return f.get(TIMEOUT_S, TimeUnit.SECONDS);
  }

  /** The cause of a failed future, which must be of the given class. */
  static Throwable expectFailure(Future<?> f, Class<? extends Throwable> expected, String what) throws Exception {
    try {
      Object v = await(f);
      throw new Interop.Mismatch(what + ": expected " + expected.getSimpleName() + ", got " + v);
    } catch (ExecutionException e) {
      Interop.check(expected.isInstance(e.getCause()), what + ": expected " + expected.getSimpleName() + ", got " + Interop.describe(e.getCause()));
      return e.getCause();
    }
  }

  static void run(String bootstrap, String topic) throws Exception {
    Properties adminProps = new Properties();
    adminProps.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    adminProps.put(AdminClientConfig.CLIENT_ID_CONFIG, "kafka44-admin");
    TopicPartition tp0 = new TopicPartition(topic, 0);
    String group = topic + "-group";

    try (Admin admin = Admin.create(adminProps)) {
      step = "admin.createTopics";
      await(admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all());

      step = "producer";
      Properties pp = new Properties();
      pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      long producedFrom = System.currentTimeMillis();
      long[] idAndEpoch;
      try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
        List<Future<?>> sent = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) sent.add(producer.send(new ProducerRecord<>(topic, 0, "k" + i, "v" + i)));
        producer.flush();
        for (Future<?> f : sent) await(f);
        idAndEpoch = producerIdAndEpoch(producer);
      }
      long producedTo = System.currentTimeMillis();

      // DescribeProducers v0 (KIP-664), routed by the Admin to the partition's leader.
      step = "admin.describeProducers";
      List<ProducerState> producers = await(admin.describeProducers(List.of(tp0)).partitionResult(tp0)).activeProducers();
      Interop.check(producers.size() == 1, "describeProducers: expected 1 producer, got " + producers);
      ProducerState ps = producers.get(0);
      Interop.check(ps.producerId() == idAndEpoch[0] && ps.producerEpoch() == idAndEpoch[1],
          "describeProducers: expected producer " + idAndEpoch[0] + " epoch " + idAndEpoch[1] + ", got " + ps);
      Interop.check(ps.lastSequence() == RECORDS - 1, "describeProducers: expected last sequence " + (RECORDS - 1) + ", got " + ps);
      Interop.check(ps.lastTimestamp() >= producedFrom && ps.lastTimestamp() <= producedTo,
          "describeProducers: last timestamp outside [" + producedFrom + ", " + producedTo + "]: " + ps);
      Interop.check(ps.coordinatorEpoch().isEmpty() && ps.currentTransactionStartOffset().isEmpty(),
          "describeProducers: expected no coordinator epoch nor transaction start offset, got " + ps);
      Interop.log("describeProducers " + ps);

      step = "admin.deleteRecords";
      await(admin.deleteRecords(Map.of(tp0, RecordsToDelete.beforeOffset(DELETED_BELOW))).all());

      // ListOffsets v11 (KIP-1023) and the tiered specs of v8-v9 on a topic without tiered storage.
      step = "admin.listOffsets";
      long earliest = offset(admin, tp0, OffsetSpec.earliest());
      long earliestLocal = offset(admin, tp0, OffsetSpec.earliestLocal());
      long latest = offset(admin, tp0, OffsetSpec.latest());
      long latestTiered = offset(admin, tp0, OffsetSpec.latestTiered());
      long pendingUpload = offset(admin, tp0, OffsetSpec.earliestPendingUpload());
      Interop.check(earliest == DELETED_BELOW, "earliest: expected " + DELETED_BELOW + ", got " + earliest);
      Interop.check(earliestLocal == DELETED_BELOW, "earliestLocal: expected the log start " + DELETED_BELOW + ", got " + earliestLocal);
      Interop.check(latest == RECORDS, "latest: expected " + RECORDS + ", got " + latest);
      Interop.check(latestTiered == -1, "latestTiered: expected -1 (nothing tiered), got " + latestTiered);
      Interop.check(pendingUpload == -1, "earliestPendingUpload: expected -1 (nothing tiered), got " + pendingUpload);
      Interop.log("listOffsets earliest=" + earliest + " earliestLocal=" + earliestLocal + " latest=" + latest
          + " latestTiered=" + latestTiered + " earliestPendingUpload=" + pendingUpload);

      // DescribeCluster v2 (KIP-1073).
      step = "admin.describeCluster(includeFencedBrokers)";
      Collection<Node> nodes = await(admin.describeCluster(new DescribeClusterOptions().includeFencedBrokers(true)).nodes());
      Interop.check(nodes.size() == 1, "describeCluster: expected 1 node, got " + nodes);
      for (Node n : nodes) Interop.check(!n.isFenced(), "describeCluster: node " + n + " is fenced");

      // A classic consumer group: subscribe, read, commit (OffsetCommit), read back (OffsetFetch).
      step = "consumer.commitSync";
      Properties cp = new Properties();
      cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      cp.put(ConsumerConfig.GROUP_ID_CONFIG, group);
      cp.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
      cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
      cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
      cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
      cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp)) {
        consumer.subscribe(List.of(topic));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
        int read = 0;
        while (read < RECORDS - DELETED_BELOW) {
          Interop.check(System.nanoTime() < deadline, "consumer: only " + read + " records after " + TIMEOUT_S + " s");
          ConsumerRecords<String, String> recs = consumer.poll(Duration.ofMillis(500));
          read += recs.count();
        }
        consumer.commitSync(Map.of(tp0, new OffsetAndMetadata(7, "seven")));
        OffsetAndMetadata committed = consumer.committed(Set.of(tp0), Duration.ofSeconds(TIMEOUT_S)).get(tp0);
        Interop.check(committed != null && committed.offset() == 7 && "seven".equals(committed.metadata()),
            "consumer.committed: expected 7/seven, got " + committed);
      }
      step = "admin.listConsumerGroupOffsets";
      Map<TopicPartition, OffsetAndMetadata> offsets = await(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
      Interop.check(offsets.get(tp0) != null && offsets.get(tp0).offset() == 7, "listConsumerGroupOffsets: expected 7, got " + offsets);

      // DescribeGroups v6 (KIP-1043): a known group is described; an unknown one is not found.
      step = "admin.describeConsumerGroups";
      ConsumerGroupDescription d = await(admin.describeConsumerGroups(List.of(group)).describedGroups().get(group));
      Interop.check(d.groupState() == GroupState.EMPTY, "describeConsumerGroups " + group + ": expected EMPTY, got " + d.groupState());
      String missing = topic + "-no-such-group";
      expectFailure(admin.describeConsumerGroups(List.of(missing)).describedGroups().get(missing), GroupIdNotFoundException.class,
          "describeConsumerGroups of an unknown group");

      // DeleteGroups v3.
      step = "admin.deleteConsumerGroups";
      Throwable notFound = expectFailure(admin.deleteConsumerGroups(List.of(missing)).all(), GroupIdNotFoundException.class,
          "deleteConsumerGroups of an unknown group");
      Interop.log("deleteConsumerGroups of an unknown group: " + notFound.getMessage());
      await(admin.deleteConsumerGroups(List.of(group)).all());
      expectFailure(admin.describeConsumerGroups(List.of(group)).describedGroups().get(group), GroupIdNotFoundException.class,
          "describeConsumerGroups after deleteConsumerGroups");

      step = "admin.deleteTopics";
      await(admin.deleteTopics(List.of(topic)).all());
      step = "done";
    }
  }

  /** The producer id and epoch a producer holds (its TransactionManager's; no public accessor). */
  static long[] producerIdAndEpoch(KafkaProducer<?, ?> producer) throws Exception {
    Field tm = KafkaProducer.class.getDeclaredField("transactionManager");
    tm.setAccessible(true);
    Object manager = tm.get(producer);
    Method m = manager.getClass().getDeclaredMethod("producerIdAndEpoch");
    m.setAccessible(true);
    Object pe = m.invoke(manager);
    Field id = pe.getClass().getDeclaredField("producerId");
    Field epoch = pe.getClass().getDeclaredField("epoch");
    id.setAccessible(true);
    epoch.setAccessible(true);
    return new long[] {((Number) id.get(pe)).longValue(), ((Number) epoch.get(pe)).longValue()};
  }

  static long offset(Admin admin, TopicPartition tp, OffsetSpec spec) throws Exception {
    ListOffsetsResultInfo info = await(admin.listOffsets(Map.of(tp, spec)).partitionResult(tp));
    return info.offset();
  }
}
