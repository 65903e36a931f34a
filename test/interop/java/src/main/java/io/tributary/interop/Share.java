package io.tributary.interop;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * KIP-932 share groups through the Java 4.4 client, for test/integration/share-java.test.ts (and
 * the same program against Apache Kafka, to check the test). Subcommands:
 *
 * <pre>
 *   Share create BOOTSTRAP TOPIC PARTITIONS [key=value ...]      topic with configs → "CREATED TOPIC"
 *   Share group-config BOOTSTRAP GROUP key=value ...             IncrementalAlterConfigs SET on the
 *                                                                GROUP resource → "CONFIG OK" or
 *                                                                "CONFIG REFUSED Class: message"
 *   Share produce BOOTSTRAP TOPIC COUNT SIZE                     records keyed "k&lt;i&gt;" → "PRODUCED n"
 *   Share consume BOOTSTRAP GROUP TOPIC [--mode M] [--consumers K] [--max N] [--quiet] [--implicit]
 *   Share dump BOOTSTRAP TOPIC COUNT TIMEOUT_MS                  a plain consumer reading partition 0
 *                                                                from the start: "D offset key h=v,…"
 * </pre>
 *
 * consume runs K KafkaShareConsumers (one thread each, default 1) of GROUP, in explicit
 * acknowledgement mode (share.acknowledgement.mode=explicit) unless --implicit. Each poll's records
 * are acknowledged by the mode, then commitSync; only after the commit succeeded does it print one
 * line per record, {@code R consumer offset deliveryCount accept|release|reject} (a failed commit
 * prints {@code F consumer offset deliveryCount error} instead). Modes: accept, release, reject,
 * reject-every-N (offsets divisible by N rejected, the rest accepted), and hold: print
 * {@code H consumer offset deliveryCount} for the first records acquired (then {@code HELD n}) and neither
 * acknowledge nor poll again, so they stay in flight until the process is SIGKILLed. "stop" on
 * stdin, or --max N records acknowledged in all, closes the consumers and prints
 * {@code CLOSED records=n ms=t perConsumer=a,b,…} (with --quiet that is the only output).
 */
public final class Share {
  public static void main(String[] args) throws Exception {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      String level = System.getenv("INTEROP_LOG_LEVEL");
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", level == null || level.isEmpty() ? "warn" : level);
    }
    switch (args[0]) {
      case "create" -> create(args[1], args[2], Integer.parseInt(args[3]), Arrays.copyOfRange(args, 4, args.length));
      case "group-config" -> groupConfig(args[1], args[2], Arrays.copyOfRange(args, 3, args.length));
      case "produce" -> produce(args[1], args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]));
      case "consume" -> consume(args[1], args[2], args[3], Arrays.copyOfRange(args, 4, args.length));
      case "dump" -> dump(args[1], args[2], Integer.parseInt(args[3]), Long.parseLong(args[4]));
      default -> throw new IllegalArgumentException("unknown subcommand " + args[0]);
    }
  }

  private static Admin admin(String bootstrap) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    return Admin.create(p);
  }

  private static Map<String, String> pairs(String[] kvs) {
    Map<String, String> m = new HashMap<>();
    for (String kv : kvs) {
      int eq = kv.indexOf('=');
      m.put(kv.substring(0, eq), kv.substring(eq + 1));
    }
    return m;
  }

  private static void create(String bootstrap, String topic, int partitions, String[] configs) throws Exception {
    try (Admin admin = admin(bootstrap)) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1).configs(pairs(configs)))).all().get();
      System.out.println("CREATED " + topic);
    }
  }

  /** The group's configs (KIP-932's share.*, KIP-1191's errors.deadletterqueue.*), as kafka-configs --entity-type groups does. */
  private static void groupConfig(String bootstrap, String group, String[] configs) throws Exception {
    List<AlterConfigOp> ops = new ArrayList<>();
    for (Map.Entry<String, String> e : pairs(configs).entrySet())
      ops.add(new AlterConfigOp(new ConfigEntry(e.getKey(), e.getValue()), AlterConfigOp.OpType.SET));
    ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, group);
    try (Admin admin = admin(bootstrap)) {
      admin.incrementalAlterConfigs(Map.of(resource, ops)).all().get();
      System.out.println("CONFIG OK");
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      System.out.println("CONFIG REFUSED " + c.getClass().getSimpleName() + ": " + c.getMessage());
    }
  }

  private static void produce(String bootstrap, String topic, int count, int size) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, "65536");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    byte[] value = new byte[size];
    Arrays.fill(value, (byte) 'v');
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      for (int i = 0; i < count; i++)
        producer.send(new ProducerRecord<>(topic, ("k" + i).getBytes(StandardCharsets.UTF_8), value));
      producer.flush();
    }
    System.out.println("PRODUCED " + count);
  }

  private static void consume(String bootstrap, String group, String topic, String[] opts) throws Exception {
    String mode = "accept";
    int consumers = 1;
    long max = Long.MAX_VALUE;
    boolean quiet = false;
    boolean explicit = true;
    for (int i = 0; i < opts.length; i++) {
      switch (opts[i]) {
        case "--mode" -> mode = opts[++i];
        case "--consumers" -> consumers = Integer.parseInt(opts[++i]);
        case "--max" -> max = Long.parseLong(opts[++i]);
        case "--quiet" -> quiet = true;
        case "--implicit" -> explicit = false;
        default -> throw new IllegalArgumentException("unknown option " + opts[i]);
      }
    }
    if (!explicit && !mode.equals("accept")) throw new IllegalArgumentException("--implicit only accepts");
    int rejectEvery = mode.startsWith("reject-every-") ? Integer.parseInt(mode.substring("reject-every-".length())) : 0;
    AtomicBoolean stop = new AtomicBoolean(false);
    AtomicLong total = new AtomicLong();
    long[] perConsumer = new long[consumers];
    CountDownLatch done = new CountDownLatch(consumers);
    long t0 = System.nanoTime();
    for (int c = 0; c < consumers; c++) {
      final int id = c;
      final String m = mode;
      final long limit = max;
      final boolean q = quiet;
      final boolean ex = explicit;
      Thread t = new Thread(() -> {
        try {
          runConsumer(bootstrap, group, topic, id, m, rejectEvery, ex, q, limit, stop, total, perConsumer);
        } catch (Exception e) {
          say("ERROR " + id + " " + e);
        } finally {
          done.countDown();
        }
      }, "share-consumer-" + c);
      t.start();
    }
    Thread stdin = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
        for (String line; (line = in.readLine()) != null; ) if (line.trim().equals("stop")) break;
      } catch (Exception e) {
        // stdin closed: stop as well
      }
      stop.set(true);
    });
    stdin.setDaemon(true);
    stdin.start();
    done.await();
    long ms = (System.nanoTime() - t0) / 1_000_000;
    StringBuilder counts = new StringBuilder();
    for (int c = 0; c < consumers; c++) counts.append(c == 0 ? "" : ",").append(perConsumer[c]);
    say("CLOSED records=" + total.get() + " ms=" + ms + " perConsumer=" + counts);
    System.exit(0);
  }

  private static synchronized void say(String s) {
    System.out.print(s.endsWith("\n") ? s : s + "\n");
    System.out.flush();
  }

  private static AcknowledgeType ackFor(String mode, int rejectEvery, long offset) {
    if (rejectEvery > 0) return offset % rejectEvery == 0 ? AcknowledgeType.REJECT : AcknowledgeType.ACCEPT;
    return switch (mode) {
      case "accept" -> AcknowledgeType.ACCEPT;
      case "release" -> AcknowledgeType.RELEASE;
      case "reject" -> AcknowledgeType.REJECT;
      default -> throw new IllegalArgumentException("unknown mode " + mode);
    };
  }

  private static void runConsumer(String bootstrap, String group, String topic, int id, String mode, int rejectEvery,
      boolean explicit, boolean quiet, long max, AtomicBoolean stop, AtomicLong total, long[] perConsumer) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, group + "-" + id);
    if (explicit) p.put(ConsumerConfig.SHARE_ACKNOWLEDGEMENT_MODE_CONFIG, "explicit");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    try (KafkaShareConsumer<byte[], byte[]> consumer = new KafkaShareConsumer<>(p)) {
      consumer.subscribe(List.of(topic));
      while (!stop.get()) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
        if (records.isEmpty()) continue;
        if (mode.equals("hold")) {
          StringBuilder out = new StringBuilder();
          for (ConsumerRecord<byte[], byte[]> r : records)
            out.append("H ").append(id).append(' ').append(r.offset()).append(' ').append(count(r.deliveryCount())).append('\n');
          out.append("HELD ").append(records.count()).append('\n');
          say(out.toString());
          // Neither acknowledged nor polled again: in flight until the lock expires or the process dies.
          while (!stop.get()) sleep(100);
          return;
        }
        if (explicit) for (ConsumerRecord<byte[], byte[]> r : records) consumer.acknowledge(r, ackFor(mode, rejectEvery, r.offset()));
        Map<TopicIdPartition, Optional<KafkaException>> result = explicit ? consumer.commitSync() : Map.of();
        Map<TopicPartition, String> failed = new HashMap<>();
        for (Map.Entry<TopicIdPartition, Optional<KafkaException>> e : result.entrySet())
          if (e.getValue().isPresent()) failed.put(e.getKey().topicPartition(), e.getValue().get().toString());
        StringBuilder out = new StringBuilder();
        int ok = 0;
        for (ConsumerRecord<byte[], byte[]> r : records) {
          String err = failed.get(new TopicPartition(r.topic(), r.partition()));
          String ack = explicit ? ackFor(mode, rejectEvery, r.offset()).toString().toLowerCase() : "accept";
          if (err != null) {
            out.append("F ").append(id).append(' ').append(r.offset()).append(' ').append(count(r.deliveryCount())).append(' ').append(err).append('\n');
            continue;
          }
          ok++;
          if (!quiet) out.append("R ").append(id).append(' ').append(r.offset()).append(' ').append(count(r.deliveryCount())).append(' ').append(ack).append('\n');
        }
        if (out.length() > 0) say(out.toString());
        perConsumer[id] += ok;
        if (total.addAndGet(ok) >= max) stop.set(true);
      }
    }
  }

  private static String count(Optional<Short> deliveryCount) {
    return deliveryCount.map(String::valueOf).orElse("?");
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Reads partition 0 of TOPIC from the start (a plain consumer, no group) until COUNT records or the timeout. */
  private static void dump(String bootstrap, String topic, int count, long timeoutMs) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    int seen = 0;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
      TopicPartition tp = new TopicPartition(topic, 0);
      Collection<TopicPartition> tps = List.of(tp);
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      long deadline = System.currentTimeMillis() + timeoutMs;
      while (seen < count && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          StringBuilder h = new StringBuilder();
          for (Header header : r.headers()) {
            if (h.length() > 0) h.append(',');
            h.append(header.key()).append('=').append(header.value() == null ? "" : new String(header.value(), StandardCharsets.UTF_8));
          }
          String key = r.key() == null ? "-" : new String(r.key(), StandardCharsets.UTF_8);
          say("D " + r.offset() + " " + key + " " + h);
          seen++;
        }
      }
    }
    say("DUMPED " + seen);
  }
}
