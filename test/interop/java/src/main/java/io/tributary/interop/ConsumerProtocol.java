package io.tributary.interop;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * KIP-848 consumer groups through the Java 4.4 client ({@code group.protocol=consumer}): on a
 * 6-partition topic, with records produced throughout, three consumer processes join one after
 * another, one leaves (close) and one is killed (destroyForcibly); a fourth joins at the end with
 * a regex subscription. Every consumer commits after each poll. Checks: every produced record is
 * consumed at least once (none skipped), and no ConsumerGroupDescribe snapshot shows a partition
 * in two members' current assignments.
 * Usage: {@code ConsumerProtocol HOST:PORT TOPIC} (the driver) or
 * {@code ConsumerProtocol member HOST:PORT GROUP TOPIC|/REGEX} (one consumer; prints
 * {@code REC value} per record). The driver prints {@code CONSUMER-PROTOCOL OK} or
 * {@code CONSUMER-PROTOCOL FAIL ...} and exits 0 or 1.
 */
public final class ConsumerProtocol {
  private static final int PARTITIONS = 6;

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("member")) {
      member(args[1], args[2], args[3]);
      return;
    }
    driver(args[0], args[1]);
  }

  private static void member(String bootstrap, String group, String topic) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
      if (topic.startsWith("/")) c.subscribe(Pattern.compile(topic.substring(1)));
      else c.subscribe(List.of(topic));
      BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      while (true) {
        ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(200));
        StringBuilder out = new StringBuilder();
        for (ConsumerRecord<String, String> r : recs) out.append("REC ").append(r.value()).append('\n');
        System.out.print(out);
        System.out.flush();
        if (!recs.isEmpty()) c.commitSync();
        if (stdin.ready() && "stop".equals(stdin.readLine())) break;
      }
    } catch (Exception e) {
      System.out.println("MEMBER-ERROR " + e);
      System.out.flush();
    }
  }

  private static void driver(String bootstrap, String topic) throws Exception {
    String group = topic + "-group";
    Properties ap = new Properties();
    ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(ap)) {
      admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get();
      Set<String> consumed = ConcurrentHashMap.newKeySet();
      List<Process> procs = new ArrayList<>();
      List<String> problems = new ArrayList<>();
      AtomicBoolean producing = new AtomicBoolean(true);
      int[] produced = {0};
      int[] snapshots = {0, 0}; // describes that showed members; the most members seen at once
      Thread producer = new Thread(() -> {
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> prod = new KafkaProducer<>(pp)) {
          for (int i = 0; producing.get(); i++) {
            prod.send(new ProducerRecord<>(topic, i % PARTITIONS, null, Integer.toString(i))).get();
            produced[0] = i + 1;
            Thread.sleep(5);
          }
        } catch (Exception e) {
          synchronized (problems) { problems.add("producer: " + e); }
        }
      });
      producer.start();
      Thread watcher = new Thread(() -> {
        while (producing.get() || !Thread.currentThread().isInterrupted()) {
          try {
            ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
            if (d.type() != GroupType.CONSUMER) synchronized (problems) { problems.add("group type " + d.type()); }
            if (!d.members().isEmpty()) snapshots[0]++;
            snapshots[1] = Math.max(snapshots[1], d.members().size());
            Map<TopicPartition, String> owner = new HashMap<>();
            for (MemberDescription m : d.members()) {
              for (TopicPartition tp : m.assignment().topicPartitions()) {
                String other = owner.put(tp, m.consumerId());
                if (other != null) synchronized (problems) { problems.add(tp + " owned by " + other + " and " + m.consumerId()); }
              }
            }
            Thread.sleep(100);
          } catch (InterruptedException e) {
            return;
          } catch (Exception e) {
            // the group may not exist yet
          }
        }
      });
      watcher.setDaemon(true);
      watcher.start();
      for (int i = 0; i < 3; i++) {
        procs.add(start(bootstrap, group, topic, consumed));
        Thread.sleep(4000);
      }
      stop(procs.get(1)); // leaves
      Thread.sleep(4000);
      procs.get(2).destroyForcibly(); // killed: its partitions move after the session timeout
      System.out.println("[interop] killed one member");
      Thread.sleep(3000);
      procs.add(start(bootstrap, group, "/" + topic + "|nothing-else", consumed));
      Thread.sleep(3000);
      producing.set(false);
      producer.join();
      int total = produced[0];
      long deadline = System.currentTimeMillis() + 40000;
      while (System.currentTimeMillis() < deadline && missing(consumed, total) > 0) Thread.sleep(200);
      watcher.interrupt();
      int miss = missing(consumed, total);
      for (Process pr : procs) if (pr.isAlive()) stop(pr);
      System.out.println("[interop] produced " + total + ", distinct consumed " + consumed.size() + ", missing " + miss);
      System.out.println("[interop] " + snapshots[0] + " group snapshots with members, at most " + snapshots[1] + " members");
      if (miss > 0) problems.add(miss + " records never consumed");
      if (snapshots[0] < 20 || snapshots[1] < 3) problems.add("too few group snapshots: " + snapshots[0] + ", max members " + snapshots[1]);
      if (total < 1000) problems.add("only " + total + " records produced");
      if (!problems.isEmpty()) {
        System.out.println("CONSUMER-PROTOCOL FAIL " + problems.subList(0, Math.min(10, problems.size())));
        System.exit(1);
      }
      System.out.println("CONSUMER-PROTOCOL OK");
    }
  }

  private static int missing(Set<String> consumed, int total) {
    int n = 0;
    for (int i = 0; i < total; i++) if (!consumed.contains(Integer.toString(i))) n++;
    return n;
  }

  private static Process start(String bootstrap, String group, String topic, Set<String> consumed) throws Exception {
    String java = System.getProperty("java.home") + "/bin/java";
    ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", ConsumerProtocol.class.getName(), "member", bootstrap, group, topic);
    pb.redirectError(ProcessBuilder.Redirect.INHERIT);
    Process pr = pb.start();
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(pr.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          if (line.startsWith("REC ")) consumed.add(line.substring(4));
          else System.out.println("[member] " + line);
        }
      } catch (Exception e) {
        // the process ended
      }
    });
    t.setDaemon(true);
    t.start();
    System.out.println("[interop] started a member on " + topic);
    return pr;
  }

  private static void stop(Process pr) throws Exception {
    pr.getOutputStream().write("stop\n".getBytes(StandardCharsets.UTF_8));
    pr.getOutputStream().flush();
    if (!pr.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) pr.destroyForcibly();
  }
}
