package io.tributary.interop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The default (idempotent, acks=all) producer through a connection that loses Produce answers: the
 * test runs it against a proxy that closes the connection instead of relaying some Produce
 * responses, so the producer sends those batches again with the same sequences. Every record must
 * be acknowledged and stored exactly once, at the offset its acknowledgement named.
 *
 * <p>Usage: {@code Retries HOST:PORT TOPIC COUNT}. Small batches (batch.size 256, linger.ms 1) keep
 * several requests in flight. Then a consumer reads the partition from the start to its end.
 *
 * <p>Prints {@code RETRIES OK <count> <end offset>} and exits 0 on success, {@code RETRIES FAIL ...} and
 * 1 otherwise.
 */
public final class Retries {
  static final long TIMEOUT_S = 120;

  public static void main(String[] args) {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      String level = System.getenv("INTEROP_LOG_LEVEL");
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", level == null || level.isEmpty() ? "warn" : level);
    }
    if (args.length != 3) {
      System.err.println("usage: Retries HOST:PORT TOPIC COUNT");
      System.exit(2);
    }
    try {
      run(args[0], args[1], Integer.parseInt(args[2]));
    } catch (Throwable t) {
      System.out.println("RETRIES FAIL " + t);
      t.printStackTrace();
      System.exit(1);
    }
    System.exit(0);
  }

  static void check(boolean ok, String what) {
    if (!ok) throw new IllegalStateException(what);
  }

  static void run(String bootstrap, String topic, int count) throws Exception {
    Properties a = new Properties();
    a.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(a)) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(TIMEOUT_S, TimeUnit.SECONDS);
    }

    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 1);
    p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 20);
    p.put(ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, 20);
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 110_000);
    Map<String, Long> acked = new HashMap<>();
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      List<Future<RecordMetadata>> futures = new ArrayList<>();
      for (int i = 0; i < count; i++) futures.add(producer.send(new ProducerRecord<>(topic, 0, null, "r-" + i)));
      producer.flush();
      for (int i = 0; i < count; i++) acked.put("r-" + i, futures.get(i).get(TIMEOUT_S, TimeUnit.SECONDS).offset());
    }

    Properties c = new Properties();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    TopicPartition tp = new TopicPartition(topic, 0);
    Map<String, Long> stored = new HashMap<>();
    long end;
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c)) {
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      end = consumer.endOffsets(List.of(tp)).get(tp);
      long deadline = System.currentTimeMillis() + TIMEOUT_S * 1000;
      while (consumer.position(tp) < end) {
        check(System.currentTimeMillis() < deadline, "consumer did not reach the end offset " + end);
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
          Long before = stored.put(r.value(), r.offset());
          check(before == null, r.value() + " stored twice, at " + before + " and " + r.offset());
        }
      }
    }
    check(end == count, "end offset " + end + " for " + count + " records");
    check(stored.size() == count, stored.size() + " distinct records stored for " + count);
    for (Map.Entry<String, Long> e : acked.entrySet()) {
      check(e.getValue().equals(stored.get(e.getKey())), e.getKey() + " acknowledged at " + e.getValue() + ", stored at " + stored.get(e.getKey()));
    }
    System.out.println("RETRIES OK " + count + " " + end);
  }
}
