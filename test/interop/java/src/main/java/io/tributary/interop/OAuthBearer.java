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
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * SASL/OAUTHBEARER with the Java 4.4 client and a fixed token: Kafka's own login callback handler
 * with sasl.oauthbearer.token.endpoint.url=file:..., which reads the token from the file (the
 * FileJwtRetriever path); the file must be allowed by the system properties
 * org.apache.kafka.sasl.oauthbearer.allowed.urls / .allowed.files, which the calling test sets.
 *
 * <p>Usage: {@code OAuthBearer HOST:PORT TOPIC TOKEN_FILE ok|refused}.
 * <ul>
 *   <li>ok: creates TOPIC, produces 3 records and reads them back (assign + seek); prints
 *       {@code OAUTHBEARER OK 3}.
 *   <li>refused: describeCluster must fail with SaslAuthenticationException; prints
 *       {@code OAUTHBEARER REFUSED <message>}.
 * </ul>
 * Anything else prints {@code OAUTHBEARER FAIL ...} and exits 1.
 */
public final class OAuthBearer {
  public static void main(String[] args) throws Exception {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }
    String bootstrap = args[0];
    String topic = args[1];
    String tokenUrl = java.nio.file.Path.of(args[2]).toUri().toString();
    boolean ok;
    if (args[3].equals("ok")) ok = roundTrip(bootstrap, topic, tokenUrl);
    else ok = refused(bootstrap, tokenUrl);
    System.out.flush();
    Runtime.getRuntime().halt(ok ? 0 : 1);
  }

  static Properties security(String bootstrap, String tokenUrl) {
    Properties p = new Properties();
    p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
    p.put("sasl.mechanism", "OAUTHBEARER");
    p.put("sasl.login.callback.handler.class", "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler");
    p.put("sasl.oauthbearer.token.endpoint.url", tokenUrl);
    p.put("sasl.jaas.config", "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required ;");
    return p;
  }

  static boolean roundTrip(String bootstrap, String topic, String tokenUrl) throws Exception {
    try (Admin admin = Admin.create(security(bootstrap, tokenUrl))) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }
    Properties pp = security(bootstrap, tokenUrl);
    pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
      for (int i = 0; i < 3; i++) producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
    }
    Properties cp = security(bootstrap, tokenUrl);
    cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    List<String> seen = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp)) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long deadline = System.currentTimeMillis() + 30_000;
      while (seen.size() < 3 && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) seen.add(r.value());
      }
    }
    if (!seen.equals(List.of("v0", "v1", "v2"))) {
      System.out.println("OAUTHBEARER FAIL read " + seen);
      return false;
    }
    System.out.println("OAUTHBEARER OK " + seen.size());
    return true;
  }

  static boolean refused(String bootstrap, String tokenUrl) throws Exception {
    try (Admin admin = Admin.create(security(bootstrap, tokenUrl))) {
      admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS);
      System.out.println("OAUTHBEARER FAIL the broker accepted the token");
      return false;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof SaslAuthenticationException) {
        System.out.println("OAUTHBEARER REFUSED " + e.getCause().getMessage());
        return true;
      }
      System.out.println("OAUTHBEARER FAIL " + e.getCause());
      return false;
    }
  }
}
