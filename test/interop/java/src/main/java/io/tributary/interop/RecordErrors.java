package io.tributary.interop;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * KIP-467 record errors as the Java producer (Produce v13 by topic id) surfaces them.
 *
 * <p>Usage: {@code RecordErrors HOST:PORT TOPIC_PREFIX}. Three records go in one batch to a compacted
 * topic, the middle one without a key; then three to a topic with message.timestamp.before/after.max.ms
 * of one hour, the first and last two hours off. With record errors in the answer the producer fails
 * each named record with an InvalidRecordException carrying its own message and the other records of
 * the batch with "part of a batch which had one more more invalid records"; without them every record
 * would get the partition's error. A keyed record sent afterwards is stored.
 *
 * <p>Prints {@code RECORD ERRORS OK} and exits 0 on success, {@code RECORD ERRORS FAIL ...} and 1 otherwise.
 */
public final class RecordErrors {
  static final long TIMEOUT_S = 60;
  static final long HOUR = 3_600_000L;
  static final String PART_OF_BATCH = "part of a batch which had one more more invalid records";

  public static void main(String[] args) {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      String level = System.getenv("INTEROP_LOG_LEVEL");
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", level == null || level.isEmpty() ? "warn" : level);
    }
    if (args.length != 2) {
      System.err.println("usage: RecordErrors HOST:PORT TOPIC_PREFIX");
      System.exit(2);
    }
    try {
      run(args[0], args[1]);
    } catch (Throwable t) {
      System.out.println("RECORD ERRORS FAIL " + Interop.describe(t));
      System.out.flush();
      t.printStackTrace(System.err);
      System.exit(1);
      return;
    }
    System.out.println("RECORD ERRORS OK");
    System.out.flush();
    System.exit(0);
  }

  /** The cause of the failed send, or a Mismatch if it succeeded. */
  static Throwable failure(Future<RecordMetadata> f, String what) throws Exception {
    try {
      RecordMetadata md = f.get(TIMEOUT_S, TimeUnit.SECONDS);
      throw new Interop.Mismatch(what + ": expected a failure, was stored at offset " + md.offset());
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }

  static void expectRecordError(Future<RecordMetadata> f, String what, String messagePart) throws Exception {
    Throwable c = failure(f, what);
    Interop.check(c instanceof InvalidRecordException, what + ": expected InvalidRecordException, got " + Interop.describe(c));
    Interop.check(c.getMessage() != null && c.getMessage().contains(messagePart), what + ": message lacks '" + messagePart + "': " + c.getMessage());
  }

  static void expectPartOfBatch(Future<RecordMetadata> f, String what) throws Exception {
    Throwable c = failure(f, what);
    Interop.check(c.getClass() == KafkaException.class && c.getMessage().contains(PART_OF_BATCH),
        what + ": expected KafkaException '" + PART_OF_BATCH + "', got " + Interop.describe(c));
  }

  static void run(String bootstrap, String prefix) throws Exception {
    String compacted = prefix + "-compacted";
    String bounded = prefix + "-bounded";
    Properties adminProps = new Properties();
    adminProps.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(adminProps)) {
      admin.createTopics(List.of(
          new NewTopic(compacted, 1, (short) 1).configs(Map.of("cleanup.policy", "compact")),
          new NewTopic(bounded, 1, (short) 1).configs(Map.of(
              "message.timestamp.before.max.ms", Long.toString(HOUR), "message.timestamp.after.max.ms", Long.toString(HOUR)))))
          .all().get(TIMEOUT_S, TimeUnit.SECONDS);
    }

    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    // One batch per partition: a long linger, then flush(). Not idempotent, so a refused batch does
    // not make the producer bump its epoch.
    props.put(ProducerConfig.LINGER_MS_CONFIG, "60000");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.RETRIES_CONFIG, "0");
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
      List<Future<RecordMetadata>> sent = new ArrayList<>();
      sent.add(producer.send(new ProducerRecord<>(compacted, 0, "a", "1")));
      sent.add(producer.send(new ProducerRecord<>(compacted, 0, null, "no key")));
      sent.add(producer.send(new ProducerRecord<>(compacted, 0, "c", "3")));
      producer.flush();
      expectPartOfBatch(sent.get(0), "compacted record 0 (keyed)");
      expectRecordError(sent.get(1), "compacted record 1 (no key)",
          "Compacted topic cannot accept message without key in topic partition " + compacted + "-0");
      expectPartOfBatch(sent.get(2), "compacted record 2 (keyed)");

      long now = System.currentTimeMillis();
      List<Future<RecordMetadata>> timed = new ArrayList<>();
      timed.add(producer.send(new ProducerRecord<>(bounded, 0, now - 2 * HOUR, "a", "old")));
      timed.add(producer.send(new ProducerRecord<>(bounded, 0, now, "b", "now")));
      timed.add(producer.send(new ProducerRecord<>(bounded, 0, now + 2 * HOUR, "c", "future")));
      producer.flush();
      // Two record errors: the Java producer makes each an InvalidRecordException with its message.
      expectRecordError(timed.get(0), "bounded record 0 (2 h old)", "Timestamp " + (now - 2 * HOUR) + " of message with offset 0 is out of range");
      expectPartOfBatch(timed.get(1), "bounded record 1 (now)");
      expectRecordError(timed.get(2), "bounded record 2 (2 h ahead)", "Timestamp " + (now + 2 * HOUR) + " of message with offset 2 is out of range");

      Future<RecordMetadata> kept = producer.send(new ProducerRecord<>(compacted, 0, "k", "kept"));
      producer.flush();
      RecordMetadata ok = kept.get(TIMEOUT_S, TimeUnit.SECONDS);
      Interop.check(ok.offset() == 0, "the keyed record after the refused batch is the first stored, got offset " + ok.offset());
    }
  }
}
