package io.tributary.interop;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Java 4.4 Admin's share group and group config calls (KIP-932, KIP-848's GROUP resources):
 * <ul>
 *   <li>IncrementalAlterConfigs on a GROUP resource, DescribeConfigs reading it back with source
 *       GROUP_CONFIG (defaults with DEFAULT_CONFIG), an out-of-bounds value refused
 *       (InvalidConfigurationException);</li>
 *   <li>alterShareGroupOffsets on a new group id (it becomes an empty share group), listGroups for
 *       share groups (type SHARE, state EMPTY), describeShareGroups;</li>
 *   <li>listShareGroupOffsets: the start offsets set, and, when known, the lag (high watermark − start);</li>
 *   <li>deleteShareGroupOffsets of the topic, then deleteShareGroups; the group is gone.</li>
 * </ul>
 * Usage: {@code ShareAdmin HOST:PORT TOPIC}. Prints {@code SHARE-ADMIN OK} and exits 0, or
 * {@code SHARE-ADMIN FAIL [step] ...} and exits 1.
 */
public final class ShareAdmin {
  static final long TIMEOUT_S = 60;
  static final int RECORDS = 10;
  private static String step = "start";

  public static void main(String[] args) {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      String level = System.getenv("INTEROP_LOG_LEVEL");
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", level == null || level.isEmpty() ? "warn" : level);
    }
    if (args.length != 2) {
      System.err.println("usage: ShareAdmin HOST:PORT TOPIC");
      System.exit(2);
    }
    try {
      run(args[0], args[1]);
    } catch (Throwable t) {
      System.out.println("SHARE-ADMIN FAIL [" + step + "] " + Interop.describe(t));
      System.out.flush();
      t.printStackTrace(System.err);
      System.exit(1);
      return;
    }
    System.out.println("SHARE-ADMIN OK");
    System.out.flush();
    System.exit(0);
  }

  static <T> T await(Future<T> f) throws InterruptedException, ExecutionException, java.util.concurrent.TimeoutException {
    return f.get(TIMEOUT_S, TimeUnit.SECONDS);
  }

  static Throwable expectFailure(Future<?> f, Class<? extends Throwable> expected, String what) throws Exception {
    try {
      Object v = await(f);
      throw new Interop.Mismatch(what + ": expected " + expected.getSimpleName() + ", got " + v);
    } catch (ExecutionException e) {
      Interop.check(expected.isInstance(e.getCause()), what + ": expected " + expected.getSimpleName() + ", got " + Interop.describe(e.getCause()));
      return e.getCause();
    }
  }

  static void run(String bootstrap, String topic) throws Exception {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(AdminClientConfig.CLIENT_ID_CONFIG, "share-admin");
    String group = topic + "-share";
    TopicPartition tp0 = new TopicPartition(topic, 0);
    TopicPartition tp1 = new TopicPartition(topic, 1);

    try (Admin admin = Admin.create(props)) {
      step = "createTopics";
      await(admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all());
      step = "produce";
      Properties pp = new Properties();
      pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
        for (int i = 0; i < RECORDS; i++) producer.send(new ProducerRecord<>(topic, 0, "k" + i, "v" + i));
        producer.flush();
      }

      // Group configs: GROUP resources (type 32).
      step = "incrementalAlterConfigs GROUP";
      ConfigResource res = new ConfigResource(ConfigResource.Type.GROUP, group);
      await(admin.incrementalAlterConfigs(Map.of(res, List.of(
          new AlterConfigOp(new ConfigEntry("share.record.lock.duration.ms", "20000"), AlterConfigOp.OpType.SET),
          new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET)))).all());
      step = "describeConfigs GROUP";
      Config config = await(admin.describeConfigs(List.of(res)).all()).get(res);
      ConfigEntry lock = config.get("share.record.lock.duration.ms");
      Interop.check(lock != null && "20000".equals(lock.value()) && lock.source() == ConfigEntry.ConfigSource.DYNAMIC_GROUP_CONFIG,
          "share.record.lock.duration.ms: expected 20000 from DYNAMIC_GROUP_CONFIG, got " + lock);
      ConfigEntry limit = config.get("share.delivery.count.limit");
      Interop.check(limit != null && "5".equals(limit.value()) && limit.source() == ConfigEntry.ConfigSource.DEFAULT_CONFIG,
          "share.delivery.count.limit: expected the default 5, got " + limit);
      step = "incrementalAlterConfigs GROUP out of bounds";
      expectFailure(admin.incrementalAlterConfigs(Map.of(res, List.of(
          new AlterConfigOp(new ConfigEntry("share.record.lock.duration.ms", "1000"), AlterConfigOp.OpType.SET)))).all(),
          InvalidConfigurationException.class, "a lock duration below group.share.min.record.lock.duration.ms");

      // Offsets of a group that does not exist yet: it becomes an empty share group.
      step = "alterShareGroupOffsets";
      await(admin.alterShareGroupOffsets(group, Map.of(tp0, 4L, tp1, 0L)).all());

      step = "listGroups(share)";
      Collection<GroupListing> listed = await(admin.listGroups(ListGroupsOptions.forShareGroups()).all());
      GroupListing mine = listed.stream().filter(g -> g.groupId().equals(group)).findFirst().orElse(null);
      Interop.check(mine != null && mine.type().orElse(null) == GroupType.SHARE && mine.groupState().orElse(null) == GroupState.EMPTY,
          "listGroups: expected " + group + " as an empty share group, got " + listed);

      step = "describeShareGroups";
      ShareGroupDescription d = await(admin.describeShareGroups(List.of(group)).describedGroups().get(group));
      Interop.check(d.groupState() == GroupState.EMPTY && d.members().isEmpty(), "describeShareGroups: expected an empty group, got " + d);

      step = "listShareGroupOffsets";
      Map<TopicPartition, SharePartitionOffsetInfo> offsets = await(admin.listShareGroupOffsets(
          Map.of(group, new ListShareGroupOffsetsSpec().topicPartitions(List.of(tp0, tp1)))).partitionsToOffsetInfo(group));
      SharePartitionOffsetInfo o0 = offsets.get(tp0);
      Interop.check(o0 != null && o0.startOffset() == 4L, "listShareGroupOffsets: expected start offset 4 on " + tp0 + ", got " + offsets);
      // The lag needs the share state's delivery-complete count; a state just initialized may not
      // know it yet (then the lag is absent), else it is the high watermark minus the start.
      Interop.check(o0.lag().map(l -> l == RECORDS - 4L).orElse(true), "listShareGroupOffsets: expected lag " + (RECORDS - 4) + " on " + tp0 + ", got " + o0);
      Interop.check(offsets.get(tp1) != null && offsets.get(tp1).startOffset() == 0L, "listShareGroupOffsets: expected 0 on " + tp1 + ", got " + offsets);

      step = "deleteShareGroupOffsets";
      await(admin.deleteShareGroupOffsets(group, Set.of(topic)).all());
      step = "deleteShareGroups";
      await(admin.deleteShareGroups(List.of(group)).all());
      step = "describeShareGroups after delete";
      expectFailure(admin.describeShareGroups(List.of(group)).describedGroups().get(group), GroupIdNotFoundException.class, "a deleted share group");
    }
  }
}
