#!/usr/bin/env bash
# run-tests.sh [--valgrind] TEST... - run each cmocka test program and count
# its tests; end with the reasons for every skip, each listed once, and the
# line "N passed, M failed, K skipped".  Exit 1 if any test failed.
#
# Programs run SHMEMU_TEST_JOBS at a time (default: the machine's cores, at
# most 4), the longest known ones first: on a 2-core runner a program keeps
# about 1.2 cores busy (its PEs sleep in waits, watchdogs and launches), so
# two at once take about a third off the suite.  Each program's output is
# printed whole when it ends.  SHMEMU_TEST_JOBS=1 runs them one by one, in
# the order given.
#
# A test that skips must say why first (th_skip prints "# skipped: WHY");
# one that skips silently is counted as failed.  A program that dies
# before cmocka's closing lines counts one failure for itself.
set -u
wrap=""
if [ "${1:-}" = "--valgrind" ]; then
    shift
    # --fair-sched: valgrind runs one thread at a time, and its default
    # lock lets a PE spinning on a word (a test's plain wait for a put)
    # take it back before the PE that would write the word ever runs.
    wrap="valgrind -q --fair-sched=yes --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect --track-fds=no --suppressions=$(dirname "$0")/../tests/valgrind.supp"
fi
cores=$(nproc 2>/dev/null || echo 1)
jobs=${SHMEMU_TEST_JOBS:-$((cores < 4 ? cores : 4))}
case "$jobs" in
'' | *[!0-9]* | 0)
    echo "run-tests.sh: SHMEMU_TEST_JOBS='$jobs' is not a positive count of programs" >&2
    exit 2
    ;;
esac
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
tally="$dir/tally"
: >"$tally"

# The programs that take longest start first, so that the last minute is
# not one long program alone; the rest keep the order given.  Two run
# last, each alone: test_crash checks that no job of its own left a
# segment in /dev/shm (another program's job ending meanwhile is not its),
# and test_kernels asserts that delivery fuzzing catches planted device
# bugs on local and shm in enough of its seeds, where a held store's time
# is wall-clock time: with two CPU-bound programs beside it, the catch
# rate of one case fell from 12 to 4 of 20 seeds, and once in CI to 0.
# (test_devcc, the kernel files run through the tools, asserts no such
# rate and shares the machine.)
order=()
alone=()
if [ "$jobs" -gt 1 ]; then
    for slow in test_ucx test_compat test_livelock test_check test_devcc test_coll; do
        for t in "$@"; do [ "$(basename "$t")" = "$slow" ] && order+=("$t"); done
    done
    for t in "$@"; do
        case "$(basename "$t")" in test_kernels | test_crash) alone+=("$t") ;; esac
    done
fi
for t in "$@"; do
    case " ${order[*]-} ${alone[*]-} " in *" $t "*) ;; *) order+=("$t") ;; esac
done
order+=(${alone[@]+"${alone[@]}"})

# finish I: print program I's output and count its results.
finish() {
    local i=$1 t=${order[$1]} name st
    name=$(basename "$t")
    st=$(cat "$dir/$i.rc")
    echo "=== $t"
    cat "$dir/$i.log"
    # One record per result: P, F or S (with the skip's reason), and a
    # closing E record when the program itself failed.
    awk -v prog="$name" -v st="$st" '
        /^\[ RUN      \]/ { running = 1; reason = ""; next }
        /^# transport .* (skipped|left to)/ { notes[$0] = 1 }
        /^# .*(skip|left to)/ { if (running) reason = $0; else notes[$0] = 1; next }
        /^\[       OK \]/ && running { print "P " prog; running = 0; next }
        /^\[  FAILED  \] / && running { print "F " prog; running = 0; failed++; next }
        /^\[  SKIPPED \] / && running {
            running = 0
            if (reason == "") { print "F " prog ": skipped without saying why: " $4; failed++ }
            else { sub(/^# (skipped: )?/, "", reason); print "S " prog ": " reason }
            next
        }
        /^\[==========\] [0-9]+ test\(s\) run\.$/ { closed = 1 }
        END {
            for (n in notes) { sub(/^# /, "", n); print "N " prog ": " n }
            if (st != 0 && !failed) print "F " prog ": exited with status " st
            else if (!closed) print "F " prog ": ended before its closing line (status " st ")"
        }' "$dir/$i.log" >>"$tally"
    echo "=== $name: $(cat "$dir/$i.secs")s"
}

start=$(date +%s)
declare -A index_of # pid -> position in order
running=0
for i in "${!order[@]}"; do
    limit=$jobs
    case " ${alone[*]-} " in *" ${order[$i]} "*) limit=1 ;; esac
    while [ "$running" -ge "$limit" ]; do
        wait -n -p done_pid
        finish "${index_of[$done_pid]}"
        running=$((running - 1))
    done
    (
        t0=$(date +%s)
        $wrap "${order[$i]}" >"$dir/$i.log" 2>&1
        echo $? >"$dir/$i.rc"
        echo $(($(date +%s) - t0)) >"$dir/$i.secs"
    ) &
    index_of[$!]=$i
    running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
    wait -n -p done_pid
    finish "${index_of[$done_pid]}"
    running=$((running - 1))
done

secs=$(($(date +%s) - start))
passed=$(grep -c '^P ' "$tally")
failed=$(grep -c '^F ' "$tally")
skipped=$(grep -c '^S ' "$tally")
echo
if [ "$failed" -gt 0 ]; then
    echo "failed:"
    grep '^F ' "$tally" | cut -c3- | sort | uniq -c | sed 's/^ */  /'
fi
if [ "$skipped" -gt 0 ]; then
    echo "skipped (tests, by reason):"
    grep '^S ' "$tally" | cut -c3- | sort | uniq -c | sed 's/^ */  /'
fi
if grep -q '^N ' "$tally"; then
    echo "left out (whole transports or PE counts, each program says so):"
    grep '^N ' "$tally" | sed 's/^N [^:]*: //' | sort | uniq -c | sed 's/^ */  /'
fi
echo "$# test programs in ${secs}s ($jobs at a time)"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
