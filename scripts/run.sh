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

# A short Offline run: 5 s minimum, a query of at least 64 samples.
cat > "$OUT/user.conf" <<'CONF'
resnet50.Offline.target_qps = 10
resnet50.Offline.min_duration = 5000
resnet50.Offline.min_query_count = 64
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
