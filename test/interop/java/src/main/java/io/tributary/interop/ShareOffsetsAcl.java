package io.tributary.interop;

import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterShareGroupOffsetsResult;
import org.apache.kafka.clients.admin.DeleteShareGroupOffsetsResult;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;

/**
 * The Java 4.4 Admin's share group offsets calls as a SASL/PLAIN user that may READ one topic and
 * not the other (test/integration/acl-share-offsets-java.test.ts): alterShareGroupOffsets and
 * deleteShareGroupOffsets of both topics, and what each topic's result future says.
 * Usage: {@code ShareOffsetsAcl HOST:PORT USER PASSWORD GROUP READABLE_TOPIC REFUSED_TOPIC}.
 * Prints one line {@code SHARE-OFFSETS-ACL alter <readable> <refused> delete <readable> <refused>},
 * each result {@code ok} or the simple name of the exception, and exits 0 (2 on bad usage).
 */
public final class ShareOffsetsAcl {
  static final long TIMEOUT_S = 60;

  public static void main(String[] args) throws Exception {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      String level = System.getenv("INTEROP_LOG_LEVEL");
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", level == null || level.isEmpty() ? "warn" : level);
    }
    if (args.length != 6) {
      System.err.println("usage: ShareOffsetsAcl HOST:PORT USER PASSWORD GROUP READABLE_TOPIC REFUSED_TOPIC");
      System.exit(2);
    }
    String group = args[3];
    String readable = args[4];
    String refused = args[5];
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
    p.put("security.protocol", "SASL_PLAINTEXT");
    p.put("sasl.mechanism", "PLAIN");
    p.put("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
        + args[1] + "\" password=\"" + args[2] + "\";");
    try (Admin admin = Admin.create(p)) {
      TopicPartition r0 = new TopicPartition(readable, 0);
      TopicPartition x0 = new TopicPartition(refused, 0);
      AlterShareGroupOffsetsResult alter = admin.alterShareGroupOffsets(group, Map.of(r0, 0L, x0, 0L));
      String alterReadable = outcome(alter.partitionResult(r0));
      String alterRefused = outcome(alter.partitionResult(x0));
      DeleteShareGroupOffsetsResult delete = admin.deleteShareGroupOffsets(group, Set.of(readable, refused));
      String deleteReadable = outcome(delete.topicResult(readable));
      String deleteRefused = outcome(delete.topicResult(refused));
      System.out.println("SHARE-OFFSETS-ACL alter " + alterReadable + " " + alterRefused + " delete " + deleteReadable + " " + deleteRefused);
    }
  }

  /** "ok", or the simple class name of the future's failure. */
  static String outcome(KafkaFuture<Void> f) throws InterruptedException {
    try {
      f.get(TIMEOUT_S, TimeUnit.SECONDS);
      return "ok";
    } catch (ExecutionException e) {
      return e.getCause().getClass().getSimpleName();
    } catch (java.util.concurrent.TimeoutException e) {
      return "timeout";
    }
  }
}
