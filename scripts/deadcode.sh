#!/usr/bin/env bash
# make lint: functions the mlperf binary can never reach
# (golang.org/x/tools/cmd/deadcode), less those scripts/deadcode-allow.txt
# lists as kept for tests. Anything else fails: a guard that is tested but
# never wired into the binary, or code that is dead.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
DEADCODE_VERSION=v0.52.0
allow=scripts/deadcode-allow.txt
out=$("$GO" run "golang.org/x/tools/cmd/deadcode@$DEADCODE_VERSION" ./cmd/mlperf)
bad=0
while IFS= read -r line; do
	[ -z "$line" ] && continue
	file=${line%%:*}
	fn=${line##*unreachable func: }
	ok=0
	while read -r pat funcs _; do
		case "$pat" in ''|'#'*) continue ;; esac
		# shellcheck disable=SC2254
		case "$file" in $pat) ;; *) continue ;; esac
		if [ "$funcs" = "*" ] || [[ ",$funcs," == *",$fn,"* ]]; then ok=1; break; fi
	done <"$allow"
	if [ "$ok" = 0 ]; then
		echo "deadcode: $line"
		bad=1
	fi
done <<<"$out"
if [ "$bad" = 1 ]; then
	echo "deadcode: the functions above are never reached by the mlperf binary: wire each guard where it should guard, delete what is dead, or list a test-only helper in $allow with the reason" >&2
	exit 1
fi
echo "deadcode: every function the binary cannot reach is listed in $allow"
