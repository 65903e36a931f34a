package io.tributary.interop;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Produced;

/**
 * A Kafka Streams word count with processing.guarantee=exactly_once_v2, and the two tools around it
 * that test/integration/txn-streams.test.ts uses to check it survives a SIGKILL.
 *
 * <ul>
 *   <li>{@code WordCount produce HOST:PORT INPUT OUTPUT FROM TO RF}: creates INPUT and OUTPUT (3
 *       partitions) unless they exist and writes lines FROM..TO-1 of the fixed text (line i is
 *       {@link #line(int)}) to INPUT.
 *   <li>{@code WordCount run HOST:PORT APP_ID INPUT OUTPUT STATE_DIR DELAY_MS RF}: the application:
 *       lines → words → count per word (state store without cache, so every increment is sent) →
 *       OUTPUT (word, count as a long). It sleeps DELAY_MS per line so that a test can kill it in the
 *       middle; prints {@code STATE <state>} on each change and {@code PROCESSED <n>} every 100 lines;
 *       a line on stdin (or its end) closes it cleanly.
 *   <li>{@code WordCount verify HOST:PORT OUTPUT LINES TIMEOUT_MS}: reads OUTPUT with read_committed
 *       until the last count of every word equals its count in lines 0..LINES-1 (or the timeout),
 *       then checks that each word's counts are exactly 1, 2, ..., n in order: no increment lost or
 *       applied twice. Also counts what read_uncommitted shows beyond that (the output of aborted
 *       transactions). Prints {@code WORDCOUNT OK <words> <records> <aborted extra>} and exits 0, or
 *       {@code WORDCOUNT FAIL ...} and 1.
 * </ul>
 */
public final class WordCount {
  static final String[] WORDS = {
    "alder", "birch", "cedar", "dogwood", "elm", "fir", "ginkgo", "hazel", "ilex", "juniper", "kapok", "larch", "maple",
    "nutmeg", "oak", "pine", "quince", "rowan", "spruce", "teak", "ulmus", "viburnum", "willow", "xylosma", "yew",
  };

  /** Line i of the input: one to five words, a fixed function of i. */
  static String line(int i) {
    StringBuilder s = new StringBuilder();
    for (int j = 0; j <= i % 5; j++) {
      if (j > 0) s.append(' ');
      s.append(WORDS[(i * 7 + j * 3) % WORDS.length]);
    }
    return s.toString();
  }

  static Map<String, Long> expected(int lines) {
    Map<String, Long> m = new TreeMap<>();
    for (int i = 0; i < lines; i++) for (String w : line(i).split(" ")) m.merge(w, 1L, Long::sum);
    return m;
  }

  public static void main(String[] args) {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      String level = System.getenv("INTEROP_LOG_LEVEL");
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", level == null || level.isEmpty() ? "warn" : level);
    }
    int code;
    try {
      switch (args.length > 0 ? args[0] : "") {
        case "produce" -> produce(args[1], args[2], args[3], Integer.parseInt(args[4]), Integer.parseInt(args[5]), Short.parseShort(args[6]));
        case "run" -> run(args[1], args[2], args[3], args[4], args[5], Long.parseLong(args[6]), args[7]);
        case "verify" -> verify(args[1], args[2], Integer.parseInt(args[3]), Long.parseLong(args[4]));
        default -> {
          System.err.println("usage: WordCount produce|run|verify ... (see the class comment)");
          Runtime.getRuntime().halt(2);
        }
      }
      code = 0;
    } catch (Throwable t) {
      System.out.println("WORDCOUNT FAIL " + t);
      t.printStackTrace();
      code = 1;
    }
    System.out.flush();
    Runtime.getRuntime().halt(code);
  }

  static void produce(String bootstrap, String input, String output, int from, int to, short rf) throws Exception {
    Properties a = new Properties();
    a.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(a)) {
      for (String t : List.of(input, output)) {
        try {
          admin.createTopics(List.of(new NewTopic(t, 3, rf))).all().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException)) throw e;
        }
      }
    }
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      for (int i = from; i < to; i++) producer.send(new ProducerRecord<>(input, null, "line-" + i, line(i)));
      producer.flush();
    }
    System.out.println("WORDCOUNT produced " + (to - from));
  }

  static void run(String bootstrap, String appId, String input, String output, String stateDir, long delayMs, String rf) throws Exception {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
    p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, rf);
    p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, "0");
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "100");
    p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class.getName());
    p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class.getName());
    // A killed instance's open transaction is aborted by its successor's initTransactions (the
    // process id, hence the transactional id, is kept in the state directory); the timeout only
    // bounds the wait should that not happen. The session timeout lets the group drop the killed
    // member quickly.
    p.put(StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG), "10000");
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), "6000");
    // Each output is sent at once: a kill then leaves records of an open transaction in the log.
    p.put(StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG), "0");
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), "1000");
    AtomicLong processed = new AtomicLong();
    StreamsBuilder b = new StreamsBuilder();
    b.<String, String>stream(input)
        .peek((k, v) -> {
          long n = processed.incrementAndGet();
          if (n % 100 == 0) {
            System.out.println("PROCESSED " + n);
            System.out.flush();
          }
          if (delayMs > 0) {
            try {
              Thread.sleep(delayMs);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        })
        .flatMapValues(v -> Arrays.asList(v.split(" ")))
        .groupBy((k, w) -> w, Grouped.with(Serdes.String(), Serdes.String()))
        .count()
        .toStream()
        .to(output, Produced.with(Serdes.String(), Serdes.Long()));
    KafkaStreams streams = new KafkaStreams(b.build(), p);
    streams.setStateListener((now, before) -> {
      System.out.println("STATE " + now);
      System.out.flush();
    });
    streams.setUncaughtExceptionHandler(e -> {
      System.out.println("WORDCOUNT uncaught " + e);
      e.printStackTrace();
      System.out.flush();
      return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    });
    streams.start();
    try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      in.readLine();
    }
    streams.close(Duration.ofSeconds(30));
    System.out.println("WORDCOUNT closed after " + processed.get() + " lines");
  }

  static void verify(String bootstrap, String output, int lines, long timeoutMs) throws Exception {
    Map<String, Long> want = expected(lines);
    Map<String, List<Long>> committed = readCounts(bootstrap, output, "read_committed", want, timeoutMs);
    List<String> problems = new ArrayList<>();
    long records = 0;
    for (Map.Entry<String, Long> e : want.entrySet()) {
      List<Long> got = committed.getOrDefault(e.getKey(), List.of());
      records += got.size();
      long last = got.isEmpty() ? 0 : got.get(got.size() - 1);
      if (last != e.getValue()) problems.add(e.getKey() + ": final count " + last + ", want " + e.getValue());
      for (int i = 0; i < got.size(); i++) {
        if (got.get(i) != i + 1) {
          problems.add(e.getKey() + ": count #" + (i + 1) + " is " + got.get(i) + " (counts " + around(got, i) + ")");
          break;
        }
      }
    }
    for (String w : committed.keySet()) if (!want.containsKey(w)) problems.add("unexpected word " + w);
    if (!problems.isEmpty()) {
      throw new IllegalStateException(problems.size() + " words wrong: " + String.join("; ", problems.subList(0, Math.min(8, problems.size()))));
    }
    long uncommitted = 0;
    for (List<Long> l : readCounts(bootstrap, output, "read_uncommitted", null, 0).values()) uncommitted += l.size();
    System.out.println("WORDCOUNT OK " + want.size() + " " + records + " " + (uncommitted - records));
  }

  static String around(List<Long> l, int i) {
    return l.subList(Math.max(0, i - 3), Math.min(l.size(), i + 4)).toString();
  }

  /**
   * Every (word, count) of OUTPUT in log order per word. With want: reads on until every word's last
   * count is as wanted or timeoutMs passes; without: reads once up to the end offsets.
   */
  static Map<String, List<Long>> readCounts(String bootstrap, String output, String isolation, Map<String, Long> want, long timeoutMs) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class.getName());
    Map<String, List<Long>> counts = new HashMap<>();
    long deadline = System.currentTimeMillis() + timeoutMs;
    try (KafkaConsumer<String, Long> c = new KafkaConsumer<>(p)) {
      List<TopicPartition> tps = new ArrayList<>();
      for (PartitionInfo pi : c.partitionsFor(output, Duration.ofSeconds(30))) tps.add(new TopicPartition(output, pi.partition()));
      c.assign(tps);
      c.seekToBeginning(tps);
      while (true) {
        Map<TopicPartition, Long> end = c.endOffsets(tps, Duration.ofSeconds(30));
        while (tps.stream().anyMatch(tp -> c.position(tp, Duration.ofSeconds(30)) < end.get(tp))) {
          for (ConsumerRecord<String, Long> r : c.poll(Duration.ofMillis(200))) counts.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r.value());
          if (System.currentTimeMillis() > deadline + 60_000) throw new IllegalStateException(isolation + " read did not reach " + end);
        }
        if (want == null || System.currentTimeMillis() > deadline || done(counts, want)) return counts;
        try {
          Thread.sleep(250);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return counts;
        }
      }
    }
  }

  static boolean done(Map<String, List<Long>> counts, Map<String, Long> want) {
    for (Map.Entry<String, Long> e : want.entrySet()) {
      List<Long> got = counts.get(e.getKey());
      if (got == null || got.isEmpty() || !got.get(got.size() - 1).equals(e.getValue())) return false;
    }
    return true;
  }
}
