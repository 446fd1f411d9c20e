#!/usr/bin/env bash
# scripts/device/run.sh: the GPU checks of issue 33 in one call of the
# device tool, within a time budget, everything written under $OUT:
#
#   summary.txt  the compact result (what a session reports)
#   log.txt      every command and its output
#   results.tgz  each parity table, conformance list and run summary
#
# Steps, each skipped (and said so) when the budget is spent:
#   1. unpack the payload staged by stage.sh and carried by receive.sh
#      (sha256-checked), or with --local use this checkout's build;
#   2. the machine: GPU, driver, where the CUDA libraries are;
#   3. probe: the provider under test opens a tiny model with no
#      LD_LIBRARY_PATH for CUDA (ort's own search); if it cannot, the
#      message is kept and the NVIDIA Python packages' folders are put on
#      LD_LIBRARY_PATH for the rest; --backend tensorrt must say TensorRT
#      is missing;
#   4. parity against the CPU provider (fp32: use_tf32=0) on every
#      benchmark's tiny synthetic model, then on the full ones of --full;
#   5. ONNX's backend test data on the provider and on the CPU;
#   6. mlperf run of every benchmark with --backend: Offline (a first short
#      run measures samples/s, a second runs at 1.1 times that so that it
#      is VALID) and SingleStream where the benchmark has it, and the same
#      model's Offline on the CPU provider for the throughput beside it.
#
# Usage: scripts/device/run.sh [--backend cuda] [--budget SECONDS] [--full "B ..."]
#        [--out DIR] [--local] [--only-parity]
# --backend cpu with --local is the dry run on a machine without a GPU.
# BENCHES (default every benchmark) narrows the benchmarks, e.g. for a
# quicker dry run.
set -uo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
BACKEND=cuda
BUDGET=480
FULL="resnet50 bert retinanet unet3d"
LOCAL=0
ONLY_PARITY=0
OUTDIR=${OUT:-$REPO/out/device}
while [ $# -gt 0 ]; do
  case $1 in
    --backend) BACKEND=$2; shift 2 ;;
    --budget) BUDGET=$2; shift 2 ;;
    --full) FULL=$2; shift 2 ;;
    --out) OUTDIR=$2; shift 2 ;;
    --local) LOCAL=1; shift ;;
    --only-parity) ONLY_PARITY=1; shift ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
START=$(date +%s)
DEADLINE=$((START + BUDGET))
mkdir -p "$OUTDIR"
SUMMARY=$OUTDIR/summary.txt
LOG=$OUTDIR/log.txt
RES=$(mktemp -d)/results
mkdir -p "$RES"
: >"$SUMMARY"
: >"$LOG"
say() { echo "$*" | tee -a "$SUMMARY" >>"$LOG"; }
left() { echo $((DEADLINE - $(date +%s))); }
elapsed() { echo $(($(date +%s) - START)); }
# step NAME NEED TIMEOUT CMD...: runs CMD (output to RES/NAME.txt and the
# log) when NEED seconds are left, at most TIMEOUT seconds; returns its
# status (124 on timeout, 125 when skipped).
step() {
  local name=$1 need=$2 max=$3
  shift 3
  if [ "$(left)" -lt "$need" ]; then
    say "SKIPPED $name: $(left) s of the budget left, it needs about $need"
    return 125
  fi
  local t=$(( $(left) - 5 ))
  [ "$t" -gt "$max" ] && t=$max
  echo "== [$(elapsed)s] $name: $*" >>"$LOG"
  local s=$(date +%s)
  timeout "$t" bash -c '"$@"' _ "$@" >"$RES/$name.txt" 2>&1
  local rc=$?
  cat "$RES/$name.txt" >>"$LOG"
  echo "== $name: exit $rc after $(( $(date +%s) - s ))s" >>"$LOG"
  [ $rc -eq 124 ] && say "TIMEOUT $name after ${t}s"
  return $rc
}
finish() {
  say "elapsed $(elapsed)s of a ${BUDGET}s budget"
  tar -C "$(dirname "$RES")" -czf "$OUTDIR/results.tgz" results 2>/dev/null
  rm -rf "$(dirname "$RES")"
}
trap finish EXIT

# 1. The payload.
if [ $LOCAL = 1 ]; then
  W=$(mktemp -d /tmp/mlperf-device-local.XXXXXX)
  mkdir -p "$W/bin"
  go build -ldflags "-X main.revision=$(git rev-parse HEAD)" -o "$W/bin/mlperf" ./cmd/mlperf || { say "FAIL build"; exit 1; }
  export ONNXRUNTIME_SHARED_LIBRARY_PATH=${ONNXRUNTIME_SHARED_LIBRARY_PATH:-$REPO/.deps/onnxruntime/libonnxruntime.so.1}
  export MLPERF_DEPS=${MLPERF_DEPS:-$REPO/.deps}
  TESTDATA=${MLPERF_ONNX_TESTDATA:-/usr/share/libonnx-testdata/data}
else
  STAGE=${MLPERF_GPU_STAGE:-/tmp/mlperf-gpu-stage}
  W=${MLPERF_GPU_WORK:-/tmp/mlperf-gpu}
  if [ ! -x "$W/bin/mlperf" ]; then
    [ -f "$STAGE/MANIFEST" ] || { say "FAIL payload: no $STAGE/MANIFEST: run receive.sh with each chunk first"; exit 1; }
    want=$(awk '$1 == "parts" {print $2}' "$STAGE/MANIFEST")
    sum=$(awk '$1 == "sha256" {print $2}' "$STAGE/MANIFEST")
    have=$(find "$STAGE" -maxdepth 1 -name 'part-*' | wc -l)
    [ "$have" = "$want" ] || { say "FAIL payload: $have of $want parts in $STAGE"; exit 1; }
    got=$(cat "$STAGE"/part-* | sha256sum | cut -d' ' -f1)
    [ "$got" = "$sum" ] || { say "FAIL payload: sha256 $got, want $sum"; exit 1; }
    mkdir -p "$W"
    unxz() { if command -v xz >/dev/null; then xz -d -T0; else python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.stdin.buffer), sys.stdout.buffer, 1<<20)'; fi; }
    cat "$STAGE"/part-* | unxz | tar -x -C "$W" || { say "FAIL payload: unpacking"; exit 1; }
    rm -f "$STAGE"/part-*
  fi
  export ONNXRUNTIME_SHARED_LIBRARY_PATH=$W/onnxruntime/libonnxruntime.so.1
  export MLPERF_DEPS=$W/deps
  export LD_LIBRARY_PATH=$W/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  TESTDATA=$W/onnx-testdata
fi
BIN=$W/bin/mlperf
export MLPERF_CACHE_DIR=$W/cache
CACHE=$MLPERF_CACHE_DIR
mkdir -p "$CACHE"
say "payload ready in $(elapsed)s: $("$BIN" version | head -1)"

# 2. The machine.
{
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 | sed 's/^/gpu: /'
  echo "cpu: $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
  echo "LD_LIBRARY_PATH at start: ${LD_LIBRARY_PATH:-unset}"
  for py in $(for p in $(type -a -P python3 2>/dev/null); do readlink -f "$p"; done | sort -u); do
    echo "python3: $py: $("$py" -c 'import site,glob,os; print(" ".join(sorted({os.path.basename(os.path.dirname(d)) for s in site.getsitepackages() for d in glob.glob(os.path.join(s,"nvidia","*","lib"))})) or "no nvidia/*/lib")' 2>&1 | tail -1)"
  done
} >"$RES/machine.txt" 2>&1
cat "$RES/machine.txt" | tee -a "$SUMMARY" >>"$LOG"

# Every registered benchmark, those of the issue first.
FIRST="resnet50 bert retinanet unet3d sdxl"
if [ -z "${BENCHES:-}" ]; then
  BENCHES=$FIRST
  for b in $("$BIN" list 2>/dev/null | awk '/^benchmarks:/ {f=1; next} /^data sets:/ {f=0} f && /^  [a-z0-9]/ {print $1}'); do
    [[ " $FIRST " == *" $b "* ]] || BENCHES="$BENCHES $b"
  done
fi
say "benchmarks: $BENCHES"
EP=()
[ "$BACKEND" = cuda ] && EP=(--ep-option use_tf32=0)
# The tiny SDXL UNet's latents are 8x8 and its text sequence 77 long (a
# dynamic dimension of 1 does not fit its down- and up-sampling).
SHAPES=(--shape sample=1,4,8,8 --shape encoder_hidden_states=1,77,96)
tinysize() { case $1 in *) echo tiny ;; esac; }
fullsize() { case $1 in llama2) echo 7b ;; whisper) echo large-v3 ;; *) echo full ;; esac; }
build() { # build B SIZE: the cache layout mlperf run uses
  local d=$CACHE/$1-synthetic-$2
  [ -f "$d/model.onnx" ] && return 0
  mkdir -p "$d.tmp" && "$BIN" model build "$1" --size "$2" -o "$d.tmp/model.onnx" && mv "$d.tmp" "$d"
}
export -f build
export BIN CACHE
# verdict FILE: the parity file's last line, its worst max abs/rel and times.
verdict() {
  local f=$1
  local pass fail worst times
  pass=$(grep -c '^PASS$' "$f")
  fail=$(grep -c -E '^(FAIL|UNAVAILABLE)$' "$f")
  worst=$(awk '/^output +type/ {t=1; next} t && NF >= 7 && $4 ~ /^[0-9.e+-]+$/ {if ($4+0 > a) a = $4+0; if ($5+0 > r) r = $5+0} /^(PASS|FAIL)$/ {t=0} END {printf "max abs %g, max rel %g", a, r}' "$f")
  times=$(grep -o 'time per run.*' "$f" | sed 's/time per run (median of [0-9]*): //' | paste -sd';' | cut -c1-300)
  echo "$pass passed, $fail failed; $worst; $times"
}

# 3. Probe.
step build-resnet50-tiny 30 120 build resnet50 tiny
PROBE_MODEL=$CACHE/resnet50-synthetic-tiny/model.onnx
FALLBACK=no
if step probe 20 60 "$BIN" parity --model "$PROBE_MODEL" --backend "$BACKEND" --runs 0; then
  say "PASS probe: $BACKEND opens a model with ort's own library search (no LD_LIBRARY_PATH for CUDA)"
else
  say "FAIL probe: $BACKEND does not open a model by itself:"
  grep -v '^$' "$RES/probe.txt" | head -14 | sed 's/^/  /' | tee -a "$SUMMARY" >/dev/null
  dirs=$(python3 -c 'import site,glob,os; print(":".join(sorted({d for s in site.getsitepackages() for d in glob.glob(os.path.join(s,"nvidia","*","lib"))})))' 2>/dev/null)
  if [ -n "$dirs" ]; then
    export LD_LIBRARY_PATH=$dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    FALLBACK=yes
    if step probe-ld 20 60 "$BIN" parity --model "$PROBE_MODEL" --backend "$BACKEND" --runs 0; then
      say "PASS probe with LD_LIBRARY_PATH=<python3's nvidia/*/lib> (the rest runs with it)"
    else
      say "FAIL probe with LD_LIBRARY_PATH too:"
      grep -v '^$' "$RES/probe-ld.txt" | head -8 | sed 's/^/  /' | tee -a "$SUMMARY" >/dev/null
      exit 1
    fi
  else
    exit 1
  fi
fi
if [ "$BACKEND" = cuda ]; then
  step tensorrt 10 60 "$BIN" parity --model "$PROBE_MODEL" --backend tensorrt --runs 0
  rc=$?
  if [ $rc = 1 ] && grep -q "TensorRT is not installed on this machine" "$RES/tensorrt.txt"; then
    say "PASS tensorrt without TensorRT says so: $(grep -m1 -o 'tensorrt cannot start: [^:]*' "$RES/tensorrt.txt")"
  elif [ $rc = 0 ]; then
    say "NOTE tensorrt runs here (TensorRT is installed): $(verdict "$RES/tensorrt.txt")"
  else
    say "FAIL tensorrt message (exit $rc): $(grep -v '^$' "$RES/tensorrt.txt" | head -3 | tr '\n' ' ')"
  fi
fi

# summ DIR: samples/s, the 90th percentile latency and validity of a run.
summ() {
  local f=$1/mlperf_log_summary.txt
  [ -f "$f" ] || { echo "no summary (see log)"; return; }
  local sps p90 valid
  sps=$(awk -F': ' '/^Samples per second/ {print $2}' "$f")
  p90=$(awk -F': ' '/^90.00 percentile latency/ {printf "%.2f ms", $2/1e6}' "$f")
  valid=$(awk -F': ' '/^Result is/ {print $2}' "$f")
  echo "${sps:+$sps samples/s, }p90 ${p90:-?}, ${valid:-?}"
}
rate() { awk -F': ' '/^Samples per second/ {print $2}' "$1/mlperf_log_summary.txt" 2>/dev/null; }
# offline NAME B SIZE PROVIDER QPS PASSES SECONDS: Offline runs until one is
# VALID: each next pass asks 1.15 times the measured rate, or twice the
# last qps when the run ended before its minimum duration (too few
# samples to measure the rate); the last pass's folder is $RES/runs/NAME.
offline() {
  local name=$1 b=$2 size=$3 prov=$4 q=$5 passes=$6 secs=$7 k r
  for k in $(seq 1 "$passes"); do
    rm -rf "$RES/runs/$name"
    step "run-$name-$k" 25 150 "$BIN" run "$b" --model "synthetic:$size" --data synthetic --min-queries 1 --backend "$prov" \
      --scenario Offline --duration "${secs}s" --qps "$q" --out "$RES/runs/$name" || [ $? = 1 ] || return
    grep -q '^Result is : VALID' "$RES/runs/$name/mlperf_log_summary.txt" 2>/dev/null && return
    r=$(rate "$RES/runs/$name")
    [ -n "$r" ] || return
    if grep -q 'Min duration satisfied : NO' "$RES/runs/$name/mlperf_log_summary.txt"; then
      q=$(awk -v r="$r" -v q="$q" 'BEGIN {a = 1.15 * r; b = 2 * q; printf "%.3f", (a > b ? a : b)}')
    else
      q=$(awk -v r="$r" 'BEGIN {printf "%.3f", 1.15 * r}')
    fi
  done
}
# singlestream NAME B SIZE PROVIDER SECONDS: a probe of 7 queries gives
# the median latency; the run then asks for enough queries to last 1.5
# times SECONDS, at least the 64 early stopping needs unless that would
# take over 25 s (then INVALID for too few queries), with a target latency
# so long that the loadgen's own estimate asks for no more.
singlestream() {
  local name=$1 b=$2 size=$3 prov=$4 secs=$5 med n extra=()
  # llama3.1-8b runs SingleStream as its edge variant only.
  [ "$b" = llama3.1-8b ] && extra=(--model-name llama3_1-8b-edge)
  printf '*.SingleStream.target_latency = 100000\n' >"$RES/ss.conf"
  local args=(run "$b" --model "synthetic:$size" --data synthetic --backend "$prov" --scenario SingleStream --user-conf "$RES/ss.conf" "${extra[@]}")
  step "run-$name-probe" 20 90 "$BIN" "${args[@]}" --duration 1ms --min-queries 7 --out "$RES/runs/$name-probe" || [ $? = 1 ] || return
  med=$(awk -F': ' '/^50.00 percentile latency/ {print $2}' "$RES/runs/$name-probe/mlperf_log_summary.txt" 2>/dev/null)
  [ -n "$med" ] || return
  n=$(awk -v m="$med" -v s="$secs" 'BEGIN {n = int(1.5 * s * 1e9 / m) + 1; if (n < 64) n = 64; c = int(25e9 / m); if (n > c) n = c; if (n < 3) n = 3; print n}')
  step "run-$name" 20 120 "$BIN" "${args[@]}" --duration "${secs}s" --min-queries "$n" --out "$RES/runs/$name"
}
# runs B SECONDS: Offline (and SingleStream where the benchmark has it) on
# the provider under test, then, for the benchmarks of CPU_TOO, Offline on
# the CPU provider for the throughput beside it.
CPU_TOO="resnet50 bert retinanet unet3d sdxl"
runs() {
  local b=$1 secs=$2 size=tiny q0 sc
  case " $FULL " in *" $b "*) [ -f "$CACHE/$b-synthetic-$(fullsize "$b")/model.onnx" ] && size=$(fullsize "$b") ;; esac
  case $b in resnet50) q0=3000 ;; bert | dlrm) q0=500 ;; retinanet) q0=100 ;; *) q0=20 ;; esac
  [ "$BACKEND" = cpu ] && q0=$((q0 / 20 + 1))
  offline "$b-$BACKEND-offline" "$b" "$size" "$BACKEND" "$q0" 3 "$secs"
  say "  $b $size $BACKEND Offline: $(summ "$RES/runs/$b-$BACKEND-offline")"
  sc=$("$BIN" list 2>/dev/null | awk -v b="$b" '$1 == b {f=1; next} f && /scenarios/ {print; exit}')
  if echo "$sc" | grep -q SingleStream; then
    singlestream "$b-$BACKEND-singlestream" "$b" "$size" "$BACKEND" "$secs"
    say "  $b $size $BACKEND SingleStream: $(summ "$RES/runs/$b-$BACKEND-singlestream")"
  fi
  if [ "$BACKEND" != cpu ] && [[ " $CPU_TOO " == *" $b "* ]]; then
    local r
    r=$(rate "$RES/runs/$b-$BACKEND-offline")
    offline "$b-cpu-offline" "$b" "$size" cpu "$(awk -v r="${r:-20}" 'BEGIN {printf "%.3f", r / 20 + 0.5}')" 2 3
    say "  $b $size cpu Offline: $(summ "$RES/runs/$b-cpu-offline")"
  fi
}

# 4. Parity against the CPU provider on the tiny models.
say "parity $BACKEND against cpu, tolerance |got-want| <= 1e-4 + 1e-3*|want|${EP:+ (use_tf32=0)}:"
for b in $BENCHES; do
  step "build-$b-tiny" 20 120 build "$b" tiny || continue
  shapes=()
  [ "$b" = sdxl ] && shapes=("${SHAPES[@]}")
  step "parity-$b-tiny" 15 120 "$BIN" parity --model "$CACHE/$b-synthetic-tiny" --backend "$BACKEND" "${EP[@]}" "${shapes[@]}" --runs 3
  say "  $b tiny: $(verdict "$RES/parity-$b-tiny.txt")"
done
[ $ONLY_PARITY = 1 ] || {
  say "runs (--model synthetic:SIZE --data synthetic; Offline until VALID, at most 3 passes):"
  step "build-resnet50-full" 40 180 build resnet50 full
  runs resnet50 5
}
# 5. Parity on the full models.
for b in $FULL; do
  s=$(fullsize "$b")
  step "build-$b-$s" 60 240 build "$b" "$s" || { say "  $b $s: not built (see log)"; continue; }
  step "parity-$b-$s" 30 180 "$BIN" parity --model "$CACHE/$b-synthetic-$s" --backend "$BACKEND" "${EP[@]}" --runs 3
  say "  parity $b $s: $(verdict "$RES/parity-$b-$s.txt")"
done
# 6. ONNX's backend test data.
if [ -d "$TESTDATA/node" ]; then
  step onnx-testdata 40 180 "$BIN" parity --onnx-testdata "$TESTDATA" --backend "$BACKEND" --against cpu --atol 1e-5 --rtol 1e-3 --workers 8
  say "onnx test data (tolerance 1e-5 + 1e-3*|want|): $BACKEND $(grep -m1 -E '^[0-9]+ cases: ' "$RES/onnx-testdata.txt"); cpu $(grep -A1 '^on cpu:' "$RES/onnx-testdata.txt" | tail -1); $(grep -E '^[0-9]+ cases differ' "$RES/onnx-testdata.txt")"
else
  say "SKIPPED onnx test data: $TESTDATA not there"
fi
[ $ONLY_PARITY = 1 ] && exit 0
# 7. The other benchmarks' runs, the MLPerf ones of the issue first.
for b in $BENCHES; do
  [ "$b" = resnet50 ] || runs "$b" 3
done
