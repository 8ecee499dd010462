#!/bin/sh
# stress.sh [RUNS] - crash a PE at a random point of a busy job, RUNS times
# (default 200), and count what must never happen: a job that hangs, a
# segment left in /dev/shm, a process left running, a report that does not
# name the PE that crashed.  Exit status 1 if any count is not zero.  It
# also prints how long the jobs took from start to their end after the
# crash (median and slowest): the "within a second" the README promises is
# measured here, not asserted by a test a loaded machine could miss.
set -u
runs=${1:-200}
build=${BUILD:-build}
run="$build/shmemu-run"
prog="$build/tests/progs/crashy"
[ -x "$run" ] && [ -x "$prog" ] || { echo "stress: build first (make $run $prog)" >&2; exit 2; }
ulimit -c 0
hangs=0 leaks=0 leftovers=0 unnamed=0 wrong=0
seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "stress: $runs runs, first seed $seed (SEED=$seed $0 $runs repeats this)"
before=$(ls /dev/shm)
times=$(mktemp)
trap 'rm -f "$times"' EXIT
i=0
while [ "$i" -lt "$runs" ]; do
    s=$((seed + i))
    npes=$((2 + s % 7))
    victim=$((s % npes))
    t0=$(date +%s%N)
    out=$(timeout -k 2 15 "$run" -n "$npes" -- "$prog" random "$s" 2>&1)
    rc=$?
    echo $((($(date +%s%N) - t0) / 1000000)) >>"$times"
    case $rc in
    124) hangs=$((hangs + 1)); echo "stress: seed $s ($npes PEs): HANG" ;;
    3|134|137|139) ;;
    *) wrong=$((wrong + 1)); echo "stress: seed $s ($npes PEs): exit $rc: $out" ;;
    esac
    if ! echo "$out" | grep -q "shmemu-run: PE $victim (pid [0-9]*) \(killed by\|exited with\)"; then
        unnamed=$((unnamed + 1)); echo "stress: seed $s ($npes PEs): PE $victim not named: $out"
    fi
    after=$(ls /dev/shm)
    if [ "$after" != "$before" ]; then
        # A new name is a leak, but for a shmemu segment whose creator (the
        # pid in its name) still runs: another job on this machine made it.
        new=$(printf '%s\n' "$after" | while read -r name; do
            # (an empty listing reads as one empty name)
            [ -z "$name" ] && continue
            printf '%s\n' "$before" | grep -qxF -- "$name" && continue
            pid=$(printf '%s\n' "$name" | sed -n 's/^shmemu\.[0-9]*\.\([0-9]*\)\..*/\1/p')
            [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && continue
            printf '%s ' "$name"
        done)
        if [ -n "$new" ]; then
            leaks=$((leaks + 1)); echo "stress: seed $s: left in /dev/shm: $new"
        fi
        before=$after
    fi
    if pgrep -f "$prog random" >/dev/null 2>&1; then
        sleep 0.2
        if pgrep -f "$prog random" >/dev/null 2>&1; then
            leftovers=$((leftovers + 1)); echo "stress: seed $s: PE processes left behind"
            pkill -9 -f "$prog random"
        fi
    fi
    i=$((i + 1))
done
sort -n "$times" | awk '{ t[NR] = $1 } END { if (NR) printf "stress: job time with a crash, ms: median %d, slowest %d (%d runs)\n", t[int((NR + 1) / 2)], t[NR], NR }'
echo "stress: $runs runs: $hangs hangs, $leaks leaked segments, $leftovers runs left processes, $unnamed reports without the PE, $wrong unexpected exits"
[ $((hangs + leaks + leftovers + unnamed + wrong)) -eq 0 ]
