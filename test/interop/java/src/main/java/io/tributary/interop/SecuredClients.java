package io.tributary.interop;

import java.io.FileReader;
import java.io.Reader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Java 4.4 clients against a broker with an authorizer, one login after another in one JVM:
 * each login is a Kafka client properties file (bootstrap.servers, security.protocol, sasl.* or
 * ssl.keystore.*), as the calling tests (test/integration/sasl-ssl.test.ts, sasl-java.test.ts) write
 * them.
 *
 * <p>Usage: {@code SecuredClients PREFIX DENIED_TOPIC DENIED_GROUP SPEC...} where SPEC is
 * {@code ok:LABEL:FILE} or {@code refused:LABEL:FILE}; DENIED_TOPIC {@code -} (a broker without an
 * authorizer: test/integration/sasl-java.test.ts) skips the denied steps.
 * <ul>
 *   <li>ok: an Admin creates topic PREFIX+LABEL, the default (idempotent, acks=all) producer sends
 *       3 records, a consumer in group PREFIX+LABEL reads them back: {@code MATRIX LABEL ok N}.
 *       Then what the login may not do: a send to DENIED_TOPIC, a consumer in DENIED_GROUP and an
 *       Admin createAcls, each printed as {@code MATRIX LABEL denied-topic|denied-group|denied-cluster
 *       EXCEPTION_CLASS}.
 *   <li>refused: Admin listTopics must fail: {@code MATRIX LABEL refused EXCEPTION_CLASS message}.
 * </ul>
 * It only reports (exit 0 unless the program itself breaks); the calling test decides.
 */
public final class SecuredClients {
  static final int COUNT = 3;
  static final int TIMEOUT_S = 20;

  public static void main(String[] args) throws Exception {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "error");
    }
    String prefix = args[0];
    String deniedTopic = args[1];
    String deniedGroup = args[2];
    for (int i = 3; i < args.length; i++) {
      String[] spec = args[i].split(":", 3);
      Properties login = load(spec[2]);
      if (spec[0].equals("ok")) allowedAndDenied(spec[1], login, prefix + spec[1], deniedTopic, deniedGroup);
      else refused(spec[1], login);
    }
    System.out.flush();
    Runtime.getRuntime().halt(0);
  }

  static Properties load(String file) throws Exception {
    Properties p = new Properties();
    try (Reader r = new FileReader(file)) {
      p.load(r);
    }
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
    return p;
  }

  static void say(String label, String what) {
    System.out.println("MATRIX " + label + " " + what);
  }

  static String nameOf(Throwable e) {
    Throwable c = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
    return c.getClass().getSimpleName();
  }

  static void allowedAndDenied(String label, Properties login, String topic, String deniedTopic, String deniedGroup) {
    try {
      try (Admin admin = Admin.create(login)) {
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(TIMEOUT_S, TimeUnit.SECONDS);
      }
      try (KafkaProducer<String, String> producer = producer(login)) {
        for (int i = 0; i < COUNT; i++) producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i)).get(TIMEOUT_S, TimeUnit.SECONDS);
      }
      List<String> values = consume(login, topic, topic);
      say(label, "ok " + (values.equals(List.of("v0", "v1", "v2")) ? values.size() : -1));
    } catch (Exception e) {
      say(label, "failed " + nameOf(e) + ": " + e.getMessage());
      return;
    }
    if (deniedTopic.equals("-")) return;
    try (KafkaProducer<String, String> producer = producer(login)) {
      Future<RecordMetadata> f = producer.send(new ProducerRecord<>(deniedTopic, "k", "v"));
      f.get(TIMEOUT_S, TimeUnit.SECONDS);
      say(label, "denied-topic none");
    } catch (Exception e) {
      say(label, "denied-topic " + nameOf(e));
    }
    try {
      List<String> values = consume(login, topic, deniedGroup);
      say(label, "denied-group none " + values.size());
    } catch (Exception e) {
      say(label, "denied-group " + nameOf(e));
    }
    try (Admin admin = Admin.create(login)) {
      AclBinding acl = new AclBinding(
          new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
          new AccessControlEntry("User:mallory", "*", AclOperation.READ, AclPermissionType.ALLOW));
      admin.createAcls(List.of(acl)).all().get(TIMEOUT_S, TimeUnit.SECONDS);
      say(label, "denied-cluster none");
    } catch (Exception e) {
      say(label, "denied-cluster " + nameOf(e));
    }
  }

  static KafkaProducer<String, String> producer(Properties login) {
    Properties p = new Properties();
    p.putAll(login);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, TIMEOUT_S * 1000);
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, TIMEOUT_S * 1000);
    return new KafkaProducer<>(p);
  }

  /** Reads topic from the beginning in a group; an error polling (e.g. authorization) is thrown. */
  static List<String> consume(Properties login, String topic, String group) {
    Properties c = new Properties();
    c.putAll(login);
    c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c)) {
      consumer.subscribe(List.of(topic));
      long deadline = System.currentTimeMillis() + TIMEOUT_S * 1000L;
      while (values.size() < COUNT && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) values.add(r.value());
      }
    }
    return values;
  }

  static void refused(String label, Properties login) {
    login.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5_000);
    login.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
    try (Admin admin = Admin.create(login)) {
      admin.listTopics().names().get(TIMEOUT_S, TimeUnit.SECONDS);
      say(label, "refused none");
    } catch (Exception e) {
      Throwable c = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
      say(label, "refused " + c.getClass().getSimpleName() + " " + c.getMessage());
    }
  }
}
