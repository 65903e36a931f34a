package io.tributary.interop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Java 4.4 clients over TLS with PEM stores (ssl.truststore.type=PEM, and for mTLS
 * ssl.keystore.type=PEM with a file holding the key and its certificate).
 *
 * <p>Usage: {@code TlsClients HOST:PORT TOPIC CA_PEM [KEYSTORE_PEM]}. Creates TOPIC, sends 3
 * records with the default (idempotent, acks=all) producer, reads them back with a group-less
 * consumer, and prints {@code TLS OK <values>}; when the admin client cannot reach the broker
 * within 10 s (a refused handshake) prints {@code TLS REFUSED <exception>}. Exit 0 either way;
 * the calling test decides.
 */
public final class TlsClients {
  public static void main(String[] args) throws Exception {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "error");
    }
    Properties tls = new Properties();
    tls.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, args[0]);
    tls.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
    tls.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
    tls.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, args[2]);
    if (args.length > 3) {
      tls.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PEM");
      tls.put(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, args[3]);
    }
    String topic = args[1];

    Properties a = new Properties();
    a.putAll(tls);
    a.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    a.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
    try (Admin admin = Admin.create(a)) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(15, TimeUnit.SECONDS);
    } catch (Exception e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      System.out.println("TLS REFUSED " + cause.getClass().getSimpleName());
      System.out.flush();
      Runtime.getRuntime().halt(0);
    }

    Properties p = new Properties();
    p.putAll(tls);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      for (int i = 0; i < 3; i++) producer.send(new ProducerRecord<>(topic, 0, null, "java-" + i)).get(30, TimeUnit.SECONDS);
    }

    Properties c = new Properties();
    c.putAll(tls);
    c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c)) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long deadline = System.currentTimeMillis() + 30_000;
      while (values.size() < 3 && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) values.add(r.value());
      }
    }
    System.out.println("TLS OK " + String.join(",", values));
    System.out.flush();
    Runtime.getRuntime().halt(0);
  }
}
