#!/bin/bash
# usage: LIB=<libnvidia-ml.so.1> [RUNS=30] deploy/tools/benchmarks/sigterm-time.sh <plugin executable or java -jar ...>
# Starts the device plugin on the mock dgx-a100 (no kubelet) RUNS times, sends SIGTERM once it serves, and prints
# the crashes and the SIGTERM -> exit times in ms (docs/benchmarks.md, "SIGTERM of the native plugin").
RUNS=${RUNS:-30}; LIB=${LIB:?mock library}
crash=0; times=()
for i in $(seq 1 $RUNS); do
  d=$(mktemp -d /tmp/sigterm-t.XXXX); mkdir -p $d/dp
  port=$(python3 -c 'import socket;s=socket.socket();s.bind(("",0));print(s.getsockname()[1])')
  KGPU_NVML_LIBRARY=$LIB MOCK_NVML_PROFILE=dgx-a100 KUBELET_SOCKET=$d/dp/kubelet.sock DEVICE_PLUGIN_PATH=$d/dp \
    QUARKUS_HTTP_PORT=$port "$@" > $d/out.log 2>&1 &
  pid=$!
  for t in $(seq 1 100); do grep -q "waiting for the kubelet\|serving nvidia" $d/out.log && break; sleep 0.1; done
  sleep 0.3
  t0=$(date +%s%N); kill -TERM $pid; wait $pid; rc=$?; t1=$(date +%s%N)
  times+=($(( (t1-t0)/1000000 )))
  if grep -q "Segfault\|SIGSEGV\|hs_err" $d/out.log || [ $rc -ne 0 ]; then crash=$((crash+1)); echo "run $i rc=$rc CRASH $d"; else rm -rf $d; fi
done
sorted=$(printf "%s\n" "${times[@]}" | sort -n)
echo "crashes: $crash / $RUNS; SIGTERM->exit ms: min $(echo "$sorted"|head -1) p50 $(echo "$sorted"|sed -n "$(( (RUNS+1)/2 ))p") max $(echo "$sorted"|tail -1)"
