#!/bin/sh
# test-ucx.sh TEST... - the suite on the ucx transport: each test program's
# quick variant (SHMEMU_TEST_QUICK: fewer rounds, PE counts up to 8) with
# UCX's own choice of fabric, then forced onto TCP (UCX_TLS=tcp); then the
# programs about moving data started by mpirun, where Open MPI is
# installed.  Skipped, with the reason, where the ucx transport is not
# built.
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
# which the pass above ran on ucx already (test_ucx runs its own rows over
# TCP, and livelock detection over the network is one of them).
tcp=""
for t in "$@"; do
    case "$(basename "$t")" in
    test_rma | test_amo | test_signal | test_p2p | test_sync | test_team | test_coll | \
        test_heap | test_crash) tcp="$tcp $t" ;;
    esac
done
echo "=== ucx transport, UCX_TLS=tcp:$(for t in $tcp; do printf ' %s' "$(basename "$t")"; done)"
UCX_TLS=tcp scripts/run-tests.sh $tcp || rc=1

# Under mpirun: the same programs and test_threads, each started as the N
# processes of one mpirun job, whose N-PE cases then run as jobs of it
# (tests/harness.c, th_mpirun_npes): every process joins through PMIx, as a
# user's program does.  N = 3, 4 and 5 (the PE counts the tests list) over UCX's choice of
# fabric, 4 over TCP, 3 and 4 with the control plane over the network (as
# across nodes).  Each line: the program, its tests run, skipped (no case
# of N PEs, or a test about launching jobs or about printed text, which the
# passes above cover) and failed.
mpirun=$(command -v mpirun || true)
if [ -z "$mpirun" ]; then
    echo "=== under mpirun: skipped: no mpirun on the PATH (Debian's openmpi-bin)"
elif [ ! -f "$BUILD/libshmemu-pmix.so" ]; then
    echo "=== under mpirun: skipped: shmemu was built without PMIx (libpmix-dev)"
else
    root=""
    [ "$(id -u)" = 0 ] && root=--allow-run-as-root
    spmd=""
    for t in "$@"; do
        case "$(basename "$t")" in
        test_rma | test_amo | test_signal | test_p2p | test_sync | test_team | test_coll | \
            test_heap | test_threads) spmd="$spmd $t" ;;
        esac
    done
    log=$(mktemp)
    # under_mpirun N "VAR=VALUE..." TEST: one line, the program, its tests
    # run, skipped and failed; its output's end when it fails.
    under_mpirun() {
        t0=$(date +%s)
        env $2 SHMEMU_TEST_MPIRUN="$1" timeout -s KILL 300 "$mpirun" -np "$1" \
            --oversubscribe $root "$3" >"$log" 2>&1
        st=$?
        echo "$(basename "$3"): $(grep -c '^\[       OK \]' "$log") ran, \
$(grep -c '^\[  SKIPPED \] test' "$log") skipped, $(grep -c '^\[  FAILED  \] test' "$log") \
failed (counted over the $1 processes), status $st, $(($(date +%s) - t0))s"
        if [ $st -ne 0 ]; then
            tail -40 "$log"
            rc=1
        fi
    }
    for run in "3" "5 UCX_TLS=tcp" "4 SHMEMU_UCX_CONTROL=network"; do
        n=${run%% *} how=${run#"$n"}
        echo "=== under mpirun -np $n${how:- (UCX's choice of fabric)}"
        for t in $spmd; do
            under_mpirun "$n" "$how" "$t"
        done
    done
    # The rest of the suite once, under mpirun -np 4 over UCX's choice of
    # fabric: shmemu_init joining the mpirun job (test_launch), errors and
    # aborts, pointers, half floats, the device discipline, the verifier's
    # and the checker's cases as jobs of it.  Their tests about launching,
    # crashing or printed text skip, saying why (test_livelock, test_misuse
    # and test_crash skip whole; listed so that the reasons show).
    # test_compat is left out: its programs start their own jobs under
    # oshrun in every process, and test_ucx runs them under mpirun.
    rest=""
    for t in "$@"; do
        case "$(basename "$t")" in
        test_launch | test_errors | test_verify | test_pointers | test_half | test_device | \
            test_check | test_race | test_livelock | test_misuse | test_crash) rest="$rest $t" ;;
        esac
    done
    echo "=== under mpirun -np 4 (UCX's choice of fabric), the rest of the suite"
    for t in $rest; do
        under_mpirun 4 "" "$t"
    done
    rm -f "$log"
fi
exit $rc
