#!/bin/sh
# check-cost.sh [ROUNDS] - the cost of checker mode: wall time of the
# verifier's default run in each mode (off, race, fuzz:1, fuzz:1,race),
# the modes interleaved within each round (default 3) so that a change of
# vCPU placement hits them all alike.  Prints one line per run and, per
# mode, the median of the per-round ratios to the plain run with their
# range.  Fails if any run fails a case.
set -eu
cd "$(dirname "$0")/.."
build=${BUILD:-build}
rounds=${1:-3}
[ -x "$build/shmemu-verify" ] || make -s BUILD="$build" "$build/shmemu-verify"
modes="off race fuzz:1 fuzz:1,race"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
r=1
while [ "$r" -le "$rounds" ]; do
    for m in $modes; do
        s=$(date +%s.%N)
        if ! "$build/shmemu-verify" --check "$m" >"$out.run" 2>&1; then
            tail -5 "$out.run"
            rm -f "$out.run"
            echo "check-cost: round $r, mode $m failed" >&2
            exit 1
        fi
        e=$(date +%s.%N)
        t=$(awk -v s="$s" -v e="$e" 'BEGIN { print e - s }')
        printf 'round %d  %-12s %7.1f s  %s\n' "$r" "$m" "$t" "$(tail -1 "$out.run")"
        echo "$r $m $t" >>"$out"
    done
    r=$((r + 1))
done
rm -f "$out.run"
echo "mode         x plain: median (min-max) over $rounds rounds"
for m in $modes; do
    awk -v m="$m" '$2 == "off" { off[$1] = $3 } $2 == m { t[$1] = $3 }
        END { n = 0; for (r in t) v[++n] = t[r] / off[r]
              for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
                  if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
              med = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
              printf "%-12s %.2fx (%.2f-%.2f)\n", m, med, v[1], v[n] }' "$out"
done
