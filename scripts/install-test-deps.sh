#!/usr/bin/env bash
# Installs what `npm test` needs beyond npm packages, on Debian/Ubuntu: the one command a fresh
# machine (and CI, .ci/run) runs before `npm ci && npm test`. Idempotent: it installs only what is
# missing and prints what it found.
#   kcat, etcd-server      librdkafka's CLI and etcd for the cluster tests (Debian packages)
#   python3 + confluent-kafka 2.16.1   librdkafka's admin/producer/consumer API (PyPI; pinned)
#   Java 17+ and Maven      the Java client, Kafka Streams and Apache Kafka itself (jars from Maven Central)
#   chromium                the console's browser tests (driven by puppeteer-core; no browser download)
#   openssl                 tributary dev-certs makes the TLS tests' certificates with it
# Needs root or sudo for the Debian packages. Usage: npm run test:deps  (or bash scripts/install-test-deps.sh)
set -euo pipefail

CONFLUENT_KAFKA_VERSION=2.16.1

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo "$@"; else
    echo "install-test-deps: need root or sudo to run: $*" >&2
    exit 1
  fi
}

need_apt=()
command -v kcat >/dev/null 2>&1 || need_apt+=(kcat)
command -v etcd >/dev/null 2>&1 || need_apt+=(etcd-server)
command -v python3 >/dev/null 2>&1 || need_apt+=(python3 python3-pip)
java_major() { java -version 2>&1 | sed -nE 's/.*version "([0-9]+).*/\1/p' | head -1; }
if ! command -v java >/dev/null 2>&1 || [ "$(java_major)" -lt 17 ]; then need_apt+=(openjdk-17-jdk-headless); fi
command -v mvn >/dev/null 2>&1 || need_apt+=(maven)
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v openssl >/dev/null 2>&1 || need_apt+=(openssl)

if [ ${#need_apt[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-test-deps: missing ${need_apt[*]} and no apt-get here: install them by hand" >&2
    exit 1
  fi
  echo "install-test-deps: installing ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -qq
  as_root apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

installed=$(python3 -c "import confluent_kafka; print(confluent_kafka.version())" 2>/dev/null || true)
if [ "$installed" != "$CONFLUENT_KAFKA_VERSION" ]; then
  echo "install-test-deps: installing confluent-kafka==$CONFLUENT_KAFKA_VERSION (found: ${installed:-none})"
  # Debian's system Python refuses pip installs outside a venv (PEP 668) unless told otherwise.
  python3 -m pip install -q "confluent-kafka==$CONFLUENT_KAFKA_VERSION" 2>/dev/null ||
    python3 -m pip install -q --break-system-packages "confluent-kafka==$CONFLUENT_KAFKA_VERSION"
fi

echo "install-test-deps: ready: kcat, $(etcd --version 2>&1 | head -1)," \
  "confluent-kafka $(python3 -c 'import confluent_kafka as c; print(c.version(), "with librdkafka", c.libversion()[0])')," \
  "java $(java_major), $(mvn -v 2>/dev/null | sed 's/\x1b\[[0-9;]*m//g' | head -1)"
