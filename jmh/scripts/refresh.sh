#!/usr/bin/env bash
# Runs every suite once, each with the one command documented here, and writes JMH's JSON for each into
# jmh/results/<date>/ together with the machine it ran on and the Markdown tables (jmh/scripts/tables.py).
# Not part of CI: about an hour and a half on a 2-core machine (measured on 2026-11-29: the JDBC, ZooKeeper and
# MongoDB suites 40.5 min, Redis 25.0, etcd 12.7).
# Build first: ./mvnw -B -pl jmh -am package -DskipTests
#
#   jmh/scripts/refresh.sh                 # every suite
#   jmh/scripts/refresh.sh redis jdbc      # some of them (mem, redis, renewal, jdbc, zookeeper, etcd, mongodb)
set -euo pipefail
cd "$(dirname "$0")/../.."
JAR=jmh/target/benchmarks.jar
OUT=jmh/results/$(date -u +%F)
mkdir -p "$OUT"
# short: 1 fork, 2 × 2 s warm-up, 5 × 2 s measurement (the in-memory core, whose C2 share is 0.2 % after it)
SHORT=(-f 1 -wi 2 -w 2 -i 5 -r 2)
# etcd and Redis: the same with 10 × 5 s of warm-up (jetcd, gRPC, Netty and Vert.x, and Redisson on Netty, are still
# being compiled after 2 × 2 s; see EtcdUncontendedBenchmark, EtcdHandoffBenchmark, RedisUncontendedBenchmark and
# RedisContendedBenchmark: checked on each)
LONG=(-f 1 -wi 10 -w 5 -i 5 -r 2)
# JDBC, ZooKeeper and MongoDB: 5 × 5 s of warm-up (after 2 × 2 s the C2 compiler still took 19-28 % of the JVM's CPU
# while Latchkey's uncontended cycle was measured, 8-26 % for the peers' and raw; after 5 × 5 s, 3 % at most:
# jmh/README.md; MariaDB, the hand-offs and the JDBC peers: 3.3 % at most, except Spring's JdbcLockRegistry at 10 %,
# whose score did not rise after 10 × 5 s; session 34)
WARM=(-f 1 -wi 5 -w 5 -i 5 -r 2)

suite() { # name, then JMH arguments
    local name=$1
    shift
    echo "== $name: java -jar $JAR $*" | tee -a "$OUT/commands.txt"
    java -jar "$JAR" "$@" -rf json -rff "$OUT/$name.json" > "$OUT/$name.log" 2>&1
}

{
    echo "date: $(date -u '+%F %T') UTC"
    echo "commit: $(git rev-parse --short HEAD)"
    echo "java: $(java -version 2>&1 | head -1)"
    echo "cores: $(nproc), memory: $(free -g | awk '/Mem:/ {print $2}') GiB, cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
    echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "redis-server: $(redis-server --version 2>/dev/null | awk '{print $3}')"
} > "$OUT/machine.txt"

want() { [ ${#SELECTED[@]} -eq 0 ] || [[ " ${SELECTED[*]} " == *" $1 "* ]]; }
SELECTED=("$@")

want mem && suite mem 'MemCoreOverhead' -prof gc "${SHORT[@]}"
want redis && suite redis-uncontended 'jmh.redis.RedisUncontended' -prof gc "${LONG[@]}"
want redis && suite redis-contended 'jmh.redis.RedisContended' "${LONG[@]}"
want renewal && suite redis-renewal 'jmh.redis.RedisRenewalAtScale' \
    && grep '^RENEWAL' "$OUT/redis-renewal.log" > "$OUT/redis-renewal.txt" # its cost per second, kept in git
want jdbc && suite jdbc-peers 'jmh.jdbc.JdbcPeersBenchmark' "${WARM[@]}"
want jdbc && suite jdbc-raw 'jmh.jdbc.JdbcLockBenchmark' -p dialect=POSTGRESQL,MARIADB -p mode=LEASE "${WARM[@]}"
want zookeeper && suite zookeeper 'jmh.zookeeper.ZooKeeper(Uncontended|Handoff)' "${WARM[@]}"
want etcd && suite etcd 'jmh.etcd.Etcd' "${LONG[@]}"
want mongodb && suite mongodb 'jmh.mongodb.MongoUncontended' "${WARM[@]}"

echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/machine.txt"
python3 jmh/scripts/tables.py "$OUT"/*.json > "$OUT/tables.md"
echo "wrote $OUT"
