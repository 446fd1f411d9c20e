#!/usr/bin/env bash
# The KServe client's CPU per request beside wrk, hey and ghz, all against
# the same `mlperf serve resnet50 --sut null` (a null engine: it answers at
# once, so the figures are the client and network path), in one run:
#   - the ResNet50 request (1x3x224x224 float32, 602 kB) over REST and gRPC,
#   - a 64-byte tensor (1x16 float32; the same server command serving
#     small.onnx, whose contract is that tensor) over REST and gRPC.
# Each tool keeps CONNS requests in flight for DUR seconds; its CPU is the
# user + system time of its process (bash's `time`), ours the Go
# benchmark's own (getrusage of the client process, the server being
# another process). The goals (issue 24): REST CPU per request <= 1.2x
# wrk's on the ResNet50 request, <= 15 us on the 64-byte one.
#
# Usage: scripts/client-bench.sh [path/to/mlperf]   (DUR=10 CONNS=16)
# Needs wrk (apt-get install wrk; installed here when run as root) and
# hey and ghz, which are installed from the Go module proxy into .tools/
# (gitignored). Run on a quiet machine: the figures are CPU time, but a
# loaded machine inflates every tool's scheduling cost differently.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
BIN=${1:-$ROOT/bin/mlperf}
OUT=${MLPERF_BENCH_OUT:-$ROOT/out/client-bench}
TOOLS=$ROOT/.tools/bin
DUR=${DUR:-10}
CONNS=${CONNS:-16}
HEY_VERSION=v0.1.5
GHZ_VERSION=v0.93.0
mkdir -p "$OUT" "$TOOLS"

if [ ! -x "$BIN" ]; then go build -o "$BIN" ./cmd/mlperf; fi
if ! command -v wrk >/dev/null; then
	if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq wrk >/dev/null; else
		echo "client-bench: wrk is not installed (apt-get install wrk)" >&2; exit 1; fi
fi
[ -x "$TOOLS/hey" ] || GOBIN=$TOOLS go install "github.com/rakyll/hey@$HEY_VERSION"
[ -x "$TOOLS/ghz" ] || GOBIN=$TOOLS go install "github.com/bojand/ghz/cmd/ghz@$GHZ_VERSION"
go run ./cmd/clientbench -o "$OUT/inputs"
go test -c -o "$OUT/kserve.test" ./remote/kserve

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
# serve NAME MODEL: starts a null server and sets ADDR.
serve() {
	local log=$OUT/serve-$1.log
	"$BIN" serve resnet50 --sut null --model "$2" --listen 127.0.0.1:0 --slots "$CONNS" --threads 1 >"$log" 2>&1 &
	pids+=($!)
	for _ in $(seq 600); do
		ADDR=$(sed -n 's|.*REST at http://\([^/]*\)/.*|\1|p' "$log")
		[ -n "$ADDR" ] && return 0
		sleep 0.1
	done
	echo "client-bench: mlperf serve did not start:" >&2; cat "$log" >&2; exit 1
}

# div A B [FORMAT]: A / B.
div() { awk -v a="$1" -v b="$2" -v f="${3:-%.1f}" 'BEGIN {printf f, a / b}'; }
# cpu_us CPUFILE COUNT: CPU microseconds per request from bash's time output.
cpu_us() { awk -v n="$2" '{printf "%.1f", ($1 + $2) * 1e6 / n}' "$1"; }

printf 'machine: %s CPUs, load average at the start: %s\n' "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-10s %-16s %12s %14s\n' request client req/s cpu-us/req | tee "$OUT/figures.txt"
TIMEFORMAT='%U %S'
for req in resnet50 small; do
	model=synthetic:tiny
	[ "$req" = small ] && model=$OUT/inputs/small.onnx
	serve "$req" "$model"
	url=http://$ADDR/v2/models/resnet50/infer
	jsonlen=$(cat "$OUT/inputs/$req.jsonlen")
	body=$OUT/inputs/$req.body
	row() { printf '%-10s %-16s %12.0f %14s\n' "$req" "$1" "$2" "$3" | tee -a "$OUT/figures.txt"; }

	cat >"$OUT/post.lua" <<EOF
wrk.method = "POST"
local f = io.open("$body", "rb")
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/octet-stream"
wrk.headers["Inference-Header-Content-Length"] = "$jsonlen"
EOF
	{ time wrk -t1 -c"$CONNS" -d"${DUR}s" -s "$OUT/post.lua" "$url" >"$OUT/wrk-$req.txt"; } 2>"$OUT/wrk-$req.cpu"
	n=$(awk '/requests in/ {print $1}' "$OUT/wrk-$req.txt")
	if grep -q Non-2xx "$OUT/wrk-$req.txt"; then echo "client-bench: wrk got errors:" >&2; cat "$OUT/wrk-$req.txt" >&2; exit 1; fi
	wrk_us=$(cpu_us "$OUT/wrk-$req.cpu" "$n")
	row wrk "$(div "$n" "$DUR")" "$wrk_us"

	{ time "$TOOLS/hey" -z "${DUR}s" -c "$CONNS" -m POST -D "$body" -T application/octet-stream \
		-H "Inference-Header-Content-Length: $jsonlen" "$url" >"$OUT/hey-$req.txt"; } 2>"$OUT/hey-$req.cpu"
	n=$(awk '/\[200\]/ {print $2}' "$OUT/hey-$req.txt")
	row hey "$(div "$n" "$DUR")" "$(cpu_us "$OUT/hey-$req.cpu" "$n")"

	{ time "$TOOLS/ghz" --insecure --proto remote/kserve/pb/grpc_predict_v2.proto --call inference.GRPCInferenceService/ModelInfer \
		-B "$OUT/inputs/$req.grpc.bin" -z "${DUR}s" -c "$CONNS" --connections 1 "$ADDR" >"$OUT/ghz-$req.txt"; } 2>"$OUT/ghz-$req.cpu"
	n=$(awk '/\[OK\]/ {print $2}' "$OUT/ghz-$req.txt")
	row ghz "$(div "$n" "$DUR")" "$(cpu_us "$OUT/ghz-$req.cpu" "$n")"

	for proto in http grpc; do
		MLPERF_KSERVE_ENDPOINT=$ADDR MLPERF_KSERVE_PROTOCOL=$proto MLPERF_KSERVE_CONNS=$CONNS \
			"$OUT/kserve.test" -test.run '^$' -test.bench '^BenchmarkClientCPU$' -test.benchtime "${DUR}s" >"$OUT/mlperf-$proto-$req.txt"
		line=$(grep '^BenchmarkClientCPU' "$OUT/mlperf-$proto-$req.txt")
		us=$(echo "$line" | awk '{for(i=1;i<=NF;i++) if($(i+1)=="cpu-us/op") print $i}')
		rps=$(echo "$line" | awk '{for(i=1;i<=NF;i++) if($(i+1)=="req/s") print $i}')
		row "mlperf-$proto" "$rps" "$us"
		[ "$proto" = http ] && printf '%-10s %-16s %12s %14s\n' "$req" "  vs wrk" "" "$(div "$us" "$wrk_us" %.2f)x" | tee -a "$OUT/figures.txt"
	done
	cleanup
	pids=()
done
printf 'load average at the end: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
echo "figures: $OUT/figures.txt"
