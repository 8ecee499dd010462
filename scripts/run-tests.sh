#!/bin/sh
# run-tests.sh [--valgrind] TEST... - run each cmocka test binary, print a
# summary, exit non-zero if any failed.
set -u
wrap=""
if [ "${1:-}" = "--valgrind" ]; then
    shift
    wrap="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect --track-fds=no --suppressions=$(dirname "$0")/../tests/valgrind.supp"
fi
failed=""
total=0
start=$(date +%s)
for t in "$@"; do
    total=$((total + 1))
    echo "=== $t"
    t0=$(date +%s)
    if ! $wrap "$t"; then
        failed="$failed $(basename "$t")"
    fi
    echo "=== $(basename "$t"): $(( $(date +%s) - t0 ))s"
done
secs=$(( $(date +%s) - start ))
if [ -n "$failed" ]; then
    echo "FAILED:$failed ($total test programs, ${secs}s)"
    exit 1
fi
echo "all $total test programs passed (${secs}s)"
