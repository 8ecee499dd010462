#!/bin/sh
# device-check-cost.sh [ROUNDS] - what checking a device-initiated
# allreduce costs on the CPU: the verifier on one case of dev_oneshot (4
# PEs, 2 blocks of 64 device threads each, float sum) plain and under
# --fuzz 20 --race (twenty checked runs), at three sizes, the two
# interleaved within each round (default 3) so that a change of vCPU
# placement hits both alike.  Prints one line per run, then per size the
# median of the per-round ratios (checked / plain) with their range.
# Fails if any run fails its case.
set -eu
cd "$(dirname "$0")/.."
build=${BUILD:-build}
rounds=${1:-3}
[ -x "$build/shmemu-verify" ] || make -s BUILD="$build" "$build/shmemu-verify"
out=$(mktemp)
trap 'rm -f "$out" "$out.run"' EXIT
r=1
while [ "$r" -le "$rounds" ]; do
    for count in 17 65536 1048576; do
        for mode in plain checked; do
            set -- --collective allreduce --algo dev_oneshot --npes 4 --count "$count" \
                --dtype float --op sum --in-place no --team world --transport local
            [ "$mode" = checked ] && set -- "$@" --fuzz 20 --race
            s=$(date +%s.%N)
            if ! "$build/shmemu-verify" "$@" >"$out.run" 2>&1; then
                tail -5 "$out.run"
                echo "device-check-cost: round $r, count $count, $mode failed" >&2
                exit 1
            fi
            e=$(date +%s.%N)
            t=$(awk -v s="$s" -v e="$e" 'BEGIN { print e - s }')
            printf 'round %d  count %-8s %-8s %7.3f s\n' "$r" "$count" "$mode" "$t"
            echo "$r $count $mode $t" >>"$out"
        done
    done
    r=$((r + 1))
done
echo "count     checked (20 seeds, race) / plain: median (min-max) over $rounds rounds"
for count in 17 65536 1048576; do
    awk -v c="$count" '$2 == c && $3 == "plain" { p[$1] = $4 } $2 == c && $3 == "checked" { k[$1] = $4 }
        END { n = 0; for (r in k) v[++n] = k[r] / p[r]
              for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
                  if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
              med = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
              printf "%-9s %.1fx (%.1f-%.1f)\n", c, med, v[1], v[n] }' "$out"
done
