package io.tributary.interop;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ThrottlingQuotaExceededException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Client quotas as the Java clients see them (the quotas are set by the test beforehand).
 *
 * <p>Usage: {@code Quotas HOST:PORT MODE ...}:
 * <ul>
 *   <li>{@code produce TOPIC CLIENT_ID BYTES}: a producer (acks=1) sends BYTES in 10 KiB records and
 *       prints {@code QUOTA produce bytes=N ms=T throttle-avg=A throttle-max=M}, the producer's own
 *       produce-throttle-time-avg/max metrics (from the throttle_time_ms of the responses);
 *   <li>{@code consume TOPIC CLIENT_ID BYTES}: a group-less consumer reads partition 0 from the
 *       start until BYTES were read and prints {@code QUOTA consume ...} with fetch-throttle-time-avg/max;
 *   <li>{@code mutate CLIENT_ID PREFIX COUNT PARTITIONS}: an admin client creates COUNT topics of
 *       PARTITIONS partitions one call at a time, without retrying on a quota violation, and prints
 *       {@code QUOTA mutate created=N throttled=K throttle-ms=T} (T from the exception).
 * </ul>
 */
public final class Quotas {
  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    switch (args[1]) {
      case "produce" -> produce(bootstrap, args[2], args[3], Long.parseLong(args[4]));
      case "consume" -> consume(bootstrap, args[2], args[3], Long.parseLong(args[4]));
      case "mutate" -> mutate(bootstrap, args[2], args[3], Integer.parseInt(args[4]), Integer.parseInt(args[5]));
      default -> throw new IllegalArgumentException("unknown mode " + args[1]);
    }
  }

  static double metric(Map<MetricName, ? extends Metric> metrics, String group, String name) {
    for (var e : metrics.entrySet()) {
      if (e.getKey().group().equals(group) && e.getKey().name().equals(name)) {
        Object v = e.getValue().metricValue();
        return v instanceof Double d && !d.isNaN() ? d : 0.0;
      }
    }
    throw new IllegalStateException("no metric " + group + "/" + name);
  }

  static void produce(String bootstrap, String topic, String clientId, long bytes) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
    p.put(ProducerConfig.ACKS_CONFIG, "1");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, "16384");
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      byte[] value = new byte[10 * 1024];
      long start = System.nanoTime();
      long sent = 0;
      while (sent < bytes) {
        producer.send(new ProducerRecord<>(topic, 0, null, value));
        sent += value.length;
      }
      producer.flush();
      long ms = (System.nanoTime() - start) / 1_000_000;
      var m = producer.metrics();
      System.out.printf("QUOTA produce bytes=%d ms=%d throttle-avg=%.1f throttle-max=%.1f%n", sent, ms,
          metric(m, "producer-metrics", "produce-throttle-time-avg"), metric(m, "producer-metrics", "produce-throttle-time-max"));
    }
  }

  static void consume(String bootstrap, String topic, String clientId, long bytes) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long start = System.nanoTime();
      long read = 0;
      long deadline = System.currentTimeMillis() + 120_000;
      while (read < bytes && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) read += r.value().length;
      }
      long ms = (System.nanoTime() - start) / 1_000_000;
      var m = consumer.metrics();
      System.out.printf("QUOTA consume bytes=%d ms=%d throttle-avg=%.1f throttle-max=%.1f%n", read, ms,
          metric(m, "consumer-fetch-manager-metrics", "fetch-throttle-time-avg"),
          metric(m, "consumer-fetch-manager-metrics", "fetch-throttle-time-max"));
    }
  }

  static void mutate(String bootstrap, String clientId, String prefix, int count, int partitions) throws Exception {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId);
    try (Admin admin = Admin.create(p)) {
      int created = 0;
      int throttled = 0;
      long throttleMs = 0;
      for (int i = 0; i < count; i++) {
        NewTopic t = new NewTopic(prefix + i, partitions, (short) 1);
        try {
          admin.createTopics(List.of(t), new CreateTopicsOptions().retryOnQuotaViolation(false)).all().get();
          created++;
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof ThrottlingQuotaExceededException q)) throw e;
          throttled++;
          throttleMs = Math.max(throttleMs, q.throttleTimeMs());
        }
      }
      System.out.printf("QUOTA mutate created=%d throttled=%d throttle-ms=%d%n", created, throttled, throttleMs);
    }
  }
}
