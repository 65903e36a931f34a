package io.tributary.interop;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A group-less KafkaConsumer reading many partitions, which the Java client does over an
 * incremental fetch session (KIP-227): after the first full fetch each fetch names only the
 * partitions whose position moved, and the broker answers only the partitions with news.
 *
 * <p>Usage: {@code FetchSessions HOST:PORT TOPIC PARTITIONS PER_PARTITION}. Creates TOPIC, writes
 * half of PER_PARTITION records to each partition (value {@code p:i}), consumes them from the
 * start with small fetches (many rounds), writes the other half while the consumer keeps
 * fetching, and checks that every partition delivered 0 … PER_PARTITION−1 once and in order. It
 * prints {@code FETCH-SESSIONS consumed N}, waits for a line on stdin (the test reads the broker's
 * metrics meanwhile, the session still open), closes the consumer and prints
 * {@code FETCH-SESSIONS OK N}. A failed check prints {@code FETCH-SESSIONS FAILED ...} and exits 1.
 */
public final class FetchSessions {
  public static void main(String[] args) throws Exception {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      String level = System.getenv("INTEROP_LOG_LEVEL");
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", level == null || level.isEmpty() ? "warn" : level);
    }
    String bootstrap = args[0];
    String topic = args[1];
    int partitions = Integer.parseInt(args[2]);
    int perPartition = Integer.parseInt(args[3]);
    Properties a = new Properties();
    a.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(a)) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
    }
    Properties pp = new Properties();
    pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    pp.put(ProducerConfig.LINGER_MS_CONFIG, "0");
    Properties cp = new Properties();
    cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    // Small fetches: many rounds of the session, each with a few partitions' positions moved.
    cp.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, "2048");
    cp.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "1024");
    cp.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "50");
    int total = partitions * perPartition;
    int half = perPartition / 2;
    List<List<Integer>> seen = new ArrayList<>();
    for (int p = 0; p < partitions; p++) seen.add(new ArrayList<>());
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp, new StringSerializer(), new StringSerializer());
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp, new StringDeserializer(), new StringDeserializer())) {
      send(producer, topic, partitions, 0, half);
      List<TopicPartition> tps = new ArrayList<>();
      for (int p = 0; p < partitions; p++) tps.add(new TopicPartition(topic, p));
      consumer.assign(tps);
      int count = 0;
      boolean secondHalf = false;
      long deadline = System.currentTimeMillis() + 120_000;
      while (count < total) {
        if (System.currentTimeMillis() > deadline) fail("timed out at " + count + " of " + total);
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          String[] parts = r.value().split(":");
          int p = Integer.parseInt(parts[0]);
          if (p != r.partition()) fail("record " + r.value() + " on partition " + r.partition());
          seen.get(p).add(Integer.parseInt(parts[1]));
          count++;
        }
        if (!secondHalf && count >= partitions * half) {
          send(producer, topic, partitions, half, perPartition);
          secondHalf = true;
        }
      }
      for (int p = 0; p < partitions; p++) {
        List<Integer> got = seen.get(p);
        if (got.size() != perPartition) fail("partition " + p + " delivered " + got.size() + " records");
        for (int i = 0; i < perPartition; i++) {
          if (got.get(i) != i) fail("partition " + p + " delivered " + got.get(i) + " at position " + i);
        }
      }
      System.out.println("FETCH-SESSIONS consumed " + count);
      System.out.flush();
      new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
      System.out.println("FETCH-SESSIONS OK " + count);
      System.out.flush();
    }
  }

  static void send(KafkaProducer<String, String> producer, String topic, int partitions, int from, int to) throws Exception {
    for (int i = from; i < to; i++) {
      for (int p = 0; p < partitions; p++) producer.send(new ProducerRecord<>(topic, p, null, p + ":" + i));
    }
    producer.flush();
  }

  static void fail(String why) {
    System.out.println("FETCH-SESSIONS FAILED " + why);
    System.out.flush();
    System.exit(1);
  }
}
