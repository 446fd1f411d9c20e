#!/usr/bin/env bash
# make run: a real benchmark end to end on the built-in synthetic model and data.
#
# ResNet50-v1.5 on the synthetic full-size model (the real architecture,
# seeded random weights) and a synthetic ImageNet-format data set: an Offline
# performance run kept short by a user.conf, then an accuracy run and its
# score. Outputs (LoadGen logs) land in out/make-run/.
set -euo pipefail
BIN=${1:-bin/mlperf}
OUT=${MLPERF_RUN_OUT:-out/make-run}
mkdir -p "$OUT"
"$BIN" version

# A short Offline run: 5 s minimum; a query of 1.1 × 5 s × 60 = 330 samples.
cat > "$OUT/user.conf" <<'CONF'
resnet50.Offline.target_qps = 60
resnet50.Offline.min_duration = 5000
resnet50.Offline.min_query_count = 1
CONF

echo
echo "== ResNet50 Offline performance (synthetic model and data)"
"$BIN" run resnet50 --scenario Offline --mode performance \
  --model synthetic --data synthetic --user-conf "$OUT/user.conf" \
  --out "$OUT/resnet50-offline-performance"

echo
echo "== ResNet50 Offline accuracy (synthetic model and data)"
"$BIN" run resnet50 --scenario Offline --mode accuracy \
  --model synthetic --data synthetic --user-conf "$OUT/user.conf" \
  --out "$OUT/resnet50-offline-accuracy"

echo
echo "== The loadgen alone: every scenario against a SUT with a 1 ms service time (2 workers)"
# Server: 500 QPS is a quarter of what 2 workers at 1 ms serve, and the
# 50 ms bound leaves room for a busy machine's scheduling hiccups; 1000
# queries let early stopping tolerate a few samples over it (at least
# 459 are needed with none over). An INVALID run prints why.
cat > "$OUT/loadgen.conf" <<'CONF'
*.*.min_duration = 1000
*.*.min_query_count = 100
*.SingleStream.target_latency = 1
*.MultiStream.target_latency = 2
*.Server.target_qps = 500
*.Server.target_latency = 50
*.Server.min_query_count = 1000
*.Offline.target_qps = 20000
CONF
for sc in SingleStream MultiStream Server Offline; do
  "$BIN" loadgen --scenario "$sc" --sut delay --service-time 1ms --workers 2 --batch 8 \
    --user-conf "$OUT/loadgen.conf" --out "$OUT/loadgen-$sc"
done
