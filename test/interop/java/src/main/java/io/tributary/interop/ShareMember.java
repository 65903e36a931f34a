package io.tributary.interop;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * One member of a KIP-932 share group through the Java 4.4 client (KafkaShareConsumer, explicit
 * acknowledgement), for tests that put it in a group beside Tributary's Node share consumer.
 * Usage: {@code ShareMember HOST:PORT GROUP TOPIC}. Prints {@code READY} once subscribed, then
 * {@code REC offset deliveryCount value} per record, each acknowledged ACCEPT and committed after
 * its poll; stops (closing the consumer) on a {@code stop} line on stdin and prints {@code CLOSED}.
 * A client error prints {@code MEMBER-ERROR ...} and exits 1.
 */
public final class ShareMember {
  public static void main(String[] args) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, args[1]);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "java-share-member");
    p.put(ConsumerConfig.SHARE_ACKNOWLEDGEMENT_MODE_CONFIG, "explicit");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    try (KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(p)) {
      c.subscribe(List.of(args[2]));
      System.out.println("READY");
      System.out.flush();
      BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      while (true) {
        ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(200));
        StringBuilder out = new StringBuilder();
        for (ConsumerRecord<String, String> r : recs) {
          out.append("REC ").append(r.offset()).append(' ').append(r.deliveryCount().orElse((short) -1)).append(' ').append(r.value()).append('\n');
          c.acknowledge(r, AcknowledgeType.ACCEPT);
        }
        if (!recs.isEmpty()) c.commitSync();
        System.out.print(out);
        System.out.flush();
        if (stdin.ready() && "stop".equals(stdin.readLine())) break;
      }
    } catch (Exception e) {
      System.out.println("MEMBER-ERROR " + e);
      System.out.flush();
      System.exit(1);
    }
    System.out.println("CLOSED");
    System.out.flush();
  }
}
