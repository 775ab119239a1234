#!/usr/bin/env bash
# Starts the real services Varal's tests need and prints what it started.
# Idempotent: a service that already answers is left alone.
#   Redis, RabbitMQ (+ management, shovel), PostgreSQL: the machine's own, started if stopped,
#     installed from Debian's packages if missing.
#   Apache Kafka (KRaft, one broker) and ElasticMQ (SQS): jars from Maven Central, run on the JRE.
# State lives in .services/ (git-ignored); VARAL_SERVICES_DIR moves it.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
state=${VARAL_SERVICES_DIR:-$root/.services}
mkdir -p "$state"

say() { printf 'services: %s\n' "$*"; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_until() { # wait_until SECONDS DESCRIPTION COMMAND...
  local limit=$1 what=$2; shift 2
  local deadline=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      say "$what did not come up within ${limit}s"
      return 1
    fi
    sleep 1
  done
}

apt_updated=
apt_install() {
  if [ -z "$apt_updated" ]; then apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

need_command() { # need_command COMMAND DEBIAN_PACKAGE
  command -v "$1" >/dev/null 2>&1 || { say "installing $2"; apt_install "$2"; }
}

start_redis() {
  if port_open 6379; then say "redis already running on 6379"; return; fi
  need_command redis-server redis-server
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  wait_until 30 redis port_open 6379
  say "started redis on 6379"
}

start_postgres() {
  if port_open 5432; then say "postgresql already running on 5432"; return; fi
  need_command pg_ctlcluster postgresql
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start
  wait_until 60 postgresql port_open 5432
  say "started postgresql on 5432"
}

rabbit_management_ok() { curl -sf -u guest:guest http://127.0.0.1:15672/api/overview; }

start_rabbitmq() {
  if ! port_open 5672; then
    need_command rabbitmq-server rabbitmq-server
    rabbitmq-server -detached
    wait_until 90 rabbitmq port_open 5672
    say "started rabbitmq on 5672"
  else
    say "rabbitmq already running on 5672"
  fi
  if ! rabbit_management_ok >/dev/null 2>&1; then
    wait_until 60 "rabbitmq node" rabbitmqctl await_startup
    rabbitmq-plugins enable --quiet rabbitmq_management rabbitmq_shovel rabbitmq_shovel_management >/dev/null
    wait_until 60 "rabbitmq management API" rabbit_management_ok
    say "enabled rabbitmq management API on 15672"
  fi
}

fetch_jars() { # fetch_jars NAME: copies the artifacts named in scripts/services/NAME.pom.xml
  local name=$1 lib="$state/$1/lib"
  if [ -f "$lib/.complete" ]; then return; fi
  need_command java default-jre-headless
  need_command mvn maven
  say "fetching $name from Maven Central"
  rm -rf "$lib"
  mvn -q -f "$root/scripts/services/$name.pom.xml" dependency:copy-dependencies -DoutputDirectory="$lib"
  touch "$lib/.complete"
}

start_kafka() {
  # The tests run Kafka's own tools (ConsumerGroupCommand) from these jars, whoever
  # started the broker.
  fetch_jars kafka
  if port_open 9092; then
    if ! port_open 9094; then
      say "a Kafka on 9092 lacks the PROXIED listener on 9094 (scripts/services/kafka.properties): stop it and run this again"
      exit 1
    fi
    say "kafka already running on 9092"
    return
  fi
  local dir="$state/kafka"
  mkdir -p "$dir/data"
  sed "s|@DATA@|$dir/data|" "$root/scripts/services/kafka.properties" > "$dir/server.properties"
  local java=(java -Xmx512m -Dlog4j.configuration="file:$root/scripts/services/kafka-log4j.properties" -cp "$dir/lib/*")
  if [ ! -f "$dir/data/meta.properties" ]; then
    local cluster_id
    cluster_id=$("${java[@]}" kafka.tools.StorageTool random-uuid)
    "${java[@]}" kafka.tools.StorageTool format -t "$cluster_id" -c "$dir/server.properties" >/dev/null
  fi
  nohup "${java[@]}" -Dkafka.logs.dir="$dir" kafka.Kafka "$dir/server.properties" > "$dir/kafka.log" 2>&1 &
  echo $! > "$dir/pid"
  wait_until 120 kafka port_open 9092
  say "started kafka (KRaft) on 9092"
}

start_elasticmq() {
  if port_open 9324; then say "elasticmq already running on 9324"; return; fi
  fetch_jars elasticmq
  local dir="$state/elasticmq"
  nohup java -Xmx256m -Dconfig.file="$root/scripts/services/elasticmq.conf" \
    -cp "$dir/lib/*" org.elasticmq.server.Main > "$dir/elasticmq.log" 2>&1 &
  echo $! > "$dir/pid"
  wait_until 60 elasticmq port_open 9324
  say "started elasticmq on 9324"
}

need_command curl curl
start_redis
start_postgres
start_rabbitmq
start_kafka
start_elasticmq
say "all services answer"
