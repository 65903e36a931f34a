package io.tributary.interop;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;

import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A member of the chaos workload's share group (test/chaos/workload.ts) through the Java 4.4
 * client: KafkaShareConsumer in explicit acknowledgement mode with an AcknowledgementCommitCallback.
 * Usage: {@code ShareChaosMember BOOTSTRAP GROUP TOPIC SEED}. Prints {@code READY} once subscribed;
 * for each record handed to it, before acknowledging it,
 * {@code D partition offset deliveryCount kind value} (kind accept, release or reject, drawn from
 * the seed as the Node members draw theirs: a poison record, chosen by a hash of its value shared
 * with workload.ts, is released every time); for each offset the callback reports,
 * {@code A partition offset ok} or {@code A partition offset error ExceptionClass}. Stops on a
 * {@code stop} line on stdin (close() sends the acknowledgements made) and prints {@code CLOSED};
 * a client error prints {@code MEMBER-ERROR ...} and exits 1.
 */
public final class ShareChaosMember {
  /** Below this draw RELEASE, below the next REJECT, else ACCEPT (workload.ts has the same). */
  private static final double RELEASE = 0.08;
  private static final double REJECT = 0.12;

  /** FNV-1a of the UTF-8 bytes of seed:value, as workload.ts's sharePoison computes it. */
  static boolean poison(long seed, String value) {
    int h = 0x811c9dc5;
    for (byte b : (seed + ":" + value).getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= 0x01000193;
    }
    return Integer.toUnsignedLong(h) % 50 == 0;
  }

  public static void main(String[] args) {
    long seed = Long.parseLong(args[3]);
    Random random = new Random(seed);
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, args[1]);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "java-share-chaos");
    p.put(ConsumerConfig.SHARE_ACKNOWLEDGEMENT_MODE_CONFIG, "explicit");
    p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, "8000");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    StringBuilder acks = new StringBuilder();
    try (KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(p)) {
      c.setAcknowledgementCommitCallback((Map<TopicIdPartition, Set<Long>> offsets, Exception e) -> {
        synchronized (acks) {
          for (Map.Entry<TopicIdPartition, Set<Long>> en : offsets.entrySet()) {
            for (long o : en.getValue()) {
              acks.append("A ").append(en.getKey().partition()).append(' ').append(o);
              if (e == null) acks.append(" ok\n");
              else acks.append(" error ").append(e.getClass().getSimpleName()).append('\n');
            }
          }
        }
      });
      c.subscribe(List.of(args[2]));
      System.out.println("READY");
      System.out.flush();
      BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      while (true) {
        ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(300));
        StringBuilder out = new StringBuilder();
        synchronized (acks) {
          out.append(acks);
          acks.setLength(0);
        }
        for (ConsumerRecord<String, String> r : recs) {
          AcknowledgeType kind;
          if (poison(seed, r.value())) kind = AcknowledgeType.RELEASE;
          else {
            double d = random.nextDouble();
            kind = d < RELEASE ? AcknowledgeType.RELEASE : d < REJECT ? AcknowledgeType.REJECT : AcknowledgeType.ACCEPT;
          }
          out.append("D ").append(r.partition()).append(' ').append(r.offset()).append(' ')
              .append(r.deliveryCount().orElse((short) -1)).append(' ').append(kind.toString().toLowerCase())
              .append(' ').append(r.value()).append('\n');
          c.acknowledge(r, kind);
        }
        System.out.print(out);
        System.out.flush();
        if (stdin.ready() && "stop".equals(stdin.readLine())) break;
      }
    } catch (Exception e) {
      synchronized (acks) {
        System.out.print(acks);
      }
      System.out.println("MEMBER-ERROR " + e);
      System.out.flush();
      System.exit(1);
    }
    synchronized (acks) {
      System.out.print(acks);
    }
    System.out.println("CLOSED");
    System.out.flush();
  }
}
