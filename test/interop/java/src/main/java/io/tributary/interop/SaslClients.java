package io.tributary.interop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Java clients over SASL_PLAINTEXT.
 *
 * <p>Usage: {@code SaslClients HOST:PORT TOPIC MECHANISM USER PASSWORD}. With the credentials: an
 * Admin creates TOPIC, a (default, idempotent) KafkaProducer sends 100 records, a KafkaConsumer in a
 * group reads them back. Then an Admin with a wrong password and one with an unknown user must fail
 * with SaslAuthenticationException. Prints {@code SASL <step> ...} lines and {@code SASL OK}, exit 0;
 * or {@code SASL FAIL ...}, exit 1.
 */
public final class SaslClients {
  static final int COUNT = 100;

  public static void main(String[] args) throws Exception {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }
    String bootstrap = args[0];
    String topic = args[1];
    String mechanism = args[2];
    String user = args[3];
    String password = args[4];
    boolean ok = true;
    try (Admin admin = Admin.create(props(bootstrap, mechanism, user, password))) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }
    Properties p = props(bootstrap, mechanism, user, password);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      for (int i = 0; i < COUNT; i++) producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
    }
    System.out.println("SASL produced " + COUNT);
    Properties c = props(bootstrap, mechanism, user, password);
    c.put(ConsumerConfig.GROUP_ID_CONFIG, topic + "-group");
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c)) {
      consumer.subscribe(List.of(topic));
      long deadline = System.currentTimeMillis() + 60_000;
      while (values.size() < COUNT && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) values.add(r.value());
      }
    }
    System.out.println("SASL consumed " + values.size());
    for (int i = 0; i < COUNT && ok; i++) {
      if (i >= values.size() || !values.get(i).equals("v" + i)) {
        System.out.println("SASL FAIL record " + i);
        ok = false;
      }
    }
    ok &= refused(bootstrap, mechanism, user, password + "-wrong", "wrong-password");
    ok &= refused(bootstrap, mechanism, "nobody-" + user, password, "unknown-user");
    System.out.println(ok ? "SASL OK" : "SASL FAIL");
    System.out.flush();
    Runtime.getRuntime().halt(ok ? 0 : 1);
  }

  static boolean refused(String bootstrap, String mechanism, String user, String password, String what) throws Exception {
    try (Admin admin = Admin.create(props(bootstrap, mechanism, user, password))) {
      admin.listTopics().names().get(30, TimeUnit.SECONDS);
      System.out.println("SASL FAIL " + what + " was let in");
      return false;
    } catch (ExecutionException e) {
      boolean sasl = e.getCause() instanceof SaslAuthenticationException;
      System.out.println("SASL " + what + " " + e.getCause().getClass().getSimpleName() + ": " + e.getCause().getMessage());
      return sasl;
    }
  }

  static Properties props(String bootstrap, String mechanism, String user, String password) {
    Properties p = new Properties();
    p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
    p.put(SaslConfigs.SASL_MECHANISM, mechanism);
    String module = mechanism.equals("PLAIN")
        ? "org.apache.kafka.common.security.plain.PlainLoginModule"
        : "org.apache.kafka.common.security.scram.ScramLoginModule";
    p.put(SaslConfigs.SASL_JAAS_CONFIG, module + " required username=\"" + user + "\" password=\"" + password + "\";");
    return p;
  }
}
