#!/usr/bin/env bash
# The LLM client's TTFT and TPOT beside curl -N's and the server's own,
# all against one paced engine (cmd/llmclientbench: a /v1/completions
# stream whose first token leaves TTFT after the request and then one
# every INTERVAL, each write timed by the server).
#   - curl: curl -N --trace-time; TTFT from its request header sent to the
#     first token event received, TPOT = (last token received − first) /
#     (tokens − 1);
#   - mlperf ids / text: this suite's client (remote/openai) with the
#     server's token_ids or with ids from each event's text, TTFT from the
#     sample issued to FirstToken and TPOT = (Complete − FirstToken) /
#     (tokens − 1), as LoadGen computes them;
#   - server: its own first write − request read, (last − first) /
#     (tokens − 1).
# Each line is the median of N requests sent one at a time. The goals
# (issue 27): our TPOT within 5 % of curl's, our TTFT within 0.2 ms of it.
#
# Usage: scripts/llm-client-bench.sh   (N=30 TOKENS=128 INTERVAL=1.6ms TTFT=5ms)
# Run on a quiet machine: on a loaded one every figure carries the
# scheduler's delays.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
OUT=${MLPERF_BENCH_OUT:-$ROOT/out/llm-client-bench}
N=${N:-30}
TOKENS=${TOKENS:-128}
INTERVAL=${INTERVAL:-1.6ms}
TTFT=${TTFT:-5ms}
mkdir -p "$OUT"
command -v curl >/dev/null || { echo "llm-client-bench: curl is not installed" >&2; exit 1; }
go build -o "$OUT/llmclientbench" ./cmd/llmclientbench

pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; }
trap cleanup EXIT
"$OUT/llmclientbench" serve -addr 127.0.0.1:0 -ttft "$TTFT" -interval "$INTERVAL" -tokens "$TOKENS" >"$OUT/serve.log" 2>&1 &
pid=$!
for _ in $(seq 100); do
	ADDR=$(sed -n 's/^listening on //p' "$OUT/serve.log")
	[ -n "$ADDR" ] && break
	sleep 0.1
done
[ -n "$ADDR" ] || { echo "llm-client-bench: the paced server did not start:" >&2; cat "$OUT/serve.log" >&2; exit 1; }
URL=http://$ADDR

# median FILE COLUMN: the median of a column of numbers.
median() { sort -n -k"$2","$2" "$1" | awk -v c="$2" '{v[NR]=$c} END {print v[int(NR/2)+1]}'; }

# curl: one traced request per line of curl.txt: "ttft_ns tpot_ns tokens".
: >"$OUT/curl.txt"
for i in $(seq "$N"); do
	curl -N -sS --trace-time --trace-ascii - -o /dev/null -H 'Content-Type: application/json' \
		-d "{\"model\":\"paced\",\"prompt\":[$i],\"max_tokens\":$TOKENS,\"stream\":true,\"return_token_ids\":true}" \
		"$URL/v1/completions" | awk '
		function t(s,  h) { split(s, h, ":"); return (h[1]*3600 + h[2]*60 + h[3]) * 1e9 }
		/=> Send header/ { if (!sent) sent = t($1) }
		/<= Recv data/ { now = t($1) }
		/^[0-9a-f]+: data: \{/ { n++; if (!first) first = now; last = now }
		END { if (n < 2) exit 1; printf "%d %d %d\n", first - sent, (last - first) / (n - 1), n }' >>"$OUT/curl.txt"
done
for form in ids text; do
	"$OUT/llmclientbench" client -endpoint "$URL" -n "$N" -tokens "$TOKENS" -form "$form" >"$OUT/mlperf-$form.txt"
done
# The server's own figures over every request (curl's and ours alike).
curl -sS "$URL/stats" | tr '{' '\n' | awk -F'[,:]' '/Received/ {
	for (i = 1; i < NF; i++) { if ($i ~ /Received/) r = $(i+1); if ($i ~ /First/) f = $(i+1); if ($i ~ /Last/) l = $(i+1); if ($i ~ /Tokens/) n = $(i+1) }
	printf "%d %d %d\n", f - r, (l - f) / (n - 1), n }' >"$OUT/server.txt"

printf '%-14s %12s %12s\n' "client" "TTFT p50 ms" "TPOT p50 ms"
row() { printf '%-14s %12.3f %12.4f\n' "$1" "$(median "$2" 1 | awk '{print $1/1e6}')" "$(median "$2" 2 | awk '{print $1/1e6}')"; }
row curl "$OUT/curl.txt"
row "mlperf ids" "$OUT/mlperf-ids.txt"
row "mlperf text" "$OUT/mlperf-text.txt"
row server "$OUT/server.txt"
echo "(N=$N requests each, $TOKENS tokens, server TTFT $TTFT, interval $INTERVAL; raw figures in $OUT)"
