#!/bin/sh
# test-ucx.sh TEST... - the suite on the ucx transport: each test program's
# quick variant (SHMEMU_TEST_QUICK: fewer rounds, PE counts up to 8) with
# UCX's own choice of fabric, then forced onto TCP (UCX_TLS=tcp); then a
# program started by mpirun, where Open MPI is installed.  Skipped, with the
# reason, where the ucx transport is not built.
set -u
BUILD=${BUILD:-build}
if ! [ -f "$BUILD/libshmemu-ucx.so" ]; then
    echo "test-ucx: skipped: the ucx transport is not built here ($("$BUILD/shmemu-info" |
        sed -n 's/^  ucx *//p'))"
    exit 0
fi
export SHMEMU_TEST_TRANSPORTS=ucx SHMEMU_TEST_QUICK=1
# UCX logs to stdout; on stderr its lines land in what a test captures,
# where test_sync checks that its noise about ended peers is dropped.
export UCX_LOG_FILE="${UCX_LOG_FILE:-stderr}"
rc=0
echo "=== ucx transport, UCX_TLS=(UCX's choice)"
scripts/run-tests.sh "$@" || rc=1
# Over TCP again, the programs whose subject is moving data, waiting and
# dying PEs (where the fabric matters); the rest test the core's own logic,
# which the pass above ran on ucx already.
tcp=""
for t in "$@"; do
    case "$(basename "$t")" in
    test_rma | test_amo | test_signal | test_p2p | test_sync | test_team | test_coll | \
        test_heap | test_crash | test_livelock | test_ucx) tcp="$tcp $t" ;;
    esac
done
echo "=== ucx transport, UCX_TLS=tcp:$(for t in $tcp; do printf ' %s' "$(basename "$t")"; done)"
UCX_TLS=tcp scripts/run-tests.sh $tcp || rc=1
exit $rc
