package io.tributary.interop;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The default (idempotent) producer at acks=all writing while the test kills the partition leader
 * with kill -9 and restarts it (test/integration/cluster-idempotent-java.test.ts). The producer's
 * settings are the defaults but for acks, set to all explicitly: its retries after a kill are what
 * the brokers must de-duplicate.
 *
 * <p>Usage: {@code KillProducer HOST:PORT[,...] TOPIC COUNT}. Sends up to COUNT records with the
 * distinct values {@code k-0}, {@code k-1}, ... to partition 0, at most about one per millisecond
 * and at most 500 unanswered at a time, so that it is still sending when the test kills a broker; it
 * stops sending earlier when a line (or the end of input) arrives on stdin, which is how the test
 * ends it once its kills are done. Then it waits for every send to complete or fail.
 *
 * <p>Prints one line per acknowledged record, {@code ACK <value> <partition> <offset>}, one per
 * failed record, {@code FAIL <value> <exception>}, then {@code DONE <sent> <acked> <failed>}, and
 * exits 0; it exits 1 on any other error.
 */
public final class KillProducer {
  static final int IN_FLIGHT = 500;

  public static void main(String[] args) {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      String level = System.getenv("INTEROP_LOG_LEVEL");
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", level == null || level.isEmpty() ? "warn" : level);
    }
    if (args.length != 3) {
      System.err.println("usage: KillProducer HOST:PORT[,...] TOPIC COUNT");
      System.exit(2);
    }
    try {
      run(args[0], args[1], Integer.parseInt(args[2]));
    } catch (Throwable t) {
      System.out.println("KILLPRODUCER FAIL " + t);
      t.printStackTrace();
      System.exit(1);
    }
    System.exit(0);
  }

  static void run(String bootstrap, String topic, int count) throws Exception {
    AtomicInteger stop = new AtomicInteger();
    Thread stdin = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
        in.readLine();
      } catch (Exception e) {
        // the end of input stops the sends as well
      }
      stop.set(1);
    });
    stdin.setDaemon(true);
    stdin.start();

    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    Semaphore window = new Semaphore(IN_FLIGHT);
    AtomicInteger acked = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    int sent = 0;
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      while (sent < count && stop.get() == 0) {
        window.acquire();
        String value = "k-" + sent;
        producer.send(new ProducerRecord<>(topic, 0, null, value), (md, err) -> {
          if (err == null) {
            acked.incrementAndGet();
            System.out.println("ACK " + value + " " + md.partition() + " " + md.offset());
          } else {
            failed.incrementAndGet();
            System.out.println("FAIL " + value + " " + err);
          }
          window.release();
        });
        sent++;
        Thread.sleep(1);
      }
      producer.flush();
    }
    System.out.println("DONE " + sent + " " + acked.get() + " " + failed.get());
  }
}
