#!/bin/sh
# check-stages.sh BESIDE UNTIL -- STAGE... - make check's stages: each STAGE
# with make, one after another, while stage BESIDE runs alongside them
# from the start until stage UNTIL is due (UNTIL waits for it: a stage
# that must have the machine to itself).  BESIDE's output is kept and
# shown when it ends.  Each stage's time is printed; the first failure
# ends the run (BESIDE included) with its name.
#
# Why alongside: on 2 cores the suite leaves one mostly idle (its jobs
# wait on processes, launchers and timeouts), and ThreadSanitizer's stage
# is a third of the total.  Its tests run on the local transport in a
# build tree of its own; the checks that look at the whole machine
# (segments left in /dev/shm, processes) ignore what a live job of another
# stage holds.
set -u
beside=$1 until=$2
shift 3
make=${MAKE:-make}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

now() { date +%s; }

t_beside=$(now)
# A session of its own, so that a failure elsewhere ends all of it.
setsid -w $make --no-print-directory "$beside" >"$log" 2>&1 &
pid=$!
echo "== make check: $beside runs alongside (its output follows when it ends)"

stop_beside() {
    kill -TERM -- "-$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
}

join_beside() {
    [ -z "$pid" ] && return 0
    wait "$pid"
    rc=$?
    cat "$log"
    pid=
    if [ "$rc" -ne 0 ]; then
        echo "== make check: $beside failed after $(($(now) - t_beside)) s"
        exit 1
    fi
    echo "== make check: $beside passed in $(($(now) - t_beside)) s (alongside)"
}

for stage in "$@"; do
    [ "$stage" = "$until" ] && join_beside
    t0=$(now)
    extra=
    [ "$stage" = stress ] && extra=STRESS_RUNS=50
    if ! $make --no-print-directory "$stage" $extra; then
        echo "== make check: $stage failed after $(($(now) - t0)) s"
        [ -n "$pid" ] && { stop_beside; echo "== make check: $beside stopped"; }
        exit 1
    fi
    echo "== make check: $stage passed in $(($(now) - t0)) s"
done
join_beside
