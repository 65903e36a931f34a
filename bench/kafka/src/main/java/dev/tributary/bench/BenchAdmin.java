package dev.tributary.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Creates topics for the benchmark with Kafka's own Admin client, the same way for both brokers,
 * and waits until every partition has a leader (one JVM for all of a run's topics, instead of one
 * kafka-topics JVM per topic).
 *
 *   java -cp 'target/lib/*:target/classes' dev.tributary.bench.BenchAdmin BOOTSTRAP PARTITIONS TOPIC...
 *
 * Prints one line per topic: "created TOPIC" or "exists TOPIC". Exits 1 on any other failure.
 */
public final class BenchAdmin {
  public static void main(String[] args) throws Exception {
    if (args.length < 3) {
      System.err.println("usage: BenchAdmin BOOTSTRAP PARTITIONS TOPIC...");
      System.exit(2);
    }
    String bootstrap = args[0];
    int partitions = Integer.parseInt(args[1]);
    List<String> topics = new ArrayList<>();
    for (int i = 2; i < args.length; i++) topics.add(args[i]);

    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "30000");
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "60000");
    try (Admin admin = Admin.create(props)) {
      List<NewTopic> news = new ArrayList<>();
      for (String t : topics) news.add(new NewTopic(t, partitions, (short) 1));
      Map<String, org.apache.kafka.common.KafkaFuture<Void>> futures = admin.createTopics(news).values();
      for (String t : topics) {
        try {
          futures.get(t).get();
          System.out.println("created " + t);
        } catch (ExecutionException e) {
          if (e.getCause() instanceof TopicExistsException) System.out.println("exists " + t);
          else throw e;
        }
      }
      long deadline = System.currentTimeMillis() + 60_000;
      for (;;) {
        boolean ready = true;
        try {
          Map<String, TopicDescription> d = admin.describeTopics(Set.copyOf(topics)).allTopicNames().get();
          for (TopicDescription td : d.values()) {
            if (td.partitions().size() != partitions) ready = false;
            for (TopicPartitionInfo p : td.partitions()) if (p.leader() == null || p.leader().isEmpty()) ready = false;
          }
        } catch (ExecutionException e) {
          ready = false;
        }
        if (ready) break;
        if (System.currentTimeMillis() > deadline) throw new IllegalStateException("topics have no leaders after 60 s: " + topics);
        Thread.sleep(50);
      }
    }
  }
}
