package io.tributary.interop;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Group consumers of the Java 4.4 client as a SASL/PLAIN user under an authorizer and a quota
 * (test/integration/acl-quota-java.test.ts).
 *
 * <p>Usage: {@code SecuredGroups MODE HOST:PORT USER PASSWORD ...}:
 * <ul>
 *   <li>{@code regex GROUP PATTERN}: a KafkaConsumer with {@code group.protocol=consumer} subscribed
 *       with {@code subscribe(new SubscriptionPattern(PATTERN))}, the broker-side regex of KIP-848,
 *       reading from the earliest offset. Prints {@code ASSIGNED tp,tp,...} (sorted) each time
 *       {@code assignment()} changes and {@code REC topic partition offset value} per record;
 *       closes on a {@code stop} line on stdin and prints {@code CLOSED}.
 *   <li>{@code share GROUP TOPIC COUNT SECONDS FETCH_MAX_BYTES}: a KafkaShareConsumer (implicit
 *       acknowledgement) reads until COUNT records came or SECONDS passed, with
 *       {@code fetch.max.bytes} FETCH_MAX_BYTES, and prints {@code SHARE-QUOTA records=N bytes=B
 *       ms=T throttle-max=M distinct=D max-delivery=X metric-group=G}: B the value bytes
 *       delivered, M the largest value its {@code fetch-throttle-time-max} metric (the ShareFetch
 *       responses' throttle_time_ms) took during the run, D the distinct offsets delivered and X
 *       the largest delivery count a record came with.
 * </ul>
 * A client error prints {@code CLIENT-ERROR ...} and exits 1.
 */
public final class SecuredGroups {
  public static void main(String[] args) {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      String level = System.getenv("INTEROP_LOG_LEVEL");
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", level == null || level.isEmpty() ? "warn" : level);
    }
    try {
      Properties p = sasl(args[1], args[2], args[3]);
      switch (args[0]) {
        case "regex" -> regex(p, args[4], args[5]);
        case "share" -> share(p, args[4], args[5], Integer.parseInt(args[6]), Integer.parseInt(args[7]), args[8]);
        default -> throw new IllegalArgumentException("unknown mode " + args[0]);
      }
    } catch (Exception e) {
      System.out.println("CLIENT-ERROR " + e);
      System.out.flush();
      System.exit(1);
    }
  }

  static Properties sasl(String bootstrap, String user, String password) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put("security.protocol", "SASL_PLAINTEXT");
    p.put("sasl.mechanism", "PLAIN");
    p.put("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
        + user + "\" password=\"" + password + "\";");
    return p;
  }

  static void regex(Properties p, String group, String pattern) throws Exception {
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "java-regex-member");
    p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
      c.subscribe(new SubscriptionPattern(pattern));
      BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      String assigned = null;
      while (true) {
        ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(200));
        StringBuilder out = new StringBuilder();
        TreeSet<String> now = new TreeSet<>();
        for (TopicPartition tp : c.assignment()) now.add(tp.toString());
        String line = String.join(",", now);
        if (!line.equals(assigned)) {
          out.append("ASSIGNED ").append(line).append('\n');
          assigned = line;
        }
        for (ConsumerRecord<String, String> r : recs)
          out.append("REC ").append(r.topic()).append(' ').append(r.partition()).append(' ').append(r.offset()).append(' ').append(r.value()).append('\n');
        System.out.print(out);
        System.out.flush();
        if (stdin.ready() && "stop".equals(stdin.readLine())) break;
      }
    }
    System.out.println("CLOSED");
    System.out.flush();
  }

  static void share(Properties p, String group, String topic, int count, int seconds, String fetchMaxBytes) {
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "java-share-quota");
    p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, fetchMaxBytes);
    p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, fetchMaxBytes);
    try (KafkaShareConsumer<byte[], byte[]> c = new KafkaShareConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      c.subscribe(List.of(topic));
      long start = System.nanoTime();
      long deadline = start + seconds * 1_000_000_000L;
      long records = 0;
      long bytes = 0;
      double throttleMax = 0;
      java.util.Set<String> distinct = new java.util.HashSet<>();
      int maxDelivery = 0;
      while (records < count && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          records++;
          bytes += r.value() == null ? 0 : r.value().length;
          distinct.add(r.partition() + ":" + r.offset());
          maxDelivery = Math.max(maxDelivery, r.deliveryCount().map(Short::intValue).orElse(0));
        }
        // The metric is a max over the client's sample windows: keep the largest seen in the run.
        throttleMax = Math.max(throttleMax, metric(c.metrics(), "fetch-throttle-time-max"));
      }
      long ms = (System.nanoTime() - start) / 1_000_000;
      System.out.printf("SHARE-QUOTA records=%d bytes=%d ms=%d throttle-max=%.1f distinct=%d max-delivery=%d metric-group=%s%n", records,
          bytes, ms, throttleMax, distinct.size(), maxDelivery, groupOf(c.metrics(), "fetch-throttle-time-max"));
      System.out.flush();
    }
  }

  /** The share consumer's fetch manager metric of that name (its group ends with fetch-manager-metrics); NaN as 0. */
  static double metric(Map<MetricName, ? extends Metric> metrics, String name) {
    for (var e : metrics.entrySet()) {
      if (e.getKey().name().equals(name) && e.getKey().group().endsWith("fetch-manager-metrics")) {
        Object v = e.getValue().metricValue();
        return v instanceof Double d && !d.isNaN() && !d.isInfinite() ? d : 0.0;
      }
    }
    throw new IllegalStateException("no metric " + name);
  }

  static String groupOf(Map<MetricName, ? extends Metric> metrics, String name) {
    for (MetricName m : metrics.keySet()) if (m.name().equals(name) && m.group().endsWith("fetch-manager-metrics")) return m.group();
    return "none";
  }
}
