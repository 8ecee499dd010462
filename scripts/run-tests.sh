#!/bin/sh
# run-tests.sh [--valgrind] TEST... - run each cmocka test program and count
# its tests; end with the reasons for every skip, each listed once, and the
# line "N passed, M failed, K skipped".  Exit 1 if any test failed.
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
tally=$(mktemp)
log=$(mktemp)
trap 'rm -f "$tally" "$log"' EXIT
start=$(date +%s)
for t in "$@"; do
    name=$(basename "$t")
    echo "=== $t"
    t0=$(date +%s)
    $wrap "$t" >"$log" 2>&1
    st=$?
    cat "$log"
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
        }' "$log" >>"$tally"
    echo "=== $name: $(( $(date +%s) - t0 ))s"
done
secs=$(( $(date +%s) - start ))
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
echo "$# test programs in ${secs}s"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
