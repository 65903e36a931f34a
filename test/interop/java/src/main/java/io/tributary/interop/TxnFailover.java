package io.tributary.interop;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

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
 * One transaction while the test (test/integration/cluster-txn-failover.test.ts) kills the broker
 * that coordinates it, and the check that it then completed or aborted as a whole.
 *
 * <ul>
 *   <li>{@code TxnFailover run HOST:PORT[,...] TOPIC_A TOPIC_B PARTITIONS TXN_ID PER_HALF}: initTransactions,
 *       prints {@code READY}; begins a transaction and sends PER_HALF records (values
 *       {@code TXN_ID-<i>}) over every partition of both topics, flushes, prints {@code SENT <ms> <failed sends> <first error or ->}; waits
 *       for a line on stdin (the test kills the coordinator first when it tests a kill in the middle of
 *       the transaction); sends PER_HALF more, prints {@code COMMITTING} and commits (the test kills
 *       the coordinator on that line when it tests a kill during the commit). Prints
 *       {@code COMMITTED <ms>}, or {@code COMMIT-FAILED <error>} followed by {@code ABORTED} or
 *       {@code ABORT-FAILED <error>}; exits 0 either way, 1 on any other error.
 *   <li>{@code TxnFailover verify HOST:PORT[,...] TOPIC_A TOPIC_B PARTITIONS TXN_ID TIMEOUT_MS}: waits until no
 *       partition of the topics has an open transaction (the read_committed end offsets equal the
 *       read_uncommitted ones), then reads every partition with read_committed and prints
 *       {@code VISIBLE <total> <per partition, comma-separated>} for the records of TXN_ID.
 * </ul>
 */
public final class TxnFailover {
  public static void main(String[] args) {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      String level = System.getenv("INTEROP_LOG_LEVEL");
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", level == null || level.isEmpty() ? "warn" : level);
    }
    int code = 0;
    try {
      List<TopicPartition> tps = new ArrayList<>();
      for (String t : List.of(args[2], args[3])) for (int i = 0; i < Integer.parseInt(args[4]); i++) tps.add(new TopicPartition(t, i));
      switch (args[0]) {
        case "run" -> run(args[1], tps, args[5], Integer.parseInt(args[6]));
        case "verify" -> verify(args[1], tps, args[5], Long.parseLong(args[6]));
        default -> throw new IllegalArgumentException("mode " + args[0]);
      }
    } catch (Throwable t) {
      System.out.println("TXNFAILOVER FAIL " + t);
      t.printStackTrace();
      code = 1;
    }
    System.out.flush();
    Runtime.getRuntime().halt(code);
  }

  static void say(String line) {
    System.out.println(line);
    System.out.flush();
  }

  static void run(String bootstrap, List<TopicPartition> tps, String txnId, int perHalf) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txnId);
    p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "20000");
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "90000");
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "90000");
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      producer.initTransactions();
      say("READY");
      long t0 = System.nanoTime();
      producer.beginTransaction();
      int n = 0;
      List<Future<RecordMetadata>> first = new ArrayList<>();
      for (; n < perHalf; n++) first.add(producer.send(new ProducerRecord<>(tps.get(n % tps.size()).topic(), tps.get(n % tps.size()).partition(), null, txnId + "-" + n)));
      producer.flush();
      int failed = 0;
      String firstError = "-";
      for (Future<RecordMetadata> f : first) {
        try {
          f.get();
        } catch (ExecutionException e) {
          if (failed++ == 0) firstError = String.valueOf(e.getCause()).replace('\n', ' ');
        }
      }
      say("SENT " + (System.nanoTime() - t0) / 1_000_000 + " " + failed + " " + firstError);
      in.readLine();
      for (; n < 2 * perHalf; n++) producer.send(new ProducerRecord<>(tps.get(n % tps.size()).topic(), tps.get(n % tps.size()).partition(), null, txnId + "-" + n));
      say("COMMITTING");
      t0 = System.nanoTime();
      try {
        producer.commitTransaction();
        say("COMMITTED " + (System.nanoTime() - t0) / 1_000_000);
      } catch (Exception e) {
        say("COMMIT-FAILED " + e.toString().replace('\n', ' '));
        try {
          producer.abortTransaction();
          say("ABORTED");
        } catch (Exception e2) {
          say("ABORT-FAILED " + e2.toString().replace('\n', ' '));
        }
      }
    }
  }

  static KafkaConsumer<String, String> consumer(String bootstrap, String isolation) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    return new KafkaConsumer<>(p);
  }

  static void verify(String bootstrap, List<TopicPartition> tps, String txnId, long timeoutMs) throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMs;
    try (KafkaConsumer<String, String> rc = consumer(bootstrap, "read_committed");
        KafkaConsumer<String, String> ru = consumer(bootstrap, "read_uncommitted")) {
      Map<TopicPartition, Long> stable;
      while (true) {
        stable = rc.endOffsets(tps, Duration.ofSeconds(30));
        Map<TopicPartition, Long> high = ru.endOffsets(tps, Duration.ofSeconds(30));
        if (stable.equals(high)) break;
        System.err.println("waiting for open transactions: last stable offsets " + stable + ", high watermarks " + high);
        if (System.currentTimeMillis() > deadline) {
          throw new IllegalStateException("a transaction is still open after " + timeoutMs + " ms: last stable offsets " + stable + ", high watermarks " + high);
        }
        Thread.sleep(250);
      }
      Map<TopicPartition, Long> end = stable;
      rc.assign(tps);
      rc.seekToBeginning(tps);
      Map<TopicPartition, Integer> found = new HashMap<>();
      while (tps.stream().anyMatch(tp -> rc.position(tp, Duration.ofSeconds(30)) < end.get(tp))) {
        for (ConsumerRecord<String, String> r : rc.poll(Duration.ofMillis(200))) {
          if (r.value().startsWith(txnId + "-")) found.merge(new TopicPartition(r.topic(), r.partition()), 1, Integer::sum);
        }
        if (System.currentTimeMillis() > deadline + 60_000) throw new IllegalStateException("read_committed did not reach " + end);
      }
      StringBuilder per = new StringBuilder();
      int total = 0;
      for (TopicPartition tp : tps) {
        int c = found.getOrDefault(tp, 0);
        total += c;
        if (per.length() > 0) per.append(',');
        per.append(c);
      }
      say("VISIBLE " + total + " " + per + " " + end.values());
    }
  }
}
