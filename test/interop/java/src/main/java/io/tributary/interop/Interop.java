package io.tributary.interop;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.SupportedVersionRange;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;

/**
 * Drives the official Apache Kafka Java client against a running broker and checks every answer.
 *
 * <p>Usage: {@code Interop HOST:PORT TOPIC}. Steps: AdminClient createTopics / describeCluster /
 * describeTopics (DescribeTopicPartitions, paged two partitions at a time, and a missing topic) /
 * describeFeatures / describeConfigs; a KafkaProducer with default settings (idempotent, acks=all)
 * sends {@value #COUNT} keyed records with headers; a group-less KafkaConsumer (assign + seek)
 * reads them back and compares every field; AdminClient listOffsets earliest/latest; deleteTopics.
 *
 * <p>Prints {@code INTEROP OK <n>} and exits 0 on success; prints {@code INTEROP FAIL [step] ...}
 * and exits 1 on any mismatch or client error. Client log level: env INTEROP_LOG_LEVEL (default warn).
 */
public final class Interop {
  static final int COUNT = 1000;
  static final int PARTITIONS = 3;
  static final String RETENTION_MS = "604800000";
  static final long TIMEOUT_S = 60;

  /** What the producer sent and where the broker said it landed. */
  record Sent(int index, String key, String value, int partition, long offset) {}

  /** Thrown for a mismatch: the message says what was expected and what came back. */
  static final class Mismatch extends RuntimeException {
    Mismatch(String msg) {
      super(msg);
    }
  }

  private static String step = "start";

  public static void main(String[] args) {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      String level = System.getenv("INTEROP_LOG_LEVEL");
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", level == null || level.isEmpty() ? "warn" : level);
    }
    System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
    System.setProperty("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
    if (args.length != 2) {
      System.err.println("usage: Interop HOST:PORT TOPIC");
      System.exit(2);
    }
    int n;
    try {
      n = run(args[0], args[1]);
    } catch (Throwable t) {
      System.out.println("INTEROP FAIL [" + step + "] " + describe(t));
      System.out.flush();
      t.printStackTrace(System.err);
      System.err.flush();
      System.exit(1);
      return;
    }
    System.out.println("INTEROP OK " + n);
    System.out.flush();
    System.exit(0);
  }

  static String describe(Throwable t) {
    StringBuilder sb = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (sb.length() > 0) sb.append(" <- caused by ");
      sb.append(c.getClass().getName()).append(": ").append(c.getMessage());
      if (c.getCause() == c) break;
    }
    return sb.toString();
  }

  static void check(boolean ok, String msg) {
    if (!ok) throw new Mismatch(msg);
  }

  static void log(String msg) {
    System.out.println("[interop] " + msg);
    System.out.flush();
  }

  static <T> T await(Future<T> f) throws InterruptedException, ExecutionException, java.util.concurrent.TimeoutException {
    return f.get(TIMEOUT_S, TimeUnit.SECONDS);
  }

  static int run(String bootstrap, String topic) throws Exception {
    Properties adminProps = new Properties();
    adminProps.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    adminProps.put(AdminClientConfig.CLIENT_ID_CONFIG, "interop-admin");

    List<TopicPartition> tps = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) tps.add(new TopicPartition(topic, p));

    try (Admin admin = Admin.create(adminProps)) {
      // (a) Admin: create the topic, describe the cluster, the topic and its configs.
      step = "admin.createTopics";
      await(admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all());
      log("created topic " + topic + " with " + PARTITIONS + " partitions");

      step = "admin.describeCluster";
      DescribeClusterResult cluster = admin.describeCluster();
      Collection<Node> nodes = await(cluster.nodes());
      String clusterId = await(cluster.clusterId());
      Node controller = await(cluster.controller());
      check(nodes.size() == 1, "describeCluster: expected 1 node, got " + nodes);
      log("cluster " + clusterId + " nodes=" + nodes + " controller=" + controller);

      step = "admin.describeTopics";
      TopicDescription td = await(admin.describeTopics(List.of(topic)).allTopicNames()).get(topic);
      check(td != null, "describeTopics: topic " + topic + " missing");
      check(td.partitions().size() == PARTITIONS,
          "describeTopics: expected " + PARTITIONS + " partitions, got " + td.partitions().size());
      td.partitions().forEach(p -> check(p.replicas().size() == 1 && p.leader() != null,
          "describeTopics: partition " + p.partition() + " expected 1 replica and a leader, got " + p));

      // Java 4.x Admin describes topics with DescribeTopicPartitions when the broker serves it; two
      // partitions per answer makes it follow the cursor.
      step = "admin.describeTopics.paged";
      TopicDescription paged = await(admin.describeTopics(List.of(topic),
          new DescribeTopicsOptions().partitionSizeLimitPerResponse(2)).allTopicNames()).get(topic);
      check(paged.partitions().size() == PARTITIONS,
          "describeTopics (2 per response): expected " + PARTITIONS + " partitions, got " + paged.partitions());
      for (int p = 0; p < PARTITIONS; p++) {
        check(paged.partitions().get(p).partition() == p, "describeTopics (paged): partition order " + paged.partitions());
        check(paged.partitions().get(p).elr().isEmpty() && paged.partitions().get(p).lastKnownElr().isEmpty(),
            "describeTopics (paged): expected empty ELR, got " + paged.partitions().get(p));
      }
      check(paged.topicId().equals(td.topicId()), "describeTopics: topic id differs between calls");
      log("describeTopics " + topic + " id=" + paged.topicId() + " partitions=" + paged.partitions().size());

      step = "admin.describeTopics.missing";
      try {
        await(admin.describeTopics(List.of(topic + "-missing")).allTopicNames());
        throw new Mismatch("describeTopics of a missing topic succeeded");
      } catch (ExecutionException e) {
        check(e.getCause() instanceof UnknownTopicOrPartitionException,
            "describeTopics of a missing topic: expected UnknownTopicOrPartitionException, got " + describe(e.getCause()));
      }

      step = "admin.describeFeatures";
      FeatureMetadata features = await(admin.describeFeatures().featureMetadata());
      log("describeFeatures " + features);
      FinalizedVersionRange mv = features.finalizedFeatures().get("metadata.version");
      check(mv != null && mv.minVersionLevel() == mv.maxVersionLevel() && mv.maxVersionLevel() >= 7,
          "describeFeatures: metadata.version not finalized: " + features);
      SupportedVersionRange mvRange = features.supportedFeatures().get("metadata.version");
      check(mvRange != null && mvRange.minVersion() <= mv.maxVersionLevel() && mv.maxVersionLevel() <= mvRange.maxVersion(),
          "describeFeatures: finalized metadata.version outside its supported range: " + features);
      check(features.finalizedFeaturesEpoch().isPresent() && features.finalizedFeaturesEpoch().get() >= 0,
          "describeFeatures: no finalized features epoch: " + features);
      // Transactions v2 (KIP-890) is served: finalized at 2 within its supported 0-2.
      FinalizedVersionRange tv = features.finalizedFeatures().get("transaction.version");
      SupportedVersionRange tvRange = features.supportedFeatures().get("transaction.version");
      check(tv != null && tv.maxVersionLevel() == 2 && tvRange != null && tvRange.maxVersion() == 2,
          "describeFeatures: transaction.version not finalized at 2: " + features);
      FinalizedVersionRange gv = features.finalizedFeatures().get("group.version");
      check(gv != null && gv.maxVersionLevel() == 1, "describeFeatures: group.version (KIP-848) not finalized at 1: " + features);
      // Share groups (KIP-932) are served, at Kafka 4.4's production level.
      FinalizedVersionRange sv = features.finalizedFeatures().get("share.version");
      SupportedVersionRange svRange = features.supportedFeatures().get("share.version");
      check(sv != null && sv.maxVersionLevel() == 2 && svRange != null && svRange.maxVersion() == 2,
          "describeFeatures: share.version not finalized at 2: " + features);

      step = "admin.describeConfigs";
      ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      Map<ConfigResource, Config> configs = await(admin.describeConfigs(List.of(res)).all());
      Config cfg = configs.get(res);
      check(cfg != null, "describeConfigs: no config returned for " + res);
      ConfigEntry retention = cfg.get("retention.ms");
      check(retention != null, "describeConfigs: retention.ms missing; entries=" + cfg.entries());
      check(RETENTION_MS.equals(retention.value()),
          "describeConfigs: retention.ms expected " + RETENTION_MS + ", got " + retention.value());
      log("describeConfigs retention.ms=" + retention.value() + " (" + cfg.entries().size() + " entries)");

      // (b) Producer with default settings: idempotent (InitProducerId), acks=all.
      step = "producer";
      List<Sent> sent = produce(bootstrap, topic);
      log("produced " + sent.size() + " records, all acked");

      step = "producer.partitioner";
      int[] perPartition = new int[PARTITIONS];
      long[] lastOffset = {-1, -1, -1};
      for (Sent s : sent) {
        int expected = Utils.toPositive(Utils.murmur2(s.key().getBytes(StandardCharsets.UTF_8))) % PARTITIONS;
        check(s.partition() == expected,
            "record " + s.index() + " key " + s.key() + ": acked on partition " + s.partition()
                + " but murmur2 default partitioner says " + expected);
        // One producer, idempotent (ordered) sends: each partition's offsets are 0,1,2,... in send order.
        check(s.offset() == lastOffset[s.partition()] + 1,
            "record " + s.index() + " on partition " + s.partition() + ": acked offset " + s.offset()
                + ", expected " + (lastOffset[s.partition()] + 1));
        lastOffset[s.partition()] = s.offset();
        perPartition[s.partition()]++;
      }
      for (int p = 0; p < PARTITIONS; p++) {
        check(perPartition[p] > 0, "partition " + p + " received no records");
      }

      // (c) Consumer without a group: assign + seekToBeginning, read everything back.
      step = "consumer";
      int consumed = consume(bootstrap, topic, tps, sent, perPartition);
      log("consumed and verified " + consumed + " records");

      // (d) Admin listOffsets earliest / latest.
      step = "admin.listOffsets";
      Map<TopicPartition, OffsetSpec> earliestReq = new HashMap<>();
      Map<TopicPartition, OffsetSpec> latestReq = new HashMap<>();
      for (TopicPartition tp : tps) {
        earliestReq.put(tp, OffsetSpec.earliest());
        latestReq.put(tp, OffsetSpec.latest());
      }
      Map<TopicPartition, ListOffsetsResultInfo> earliest = await(admin.listOffsets(earliestReq).all());
      Map<TopicPartition, ListOffsetsResultInfo> latest = await(admin.listOffsets(latestReq).all());
      long latestSum = 0;
      for (TopicPartition tp : tps) {
        ListOffsetsResultInfo e = earliest.get(tp);
        ListOffsetsResultInfo l = latest.get(tp);
        check(e != null && l != null, "listOffsets: missing answer for " + tp);
        check(e.offset() == 0, "listOffsets earliest " + tp + ": expected 0, got " + e.offset());
        check(l.offset() == perPartition[tp.partition()],
            "listOffsets latest " + tp + ": expected " + perPartition[tp.partition()] + ", got " + l.offset());
        latestSum += l.offset();
      }
      check(latestSum == COUNT, "listOffsets latest: sum expected " + COUNT + ", got " + latestSum);
      log("listOffsets earliest=" + offsets(earliest, tps) + " latest=" + offsets(latest, tps));

      // (e) Delete the topic; it must leave the topic list.
      step = "admin.deleteTopics";
      await(admin.deleteTopics(List.of(topic)).all());
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      Set<String> names;
      do {
        names = await(admin.listTopics().names());
        if (!names.contains(topic)) break;
        Thread.sleep(100);
      } while (System.nanoTime() < deadline);
      check(!names.contains(topic), "deleteTopics: " + topic + " still listed after 10 s: " + names);
      log("deleted topic " + topic);
      step = "done";
      return consumed;
    }
  }

  static String offsets(Map<TopicPartition, ListOffsetsResultInfo> m, List<TopicPartition> tps) {
    StringBuilder sb = new StringBuilder("[");
    for (TopicPartition tp : tps) {
      if (sb.length() > 1) sb.append(',');
      sb.append(m.get(tp).offset());
    }
    return sb.append(']').toString();
  }

  static String keyOf(int i) {
    return "key-" + i;
  }

  /** Values of varying length with non-ASCII text, so UTF-8 and batch boundaries are exercised. */
  static String valueOf(int i) {
    return "value-" + i + "-ünïcødé-€-" + "x".repeat(i % 97);
  }

  static List<Sent> produce(String bootstrap, String topic) throws Exception {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.CLIENT_ID_CONFIG, "interop-producer");
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    // Everything else default: enable.idempotence=true, acks=all, max.in.flight=5, default partitioner.

    List<Future<RecordMetadata>> futures = new ArrayList<>(COUNT);
    List<Sent> sent = new ArrayList<>(COUNT);
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
      for (int i = 0; i < COUNT; i++) {
        RecordHeaders headers = new RecordHeaders();
        headers.add("idx", Integer.toString(i).getBytes(StandardCharsets.UTF_8));
        headers.add("client", "java".getBytes(StandardCharsets.UTF_8));
        futures.add(producer.send(new ProducerRecord<>(topic, null, keyOf(i), valueOf(i), headers)));
      }
      producer.flush();
      for (int i = 0; i < COUNT; i++) {
        RecordMetadata md;
        try {
          md = await(futures.get(i));
        } catch (ExecutionException e) {
          throw new Mismatch("send of record " + i + " failed: " + describe(e.getCause()));
        }
        check(md.hasOffset(), "record " + i + ": ack without an offset: " + md);
        sent.add(new Sent(i, keyOf(i), valueOf(i), md.partition(), md.offset()));
      }
    }
    return sent;
  }

  static int consume(String bootstrap, String topic, List<TopicPartition> tps, List<Sent> sent, int[] perPartition) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, "interop-consumer");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    // No group.id: no coordinator, no commits.

    Map<String, Sent> byKey = new HashMap<>();
    for (Sent s : sent) byKey.put(s.key(), s);
    Map<String, Boolean> seen = new HashMap<>();
    long[] nextOffset = new long[PARTITIONS];

    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
      consumer.assign(tps);
      consumer.seekToBeginning(tps);

      step = "consumer.beginningOffsets/endOffsets";
      Map<TopicPartition, Long> begin = consumer.beginningOffsets(tps, Duration.ofSeconds(TIMEOUT_S));
      Map<TopicPartition, Long> end = consumer.endOffsets(tps, Duration.ofSeconds(TIMEOUT_S));
      for (TopicPartition tp : tps) {
        check(begin.get(tp) == 0L, "consumer.beginningOffsets " + tp + ": expected 0, got " + begin.get(tp));
        check(end.get(tp) == perPartition[tp.partition()],
            "consumer.endOffsets " + tp + ": expected " + perPartition[tp.partition()] + ", got " + end.get(tp));
      }

      step = "consumer.poll";
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
      int count = 0;
      while (count < COUNT) {
        check(System.nanoTime() < deadline,
            "consumer: only " + count + " of " + COUNT + " records after " + TIMEOUT_S + " s");
        ConsumerRecords<String, String> recs = consumer.poll(Duration.ofMillis(500));
        for (ConsumerRecord<String, String> r : recs) {
          verifyRecord(r, topic, byKey, seen, nextOffset);
          count++;
        }
      }
      // Nothing beyond what was produced.
      ConsumerRecords<String, String> extra = consumer.poll(Duration.ofMillis(500));
      check(extra.isEmpty(), "consumer: " + extra.count() + " unexpected records after the " + COUNT + " produced");
      for (TopicPartition tp : tps) {
        long pos = consumer.position(tp, Duration.ofSeconds(TIMEOUT_S));
        check(pos == perPartition[tp.partition()],
            "consumer.position " + tp + ": expected " + perPartition[tp.partition()] + ", got " + pos);
      }
      check(seen.size() == COUNT, "consumer: " + seen.size() + " distinct keys, expected " + COUNT);
      return count;
    }
  }

  static void verifyRecord(ConsumerRecord<String, String> r, String topic, Map<String, Sent> byKey,
      Map<String, Boolean> seen, long[] nextOffset) {
    String where = "consumed record " + r.topic() + "-" + r.partition() + "@" + r.offset();
    check(topic.equals(r.topic()), where + ": wrong topic");
    check(r.key() != null, where + ": null key");
    Sent s = byKey.get(r.key());
    check(s != null, where + ": unknown key " + r.key());
    check(seen.put(r.key(), Boolean.TRUE) == null, where + ": duplicate key " + r.key());
    check(r.partition() == s.partition(),
        where + ": key " + r.key() + " read from partition " + r.partition() + ", acked on " + s.partition());
    check(r.offset() == s.offset(),
        where + ": key " + r.key() + " read at offset " + r.offset() + ", acked at " + s.offset());
    check(r.offset() == nextOffset[r.partition()],
        where + ": expected the next offset of the partition, " + nextOffset[r.partition()]);
    nextOffset[r.partition()] = r.offset() + 1;
    check(s.value().equals(r.value()), where + ": value mismatch: expected '" + s.value() + "', got '" + r.value() + "'");
    check(r.timestampType() == TimestampType.CREATE_TIME,
        where + ": timestamp type " + r.timestampType() + ", expected CreateTime");
    check(r.timestamp() > 0, where + ": timestamp " + r.timestamp());
    Header[] hs = r.headers().toArray();
    check(hs.length == 2, where + ": expected 2 headers, got " + hs.length);
    check("idx".equals(hs[0].key())
            && Integer.toString(s.index()).equals(new String(hs[0].value(), StandardCharsets.UTF_8)),
        where + ": header idx expected " + s.index() + ", got " + hs[0].key() + "="
            + (hs[0].value() == null ? "null" : new String(hs[0].value(), StandardCharsets.UTF_8)));
    check("client".equals(hs[1].key()) && "java".equals(new String(hs[1].value(), StandardCharsets.UTF_8)),
        where + ": header client expected java, got " + hs[1].key());
  }
}
