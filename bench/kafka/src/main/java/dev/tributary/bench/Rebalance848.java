package dev.tributary.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * KIP-848 group start-up with Kafka's own Java client: MEMBERS KafkaConsumers with
 * group.protocol=consumer (one thread each, one JVM) subscribe together to TOPIC as a new group and
 * poll; measures, from just before the consumers are created, the time until each has its first
 * record (the broker-side assignor hands out the partitions; no JoinGroup/SyncGroup round). Offsets
 * are not committed, so a partition moved to a later member is read again from the earliest offset
 * and that member gets records too. Before the clock starts, every partition is given 100 records
 * of 100 bytes (untimed), so that whichever partitions a member is assigned hold records.
 *
 *   java -cp 'target/lib/*:target/classes' dev.tributary.bench.Rebalance848 BOOTSTRAP TOPIC GROUP MEMBERS
 *
 * Prints one JSON line: {"each_ms":[ascending],"all_ms":..} (all_ms: the last member's first record).
 * Exits 1 if a member has no record within 120 s.
 */
public final class Rebalance848 {
  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: Rebalance848 BOOTSTRAP TOPIC GROUP MEMBERS");
      System.exit(2);
    }
    String bootstrap = args[0];
    String topic = args[1];
    String group = args[2];
    int members = Integer.parseInt(args[3]);
    Properties pp = new Properties();
    pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(pp)) {
      for (PartitionInfo pi : producer.partitionsFor(topic))
        for (int i = 0; i < 100; i++) producer.send(new ProducerRecord<>(topic, pi.partition(), null, new byte[100]));
      producer.flush();
    }
    double[] first = new double[members];
    CountDownLatch all = new CountDownLatch(members);
    CountDownLatch stop = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    long t0 = System.nanoTime();
    for (int m = 0; m < members; m++) {
      final int id = m;
      Thread t = new Thread(() -> {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
          consumer.subscribe(List.of(topic));
          boolean got = false;
          while (stop.getCount() > 0) {
            int n = consumer.poll(Duration.ofMillis(50)).count();
            if (n > 0 && !got) {
              got = true;
              first[id] = (System.nanoTime() - t0) / 1e6;
              all.countDown();
            }
          }
        }
      }, "member-" + m);
      t.start();
      threads.add(t);
    }
    boolean ok = all.await(120, TimeUnit.SECONDS);
    stop.countDown();
    for (Thread t : threads) t.join();
    if (!ok) {
      System.err.println("not every member had a record within 120 s");
      System.exit(1);
    }
    double[] sorted = first.clone();
    java.util.Arrays.sort(sorted);
    StringBuilder each = new StringBuilder();
    for (int i = 0; i < members; i++) each.append(i == 0 ? "" : ",").append(String.format("%.1f", sorted[i]));
    System.out.printf("{\"each_ms\":[%s],\"all_ms\":%.1f}%n", each, sorted[members - 1]);
  }
}
