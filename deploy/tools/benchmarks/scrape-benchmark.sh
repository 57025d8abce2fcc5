#!/usr/bin/env bash
# Scrape benchmark of the exporter on the mock NVML with pod attribution on.
#
#   deploy/tools/benchmarks/scrape-benchmark.sh [GPUS...]        GPUS from 8, 64, 256 (default: all three)
#
# For each node size it starts the fake kubelet (every GPU held by a pod), starts the packaged exporter
# (collecting every INTERVAL_MS, default 1000, so collection competes with the load), records RSS at rest,
# runs wrk (DURATION seconds, CONNECTIONS connections) against /metrics, and records latency percentiles,
# throughput and RSS after the load. SOAK_SECONDS>0 adds a soak at the first size: wrk for that long, RSS
# sampled every 60 s. Results go to deploy/tools/benchmarks/target/scrape-benchmark/results.md. Needs wrk (apt-get install -y wrk).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
export JAVA_HOME
JAVA="$JAVA_HOME/bin/java"
DURATION=${DURATION:-30}
CONNECTIONS=${CONNECTIONS:-16}
INTERVAL_MS=${INTERVAL_MS:-1000}
SOAK_SECONDS=${SOAK_SECONDS:-0}
PORT=${PORT:-19400}
# TrimNativeHeapInterval: glibc keeps what the JIT and NVML free; without trimming RSS creeps up by
# several MiB a minute for the first tens of minutes although nothing leaks (System.trim_native_heap
# gives it back at once)
JVM_OPTS=${JVM_OPTS:--XX:+UseSerialGC -Xmx64m -XX:TrimNativeHeapInterval=10000 -XX:+ExitOnOutOfMemoryError}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(8 64 256)
command -v wrk >/dev/null || { echo "wrk is not installed: apt-get install -y wrk" >&2; exit 1; }

out=deploy/tools/benchmarks/target/scrape-benchmark
mkdir -p "$out"
if [ ! -f exporter/target/quarkus-app/quarkus-run.jar ] || [ ! -d deploy/tools/simulated-cluster/target/classes ]; then
  ./mvnw -B -q -pl exporter,deploy/tools/simulated-cluster -am package -DskipTests
fi
lib="$root/nvml-ffm/nvml/target/mock/libnvidia-ml.so.1"
[ -f "$lib" ] || ./mvnw -B -q -pl nvml-ffm/nvml generate-resources
# the fake kubelet (the simulated cluster's FakePodResourcesServer) on the exporter's libraries: kubelet-api, grpc-netty
cp="deploy/tools/simulated-cluster/target/classes:$(ls exporter/target/quarkus-app/lib/main/*.jar | tr '\n' ':')"

# the 64-GPU node: large-256's H100s, 64 of them
python3 - "$root/nvml-ffm/nvml/mock/profiles/large-256.json" "$out/h100-64.json" <<'PY'
import json, sys
profile = json.load(open(sys.argv[1]))
profile["gpus"][0]["repeat"] = 64
profile["description"] = "64x H100 (large-256 cut to 64 GPUs for the exporter benchmark)"
json.dump(profile, open(sys.argv[2], "w"), indent=1)
PY

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }

profile_for() {
  case "$1" in
    8) echo dgx-h100 ;;
    64) echo "$root/$out/h100-64.json" ;;
    256) echo large-256 ;;
    *) echo "no node of $1 GPUs (use 8, 64 or 256)" >&2; exit 2 ;;
  esac
}

results="$out/results.md"
{
  echo "| GPUs | series | body bytes | p50 / p99, 2 scrapers | p50 / p99, $CONNECTIONS scrapers | scrapes/s, $CONNECTIONS scrapers | RSS at rest | RSS after load |"
  echo "|---|---|---|---|---|---|---|---|"
} > "$results"

first=1
for gpus in "${sizes[@]}"; do
  profile=$(profile_for "$gpus")
  sock="$out/kubelet-$gpus.sock"
  rm -f "$sock"
  KGPU_NVML_LIBRARY="$lib" MOCK_NVML_PROFILE="$profile" "$JAVA" --enable-native-access=ALL-UNNAMED -cp "$cp" \
      dev.kgpu.sim.podresources.FakePodResourcesServer --socket="$sock" --every-gpu > "$out/kubelet-$gpus.log" 2>&1 &
  kubelet=$!; pids+=("$kubelet")
  for _ in $(seq 1 100); do [ -S "$sock" ] && grep -q serving "$out/kubelet-$gpus.log" && break; sleep 0.2; done

  KGPU_NVML_LIBRARY="$lib" MOCK_NVML_PROFILE="$profile" DCGM_EXPORTER_KUBERNETES=true \
      DCGM_POD_RESOURCES_KUBELET_SOCKET="$sock" DCGM_EXPORTER_LISTEN="127.0.0.1:$PORT" \
      DCGM_EXPORTER_INTERVAL="$INTERVAL_MS" NODE_NAME=bench-node \
      "$JAVA" $JVM_OPTS --enable-native-access=ALL-UNNAMED -jar exporter/target/quarkus-app/quarkus-run.jar \
      > "$out/exporter-$gpus.log" 2>&1 &
  exporter=$!; pids+=("$exporter")
  for _ in $(seq 1 150); do curl -sf "http://127.0.0.1:$PORT/metrics" 2>/dev/null | grep -q 'pod="' && break; sleep 0.2; done
  sleep $(( INTERVAL_MS * 3 / 1000 + 1 ))   # GPM needs two collections before profiling series appear
  curl -sf "http://127.0.0.1:$PORT/metrics" > "$out/metrics-$gpus.txt"
  series=$(grep -vc '^#' "$out/metrics-$gpus.txt")
  bytes=$(wc -c < "$out/metrics-$gpus.txt")
  sleep 10
  rest=$(rss_kib "$exporter")

  wrk -t2 -c"$CONNECTIONS" -d5s "http://127.0.0.1:$PORT/metrics" > /dev/null       # warm-up
  wrk -t1 -c2 -d"${DURATION}s" --latency "http://127.0.0.1:$PORT/metrics" > "$out/wrk-c2-$gpus.txt"
  wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency "http://127.0.0.1:$PORT/metrics" > "$out/wrk-$gpus.txt"
  after=$(rss_kib "$exporter")
  l50=$(awk '$1=="50%" {print $2}' "$out/wrk-c2-$gpus.txt")
  l99=$(awk '$1=="99%" {print $2}' "$out/wrk-c2-$gpus.txt")
  p50=$(awk '$1=="50%" {print $2}' "$out/wrk-$gpus.txt")
  p99=$(awk '$1=="99%" {print $2}' "$out/wrk-$gpus.txt")
  rps=$(awk '/^Requests\/sec/ {print $2}' "$out/wrk-$gpus.txt")
  echo "| $gpus | $series | $bytes | $l50 / $l99 | $p50 / $p99 | $rps | $((rest / 1024)) MiB | $((after / 1024)) MiB |" >> "$results"

  if [ "$first" = 1 ] && [ "$SOAK_SECONDS" -gt 0 ]; then
    echo "" > "$out/soak-$gpus.txt"
    wrk -t2 -c"$CONNECTIONS" -d"${SOAK_SECONDS}s" --latency "http://127.0.0.1:$PORT/metrics" > "$out/wrk-soak-$gpus.txt" &
    load=$!
    start_rss=$(rss_kib "$exporter")
    elapsed=0
    while kill -0 "$load" 2>/dev/null; do
      echo "$elapsed s: $(( $(rss_kib "$exporter") / 1024 )) MiB" >> "$out/soak-$gpus.txt"
      sleep 60; elapsed=$((elapsed + 60))
    done
    end_rss=$(rss_kib "$exporter")
    {
      echo ""
      echo "Soak at $gpus GPUs, ${SOAK_SECONDS} s of wrk -c$CONNECTIONS: RSS $((start_rss / 1024)) MiB -> $((end_rss / 1024)) MiB"
      echo "(growth $(awk -v a="$start_rss" -v b="$end_rss" 'BEGIN {printf "%.1f", (b - a) * 100 / a}') %);"
      echo "$(awk '/^Requests\/sec/ {print $2}' "$out/wrk-soak-$gpus.txt") scrapes/s,"\
           "p50 $(awk '$1=="50%" {print $2}' "$out/wrk-soak-$gpus.txt"), p99 $(awk '$1=="99%" {print $2}' "$out/wrk-soak-$gpus.txt")"
      echo "RSS each minute: $(tr '\n' ';' < "$out/soak-$gpus.txt")"
    } >> "$results"
  fi
  first=0
  kill "$exporter" "$kubelet"; wait "$exporter" "$kubelet" 2>/dev/null || true
  pids=()
done
echo "load average at the end (other work on the machine): $(cut -d' ' -f1-3 /proc/loadavg)" >> "$results"
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo) MiB, $(uname -r); JVM: $("$JAVA" -version 2>&1 | head -1); flags: $JVM_OPTS; interval ${INTERVAL_MS} ms; wrk -t2 -c$CONNECTIONS -d${DURATION}s" >> "$results"
cat "$results"
