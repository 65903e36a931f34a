package dev.tributary.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * KIP-932 share-group consumption with Kafka's own Java client: CONSUMERS KafkaShareConsumers
 * (one thread each, one JVM) of a new share group drain RECORDS records from TOPIC. The group is
 * first given share.auto.offset.reset=earliest (IncrementalAlterConfigs on the GROUP resource, as
 * kafka-configs does), since a share group starts at the latest offset otherwise. Acknowledgement
 * is implicit (the default mode: each poll's records are accepted with the next fetch); close()
 * commits the last ones. Nothing is checked here; the integration tests do that.
 *
 *   java -cp 'target/lib/*:target/classes' dev.tributary.bench.ShareConsume BOOTSTRAP TOPIC GROUP RECORDS CONSUMERS
 *
 * Prints one JSON line: {"records":..,"ms":..,"fetch_ms":..,"first_record_ms":..,"per_consumer":[..]}
 * — ms from before the consumers are created to the last record, fetch_ms from the first record
 * to the last.
 */
public final class ShareConsume {
  public static void main(String[] args) throws Exception {
    if (args.length != 5) {
      System.err.println("usage: ShareConsume BOOTSTRAP TOPIC GROUP RECORDS CONSUMERS");
      System.exit(2);
    }
    String bootstrap = args[0];
    String topic = args[1];
    String group = args[2];
    long records = Long.parseLong(args[3]);
    int consumers = Integer.parseInt(args[4]);

    Properties ap = new Properties();
    ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(ap)) {
      AlterConfigOp op = new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET);
      admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), List.of(op))).all().get();
    }

    AtomicLong total = new AtomicLong();
    AtomicLong firstAt = new AtomicLong(0);
    AtomicLong lastAt = new AtomicLong(0);
    AtomicBoolean stop = new AtomicBoolean(false);
    long[] perConsumer = new long[consumers];
    List<Thread> threads = new ArrayList<>();
    long t0 = System.nanoTime();
    for (int c = 0; c < consumers; c++) {
      final int id = c;
      Thread t = new Thread(() -> {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, group + "-" + id);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        try (KafkaShareConsumer<byte[], byte[]> consumer = new KafkaShareConsumer<>(p)) {
          consumer.subscribe(List.of(topic));
          while (!stop.get()) {
            ConsumerRecords<byte[], byte[]> recs = consumer.poll(Duration.ofMillis(100));
            int n = recs.count();
            if (n == 0) continue;
            long now = System.nanoTime();
            firstAt.compareAndSet(0, now);
            perConsumer[id] += n;
            if (total.addAndGet(n) >= records) {
              lastAt.compareAndSet(0, now);
              stop.set(true);
            }
          }
        }
      }, "share-consumer-" + c);
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) t.join();
    StringBuilder per = new StringBuilder();
    for (int c = 0; c < consumers; c++) per.append(c == 0 ? "" : ",").append(perConsumer[c]);
    System.out.printf("{\"records\":%d,\"ms\":%.1f,\"fetch_ms\":%.1f,\"first_record_ms\":%.1f,\"per_consumer\":[%s]}%n",
        total.get(), (lastAt.get() - t0) / 1e6, (lastAt.get() - firstAt.get()) / 1e6, (firstAt.get() - t0) / 1e6, per);
  }
}
