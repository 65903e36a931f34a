#!/usr/bin/env bash
# Builds librdkafka's rdkafka_performance (its examples/rdkafka_performance.c) into
# bench/rdkafka/bin, where `npm run bench` looks for it (or set RDKAFKA_PERFORMANCE to another).
#
#   bench/rdkafka/build.sh /path/to/librdkafka        an existing checkout (any git ref checked out)
#   bench/rdkafka/build.sh                            clones https://github.com/confluentinc/librdkafka
#                                                     at $LIBRDKAFKA_REF (default v2.15.0) first
#
# Needs a C toolchain, make, zlib and OpenSSL headers (Debian: build-essential zlib1g-dev libssl-dev).
# The library is linked statically into the binary, so nothing is installed system-wide.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
ref="${LIBRDKAFKA_REF:-v2.15.0}"
src="${1:-}"
if [ -z "$src" ]; then
  src="$here/librdkafka"
  if [ ! -d "$src/.git" ]; then
    echo "cloning librdkafka $ref into $src" >&2
    git clone --quiet --depth 1 --branch "$ref" https://github.com/confluentinc/librdkafka "$src"
  fi
fi
[ -f "$src/examples/rdkafka_performance.c" ] || { echo "$src is not a librdkafka checkout (no examples/rdkafka_performance.c)" >&2; exit 2; }
jobs="$(nproc 2>/dev/null || echo 2)"
cd "$src"
echo "building librdkafka in $src ($(git describe --tags 2>/dev/null || echo 'unknown ref')), $jobs jobs" >&2
./configure --disable-zstd --disable-lz4-ext --disable-sasl --disable-curl --disable-gssapi > "$here/configure.log" 2>&1 ||
  { tail -n 20 "$here/configure.log" >&2; exit 1; }
make -j"$jobs" libs > "$here/make.log" 2>&1 || { tail -n 20 "$here/make.log" >&2; exit 1; }
make -C examples rdkafka_performance >> "$here/make.log" 2>&1 || { tail -n 20 "$here/make.log" >&2; exit 1; }
mkdir -p "$here/bin"
cp examples/rdkafka_performance "$here/bin/rdkafka_performance"
"$here/bin/rdkafka_performance" -V 2>&1 | grep -m1 'librdkafka version' >&2 || true
echo "built $here/bin/rdkafka_performance" >&2
