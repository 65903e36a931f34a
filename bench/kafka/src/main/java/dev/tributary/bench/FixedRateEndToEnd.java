package dev.tributary.bench;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * End-to-end latency at a fixed rate, with Kafka's own Java clients: a producer sends RECORDS
 * records of SIZE bytes at RATE records/s (open loop: each record has a due time on a fixed
 * schedule, whatever the broker does), each carrying System.nanoTime() of its send() call; a
 * consumer in the same JVM (assigned all partitions, positioned at the end before the first send)
 * records now - sent for every record as poll() returns it. Kafka's EndToEndLatency tool only
 * measures one record in flight at a time, so it cannot hold a rate; this one can.
 *
 *   java -cp 'target/lib/*:target/classes' dev.tributary.bench.FixedRateEndToEnd \
 *       BOOTSTRAP TOPIC RECORDS RATE SIZE ACKS [WARMUP_RECORDS]
 *
 * The first WARMUP_RECORDS (default: one second's worth) are left out of the statistics. Prints
 * one JSON line: {"records":..,"received":..,"rate":..,"p50_ms":..,"p95_ms":..,"p99_ms":..,
 * "p999_ms":..,"max_ms":..,"avg_ms":..}.
 */
public final class FixedRateEndToEnd {
  public static void main(String[] args) throws Exception {
    if (args.length < 6) {
      System.err.println("usage: FixedRateEndToEnd BOOTSTRAP TOPIC RECORDS RATE SIZE ACKS [WARMUP_RECORDS]");
      System.exit(2);
    }
    String bootstrap = args[0];
    String topic = args[1];
    int records = Integer.parseInt(args[2]);
    double rate = Double.parseDouble(args[3]);
    int size = Math.max(12, Integer.parseInt(args[4]));
    String acks = args[5];
    int warmup = args.length > 6 ? Integer.parseInt(args[6]) : (int) Math.min(records / 4, rate);

    Properties cp = new Properties();
    cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    cp.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, "1");
    cp.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "10000");
    KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(cp);
    List<TopicPartition> tps = new ArrayList<>();
    for (PartitionInfo p : consumer.partitionsFor(topic, Duration.ofSeconds(60))) tps.add(new TopicPartition(topic, p.partition()));
    consumer.assign(tps);
    consumer.seekToEnd(tps);
    for (TopicPartition tp : tps) consumer.position(tp, Duration.ofSeconds(60)); // resolve now, before any send

    Properties pp = new Properties();
    pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    pp.put(ProducerConfig.ACKS_CONFIG, acks);
    pp.put(ProducerConfig.LINGER_MS_CONFIG, "0");
    KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(pp);
    producer.partitionsFor(topic); // metadata before the clock starts

    long[] latNs = new long[records];
    AtomicLong received = new AtomicLong();
    AtomicBoolean producing = new AtomicBoolean(true);
    AtomicLong producerDoneAt = new AtomicLong();
    Thread reader = new Thread(() -> {
      int n = 0;
      while (n < records) {
        ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(100));
        long now = System.nanoTime();
        for (ConsumerRecord<byte[], byte[]> r : batch) {
          long sent = ByteBuffer.wrap(r.value()).getLong(0);
          int seq = ByteBuffer.wrap(r.value()).getInt(8);
          if (seq >= 0 && seq < records) latNs[seq] = now - sent;
          n++;
        }
        received.set(n);
        if (!producing.get() && System.nanoTime() - producerDoneAt.get() > 30_000_000_000L) break;
      }
    }, "e2e-consumer");
    reader.start();

    // Pacing parks until each record's due time (no busy spinning: on a 2-core machine a spinning
    // pacer would take a core from the broker). A record is stamped when send() is called.
    long intervalNs = (long) (1e9 / rate);
    long start = System.nanoTime() + 100_000_000L;
    for (int i = 0; i < records; i++) {
      long due = start + i * intervalNs;
      long now;
      while ((now = System.nanoTime()) < due) LockSupport.parkNanos(due - now);
      byte[] payload = new byte[size];
      ByteBuffer.wrap(payload).putLong(0, System.nanoTime()).putInt(8, i);
      producer.send(new ProducerRecord<>(topic, payload));
    }
    producer.flush();
    long sendNanos = System.nanoTime() - start;
    producerDoneAt.set(System.nanoTime());
    producing.set(false);
    reader.join();
    producer.close();
    consumer.close();

    int from = Math.min(warmup, records);
    long[] xs = Arrays.copyOfRange(latNs, from, records);
    int measured = 0;
    for (long x : xs) if (x > 0) measured++;
    long[] ys = new long[measured];
    int k = 0;
    double sum = 0;
    for (long x : xs) if (x > 0) { ys[k++] = x; sum += x; }
    Arrays.sort(ys);
    double achieved = records / (sendNanos / 1e9);
    System.out.printf(java.util.Locale.ROOT,
        "{\"records\":%d,\"received\":%d,\"measured\":%d,\"rate\":%.1f,\"p50_ms\":%.3f,\"p95_ms\":%.3f,\"p99_ms\":%.3f,\"p999_ms\":%.3f,\"max_ms\":%.3f,\"avg_ms\":%.3f}%n",
        records, received.get(), measured, achieved, pct(ys, 0.50), pct(ys, 0.95), pct(ys, 0.99), pct(ys, 0.999),
        ys.length == 0 ? Double.NaN : ys[ys.length - 1] / 1e6, ys.length == 0 ? Double.NaN : sum / ys.length / 1e6);
    if (received.get() < records) System.exit(1);
  }

  private static double pct(long[] sorted, double q) {
    if (sorted.length == 0) return Double.NaN;
    int i = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e6;
  }
}
