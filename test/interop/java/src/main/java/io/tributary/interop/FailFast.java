package io.tributary.interop;

import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;

/**
 * Transactional clients must start at once, never hang in a retry loop (as they did when
 * FindCoordinator for a transactional id answered a retriable error).
 *
 * <p>Usage: {@code FailFast HOST:PORT INPUT_TOPIC} (created here). Two checks, each bounded in time:
 * <ol>
 *   <li>a transactional KafkaProducer: initTransactions() and one committed transaction must finish
 *       within the bound (its own max.block.ms is set far above it, so a retry loop would show as a
 *       timeout);
 *   <li>a Kafka Streams application with processing.guarantee=exactly_once_v2 reading INPUT_TOPIC:
 *       it must reach state RUNNING within the bound, without an error.
 * </ol>
 * Prints {@code FAILFAST <check> <ms> <outcome>} per check and {@code FAILFAST OK}, exit 0; or
 * {@code FAILFAST FAIL ...}, exit 1.
 */
public final class FailFast {
  static final long BOUND_MS = 45_000;

  public static void main(String[] args) throws Exception {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }
    String bootstrap = args[0];
    String topic = args[1];
    Properties a = new Properties();
    a.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(a)) {
      admin.createTopics(java.util.List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }
    boolean ok = producer(bootstrap, topic) & streams(bootstrap, topic);
    System.out.println(ok ? "FAILFAST OK" : "FAILFAST FAIL");
    System.out.flush();
    Runtime.getRuntime().halt(ok ? 0 : 1);
  }

  static boolean producer(String bootstrap, String topic) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "failfast-tx");
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "600000");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    long t0 = System.nanoTime();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread t = new Thread(() -> {
      try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
        producer.initTransactions();
        producer.beginTransaction();
        producer.send(new ProducerRecord<>(topic, "k", "v")).get();
        producer.commitTransaction();
      } catch (Throwable e) {
        failure.set(e);
      }
    });
    t.setDaemon(true);
    t.start();
    try {
      t.join(BOUND_MS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    long ms = (System.nanoTime() - t0) / 1_000_000;
    Throwable e = failure.get();
    if (t.isAlive() || e != null) {
      System.out.println("FAILFAST FAIL producer " + (t.isAlive() ? "still blocked after " + ms + " ms" : describe(e)));
      return false;
    }
    System.out.println("FAILFAST producer " + ms + " committed");
    return true;
  }

  static boolean streams(String bootstrap, String topic) throws InterruptedException {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "failfast-streams");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class.getName());
    p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class.getName());
    p.put(StreamsConfig.STATE_DIR_CONFIG, System.getProperty("java.io.tmpdir") + "/failfast-streams-" + ProcessHandle.current().pid());
    p.put(StreamsConfig.producerPrefix(ProducerConfig.MAX_BLOCK_MS_CONFIG), "600000");
    StreamsBuilder b = new StreamsBuilder();
    b.stream(topic).to(topic + "-out");
    KafkaStreams streams = new KafkaStreams(b.build(), p);
    CountDownLatch stopped = new CountDownLatch(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    streams.setUncaughtExceptionHandler(e -> {
      failure.compareAndSet(null, e);
      stopped.countDown();
      return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    });
    AtomicReference<KafkaStreams.State> reached = new AtomicReference<>();
    streams.setStateListener((now, before) -> {
      if (now == KafkaStreams.State.RUNNING || now == KafkaStreams.State.ERROR || now == KafkaStreams.State.PENDING_ERROR) {
        reached.compareAndSet(null, now);
        stopped.countDown();
      }
    });
    long t0 = System.nanoTime();
    streams.start();
    boolean done = stopped.await(BOUND_MS, TimeUnit.MILLISECONDS);
    long ms = (System.nanoTime() - t0) / 1_000_000;
    streams.close(Duration.ofSeconds(10));
    if (!done) {
      System.out.println("FAILFAST FAIL streams still " + streams.state() + " after " + ms + " ms");
      return false;
    }
    Throwable e = failure.get();
    if (e != null || reached.get() != KafkaStreams.State.RUNNING) {
      System.out.println("FAILFAST FAIL streams " + (e == null ? "state " + reached.get() : describe(e)));
      return false;
    }
    System.out.println("FAILFAST streams " + ms + " RUNNING");
    return true;
  }

  static String describe(Throwable e) {
    StringBuilder s = new StringBuilder();
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (s.length() > 0) s.append(" <- ");
      s.append(c.getClass().getSimpleName()).append(": ").append(c.getMessage());
      if (c.getCause() == c) break;
    }
    return s.toString().replace('\n', ' ');
  }
}
