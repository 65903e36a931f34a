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
 * {@code ConsumerProtocol member HOST:PORT GROUP TOPIC|/REGEX [INSTANCE-ID]} (one consumer; prints
 * {@code REC value} per record). The driver prints {@code CONSUMER-PROTOCOL OK} or
 * {@code CONSUMER-PROTOCOL FAIL ...} and exits 0 or 1.
 *
 * <p>{@code ConsumerProtocol static HOST:PORT TOPIC}: static membership (group.instance.id) on a
 * 4-partition topic. Two static members s1 and s2 settle with two partitions each; s1 closes (a
 * static leave, epoch -2) and a new process with instance id s1 starts within the session
 * timeout: it must get exactly the partitions s1 had, and s2 must keep its own. Prints
 * {@code STATIC OK} or {@code STATIC FAIL ...}.
 *
 * <p>{@code ConsumerProtocol upgrade HOST:PORT TOPIC}: a classic group upgraded member by member.
 * Two classic consumers (group.protocol=classic) share a 6-partition topic while records are
 * produced; each in turn is closed and restarted with group.protocol=consumer (the first
 * consumer-protocol member converts the group; the remaining classic member keeps consuming in it).
 * Every produced record must be consumed (committed offsets respected: nothing skipped), the group
 * must end as a consumer group. Prints {@code UPGRADE OK} or {@code UPGRADE FAIL ...}.
 *
 * <p>{@code ConsumerProtocol mixed HOST:PORT TOPIC}: a new classic member joining a consumer group.
 * A consumer-protocol member starts the group; a classic consumer (group.protocol=classic) that was
 * never in it then joins: the group must stay a consumer group of two, each member owning
 * partitions, none owned twice. The consumer-protocol member then leaves: the group must become a
 * classic group of one. Every produced record must be consumed. Prints {@code MIXED OK} or
 * {@code MIXED FAIL ...}.
 */
public final class ConsumerProtocol {
  private static final int PARTITIONS = 6;

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("member")) {
      String instance = args.length > 4 && !args[4].equals("-") ? args[4] : null;
      member(args[1], args[2], args[3], instance, args.length > 5 ? args[5] : "consumer");
      return;
    }
    if (args.length > 0 && args[0].equals("upgrade")) {
      upgrade(args[1], args[2]);
      return;
    }
    if (args.length > 0 && args[0].equals("mixed")) {
      mixed(args[1], args[2]);
      return;
    }
    if (args.length > 0 && args[0].equals("static")) {
      staticMembers(args[1], args[2]);
      return;
    }
    driver(args[0], args[1]);
  }

  private static void member(String bootstrap, String group, String topic, String instanceId, String protocol) {
    Properties p = new Properties();
    if (instanceId != null) p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId);
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
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
        // A commit refused while the member's epoch moves (STALE_MEMBER_EPOCH, or ILLEGAL_GENERATION for
        // a classic member during a rebalance) loses nothing: the records may only come again.
        if (!recs.isEmpty()) {
          try {
            c.commitSync();
          } catch (org.apache.kafka.clients.consumer.CommitFailedException e) {
            System.out.println("COMMIT-FAILED " + e.getMessage());
          }
        }
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
      Thread producer = producer(bootstrap, topic, producing, produced, problems);
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
      if (miss > 0) {
        List<Integer> some = new ArrayList<>();
        for (int i = 0; i < total && some.size() < 10; i++) if (!consumed.contains(Integer.toString(i))) some.add(i);
        problems.add(miss + " records never consumed, e.g. " + some + " (record i is on partition i % " + PARTITIONS + ")");
      }
      if (snapshots[0] < 20 || snapshots[1] < 3) problems.add("too few group snapshots: " + snapshots[0] + ", max members " + snapshots[1]);
      if (total < 1000) problems.add("only " + total + " records produced");
      if (!problems.isEmpty()) {
        System.out.println("CONSUMER-PROTOCOL FAIL " + problems.subList(0, Math.min(10, problems.size())));
        System.exit(1);
      }
      System.out.println("CONSUMER-PROTOCOL OK");
    }
  }

  /**
   * Instance id → its current assignment, once there are two members holding two partitions each
   * and none of them has a member id in {@code notIds} (ids are put into {@code ids}).
   */
  private static Map<String, Set<TopicPartition>> settled(Admin admin, String group, long timeoutMs, Set<String> notIds,
      Map<String, String> ids) throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMs;
    Map<String, Set<TopicPartition>> last = Map.of();
    while (System.currentTimeMillis() < deadline) {
      try {
        ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
        Map<String, Set<TopicPartition>> now = new HashMap<>();
        boolean fresh = true;
        for (MemberDescription m : d.members()) {
          now.put(m.groupInstanceId().orElse(m.consumerId()), new HashSet<>(m.assignment().topicPartitions()));
          if (notIds.contains(m.consumerId())) fresh = false;
        }
        last = now;
        if (fresh && now.size() == 2 && now.values().stream().allMatch(a -> a.size() == 2)) {
          for (MemberDescription m : d.members()) ids.put(m.groupInstanceId().orElse(""), m.consumerId());
          return now;
        }
      } catch (Exception e) {
        // the group may not exist yet
      }
      Thread.sleep(200);
    }
    System.out.println("[interop] not settled: " + last);
    return null;
  }

  private static void staticMembers(String bootstrap, String topic) throws Exception {
    String group = topic + "-group";
    Properties ap = new Properties();
    ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(ap)) {
      admin.createTopics(List.of(new NewTopic(topic, 4, (short) 1))).all().get();
      Set<String> consumed = ConcurrentHashMap.newKeySet();
      Process s1 = start(bootstrap, group, topic, consumed, "s1");
      Process s2 = start(bootstrap, group, topic, consumed, "s2");
      Map<String, String> ids = new HashMap<>();
      Map<String, Set<TopicPartition>> before = settled(admin, group, 60000, Set.of(), ids);
      List<String> problems = new ArrayList<>();
      if (before == null) problems.add("the two static members never held two partitions each");
      stop(s1); // a static leave: the member and its partitions are kept for the instance id
      Thread.sleep(1000);
      Process s1again = start(bootstrap, group, topic, consumed, "s1");
      // Settled again only once the member id s1 left with is gone: the new process took its place.
      Map<String, Set<TopicPartition>> after = settled(admin, group, 30000, Set.of(ids.getOrDefault("s1", "?")), new HashMap<>());
      System.out.println("[interop] before " + before + ", after " + after);
      if (after == null) problems.add("the restarted static member did not settle");
      else if (before != null && !after.equals(before)) problems.add("assignments moved: " + before + " -> " + after);
      stop(s1again);
      stop(s2);
      if (!problems.isEmpty()) {
        System.out.println("STATIC FAIL " + problems);
        System.exit(1);
      }
      System.out.println("STATIC OK");
    }
  }

  /** The group as described now, or null (not there yet, or the request failed). */
  private static ConsumerGroupDescription describe(Admin admin, String group) {
    try {
      return admin.describeConsumerGroups(List.of(group)).all().get(10, java.util.concurrent.TimeUnit.SECONDS).get(group);
    } catch (Exception e) {
      return null;
    }
  }

  /** Waits (up to timeoutMs) for a description that passes the check; returns the last one seen. */
  private static ConsumerGroupDescription await(Admin admin, String group, long timeoutMs,
      java.util.function.Predicate<ConsumerGroupDescription> check) throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    ConsumerGroupDescription d = null;
    while (System.currentTimeMillis() < deadline) {
      d = describe(admin, group);
      if (d != null && check.test(d)) return d;
      Thread.sleep(250);
    }
    return d;
  }

  private static String show(ConsumerGroupDescription d) {
    return d == null ? "none" : d.type() + "/" + d.groupState() + " with " + d.members().size() + " members";
  }

  private static void upgrade(String bootstrap, String topic) throws Exception {
    String group = topic + "-group";
    Properties ap = new Properties();
    ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    List<String> problems = new ArrayList<>();
    List<Process> procs = new ArrayList<>();
    AtomicBoolean producing = new AtomicBoolean(true);
    try (Admin admin = Admin.create(ap)) {
      admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get();
      Set<String> consumed = ConcurrentHashMap.newKeySet();
      int[] produced = {0};
      Thread producer = producer(bootstrap, topic, producing, produced, problems);
      producer.start();
      Process a = start(bootstrap, group, topic, consumed, null, "classic");
      Process b = start(bootstrap, group, topic, consumed, null, "classic");
      procs.add(a);
      procs.add(b);
      ConsumerGroupDescription before = await(admin, group, 60000,
          d -> d.type() == GroupType.CLASSIC && d.members().size() == 2 && d.groupState().toString().equalsIgnoreCase("Stable"));
      System.out.println("[interop] two classic members: " + show(before));
      Thread.sleep(2000);
      stop(a);
      Process a2 = start(bootstrap, group, topic, consumed, null, "consumer");
      procs.add(a2);
      ConsumerGroupDescription mixed = await(admin, group, 60000, d -> d.type() == GroupType.CONSUMER && d.members().size() == 2);
      System.out.println("[interop] one member upgraded: " + show(mixed));
      Thread.sleep(4000);
      stop(b);
      Process b2 = start(bootstrap, group, topic, consumed, null, "consumer");
      procs.add(b2);
      // Both members on the consumer protocol now (KIP-1099's MemberDescription.upgraded).
      ConsumerGroupDescription end = await(admin, group, 60000, d -> d.type() == GroupType.CONSUMER && d.members().size() == 2
          && d.members().stream().allMatch(m -> m.upgraded().orElse(false)));
      Thread.sleep(3000);
      producing.set(false);
      producer.join(10000);
      int total = produced[0];
      long deadline = System.currentTimeMillis() + 40000;
      while (System.currentTimeMillis() < deadline && missing(consumed, total) > 0) Thread.sleep(200);
      int miss = missing(consumed, total);
      System.out.println("[interop] produced " + total + ", distinct consumed " + consumed.size() + ", missing " + miss
          + "; at the end " + show(end));
      if (before == null || before.type() != GroupType.CLASSIC) problems.add("the group did not start classic: " + show(before));
      if (mixed == null || mixed.type() != GroupType.CONSUMER) problems.add("one consumer-protocol member did not convert the group: " + show(mixed));
      else if (mixed.members().stream().filter(m -> m.upgraded().orElse(false)).count() != 1)
        problems.add("the converted group should hold one classic and one consumer-protocol member: " + mixed.members());
      if (end == null || end.type() != GroupType.CONSUMER || end.members().size() != 2) problems.add("the group did not end as a consumer group of 2: " + show(end));
      if (miss > 0) problems.add(miss + " records never consumed");
      if (total < 1000) problems.add("only " + total + " records produced");
    } catch (Exception e) {
      problems.add("driver: " + e);
    } finally {
      producing.set(false);
      for (Process pr : procs) if (pr.isAlive()) stop(pr);
    }
    if (!problems.isEmpty()) {
      System.out.println("UPGRADE FAIL " + problems.subList(0, Math.min(10, problems.size())));
      System.exit(1);
    }
    System.out.println("UPGRADE OK");
    System.exit(0);
  }

  private static void mixed(String bootstrap, String topic) throws Exception {
    String group = topic + "-group";
    Properties ap = new Properties();
    ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    List<String> problems = new ArrayList<>();
    List<Process> procs = new ArrayList<>();
    AtomicBoolean producing = new AtomicBoolean(true);
    try (Admin admin = Admin.create(ap)) {
      admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get();
      Set<String> consumed = ConcurrentHashMap.newKeySet();
      int[] produced = {0};
      Thread producer = producer(bootstrap, topic, producing, produced, problems);
      producer.start();
      Process modern = start(bootstrap, group, topic, consumed, null, "consumer");
      procs.add(modern);
      ConsumerGroupDescription alone = await(admin, group, 60000, d -> d.type() == GroupType.CONSUMER && d.members().size() == 1
          && d.members().iterator().next().assignment().topicPartitions().size() == PARTITIONS);
      System.out.println("[interop] one consumer-protocol member: " + show(alone));
      Thread.sleep(2000);
      Process classic = start(bootstrap, group, topic, consumed, null, "classic");
      procs.add(classic);
      // Both members own partitions and none is owned twice.
      ConsumerGroupDescription both = await(admin, group, 60000, d -> {
        if (d.type() != GroupType.CONSUMER || d.members().size() != 2) return false;
        Set<TopicPartition> seen = new java.util.HashSet<>();
        int total = 0;
        for (var m : d.members()) {
          if (m.assignment().topicPartitions().isEmpty()) return false;
          seen.addAll(m.assignment().topicPartitions());
          total += m.assignment().topicPartitions().size();
        }
        return seen.size() == PARTITIONS && total == PARTITIONS;
      });
      System.out.println("[interop] a classic member joined: " + show(both)
          + (both == null ? "" : " " + both.members().stream().map(m -> (m.upgraded().orElse(false) ? "consumer:" : "classic:")
              + m.assignment().topicPartitions().size()).toList()));
      Thread.sleep(3000);
      stop(modern);
      ConsumerGroupDescription end = await(admin, group, 60000, d -> d.type() == GroupType.CLASSIC && d.members().size() == 1
          && d.groupState().toString().equalsIgnoreCase("Stable"));
      System.out.println("[interop] the consumer-protocol member left: " + show(end));
      Thread.sleep(3000);
      producing.set(false);
      producer.join(10000);
      int total = produced[0];
      long deadline = System.currentTimeMillis() + 40000;
      while (System.currentTimeMillis() < deadline && missing(consumed, total) > 0) Thread.sleep(200);
      int miss = missing(consumed, total);
      System.out.println("[interop] produced " + total + ", distinct consumed " + consumed.size() + ", missing " + miss);
      if (alone == null || alone.type() != GroupType.CONSUMER) problems.add("the group did not start as a consumer group: " + show(alone));
      if (both == null || both.type() != GroupType.CONSUMER || both.members().size() != 2)
        problems.add("the classic member did not join the consumer group: " + show(both));
      else if (both.members().stream().filter(m -> m.upgraded().orElse(false)).count() != 1)
        problems.add("the group should hold one classic and one consumer-protocol member: " + both.members());
      else if (both.members().stream().anyMatch(m -> m.assignment().topicPartitions().isEmpty()))
        problems.add("a member of the mixed group owns nothing: " + both.members());
      if (end == null || end.type() != GroupType.CLASSIC || end.members().size() != 1)
        problems.add("the group did not become a classic group of one: " + show(end));
      if (miss > 0) problems.add(miss + " records never consumed");
      if (total < 500) problems.add("only " + total + " records produced");
    } catch (Exception e) {
      problems.add("driver: " + e);
    } finally {
      producing.set(false);
      for (Process pr : procs) if (pr.isAlive()) stop(pr);
    }
    if (!problems.isEmpty()) {
      System.out.println("MIXED FAIL " + problems.subList(0, Math.min(10, problems.size())));
      System.exit(1);
    }
    System.out.println("MIXED OK");
    System.exit(0);
  }

  /**
   * A thread producing the values 0, 1, 2, … round-robin over the partitions, one every 5 ms, while
   * {@code producing} holds; {@code produced[0]} counts those acknowledged.
   */
  private static Thread producer(String bootstrap, String topic, AtomicBoolean producing, int[] produced, List<String> problems) {
    Thread t = new Thread(() -> {
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
    t.setDaemon(true);
    return t;
  }

  private static int missing(Set<String> consumed, int total) {
    int n = 0;
    for (int i = 0; i < total; i++) if (!consumed.contains(Integer.toString(i))) n++;
    return n;
  }

  private static Process start(String bootstrap, String group, String topic, Set<String> consumed) throws Exception {
    return start(bootstrap, group, topic, consumed, null);
  }

  private static Process start(String bootstrap, String group, String topic, Set<String> consumed, String instanceId)
      throws Exception {
    return start(bootstrap, group, topic, consumed, instanceId, "consumer");
  }

  private static Process start(String bootstrap, String group, String topic, Set<String> consumed, String instanceId,
      String protocol) throws Exception {
    String java = System.getProperty("java.home") + "/bin/java";
    List<String> cmd = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", ConsumerProtocol.class.getName(), "member", bootstrap, group, topic,
        instanceId == null ? "-" : instanceId, protocol));
    ProcessBuilder pb = new ProcessBuilder(cmd);
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
