#!/bin/sh
# spin-kernel-cost.sh [ROUNDS] - what checking a kernel that polls plain
# flags costs: the verifier on tests/device/ll_allgather.cu (NCCL's LL
# protocol, built with shmemu-devcc; 2 blocks of 32 device threads per PE,
# each spinning on volatile loads until its peer's line lands), in two
# cases, each plain and checked:
#   explore: sim, 3 PEs, 101 bytes, 60 pct:3 schedules; checked adds
#            --check fuzz:1,race
#   fuzz:    local, 5 PEs, 257 int32; checked adds --fuzz 6 --race
# interleaved within each round (default 3).  BEFORE=DIR (a build of
# another commit, e.g. a worktree's) runs its verifier beside BUILD's in
# every round, each on its own build's kernel library.  Prints one line
# per run, then per build and case the median wall time of plain and
# checked runs and the median of the per-round ratios, with their ranges.
# Fails if any run fails its case.
set -eu
cd "$(dirname "$0")/.."
build=${BUILD:-build}
rounds=${1:-3}
case "$rounds" in '' | *[!0-9]* | 0)
    echo "spin-kernel-cost: ROUNDS '$rounds' is not a positive count" >&2
    exit 2 ;;
esac
builds=$build
[ -n "${BEFORE:-}" ] && builds="$BEFORE $build"
for b in $builds; do
    [ -x "$b/shmemu-verify" ] && [ -f "$b/tests/libll_allgather.so" ] ||
        make -s BUILD="$b" "$b/shmemu-verify" "$b/tests/libll_allgather.so"
done
out=$(mktemp)
trap 'rm -f "$out" "$out.run"' EXIT
r=1
while [ "$r" -le "$rounds" ]; do
    for b in $builds; do
        for c in explore fuzz; do
            for mode in plain checked; do
                set -- --lib "$b/tests/libll_allgather.so" --symbol ll_allgather \
                    --collective allgather --team world --timeout 120
                if [ "$c" = explore ]; then
                    set -- "$@" --dtype uint8 --npes 3 --count 101 --explore 60 --strategy pct:3
                    [ "$mode" = checked ] && set -- "$@" --check fuzz:1,race
                else
                    set -- "$@" --dtype int32 --npes 5 --count 257 --transport local
                    [ "$mode" = checked ] && set -- "$@" --fuzz 6 --race
                fi
                s=$(date +%s.%N)
                if ! "$b/shmemu-verify" "$@" >"$out.run" 2>&1; then
                    tail -5 "$out.run"
                    echo "spin-kernel-cost: round $r, $b, $c, $mode failed" >&2
                    exit 1
                fi
                e=$(date +%s.%N)
                t=$(awk -v s="$s" -v e="$e" 'BEGIN { print e - s }')
                printf 'round %d  %-24s %-8s %-8s %7.3f s\n' "$r" "$b" "$c" "$mode" "$t"
                echo "$r $b $c $mode $t" >>"$out"
            done
        done
    done
    r=$((r + 1))
done
echo "build                    case     plain s: median (min-max)  checked s  checked/plain"
for b in $builds; do
    for c in explore fuzz; do
        awk -v b="$b" -v c="$c" '
            function med(a, n,   i, j, x) {
                for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
                    if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
                return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
            }
            $2 == b && $3 == c && $4 == "plain" { p[$1] = $5 }
            $2 == b && $3 == c && $4 == "checked" { k[$1] = $5 }
            END {
                n = 0
                for (r in k) { n++; pv[n] = p[r]; kv[n] = k[r]; rv[n] = k[r] / p[r] }
                mp = med(pv, n); mk = med(kv, n); mr = med(rv, n)
                printf "%-24s %-8s %.3f (%.3f-%.3f)  %.3f (%.3f-%.3f)  %.1fx (%.1f-%.1f)\n",
                       b, c, mp, pv[1], pv[n], mk, kv[1], kv[n], mr, rv[1], rv[n]
            }' "$out"
    done
done
