#!/usr/bin/env bash
# Run a command as a named stage, print how long it took, and record it in
# _build/timings.txt (one "stage<TAB>seconds<TAB>exit status" line per stage).
# Usage: scripts/timed.sh STAGE-NAME command [args...]
set -uo pipefail
name="$1"; shift
mkdir -p _build
start=$(date +%s.%N)
echo "=== stage '$name' started $(date -u +%H:%M:%S) UTC: $*"
"$@"
status=$?
end=$(date +%s.%N)
secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
printf '%s\t%s\t%s\n' "$name" "$secs" "$status" >> _build/timings.txt
echo "=== stage '$name' took ${secs} s (exit status $status)"
exit "$status"
