#!/bin/sh
# test-multinode.sh - the ucx transport with its PEs on two hosts: two
# network namespaces joined by a veth pair stand for two nodes, and mpirun
# (started in the first) starts the PEs of the second through a launch agent
# that enters its namespace, as ssh would enter another machine.  UCX runs
# over TCP across the pair, PMIx tells every PE that the job spans two
# nodes, and the control plane runs over the network (src/ctl/net.c).
#
# Root only (it creates namespaces and links): skipped, with the reason,
# otherwise, and where the ucx transport, mpirun or namespaces are missing.
set -u
BUILD=${BUILD:-build}
LIMIT=120 # seconds any one mpirun may take before it is killed

skip() {
    echo "test-multinode: skipped: $*"
    exit 0
}
[ "$(id -u)" -eq 0 ] || skip "needs root, to create network namespaces (run it as root, as CI does)"
[ -f "$BUILD/libshmemu-ucx.so" ] || skip "the ucx transport is not built here"
command -v mpirun >/dev/null 2>&1 || skip "no mpirun on the PATH (Debian's openmpi-bin)"
TMP=$(mktemp -d)
. "$(dirname "$0")/netns-pair.sh"
trap 'netns_pair_down; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM
netns_pair_up "$TMP"
case $? in
0) ;;
1) skip "$NS_WHY" ;;
*) echo "test-multinode: FAIL: $NS_WHY"; exit 1 ;;
esac
A=$NS_A B=$NS_B HA=$HOST_A HB=$HOST_B

PLUGIN=$(cd "$BUILD" && pwd)/libshmemu-ucx.so
PMIX_PLUGIN=$(cd "$BUILD" && pwd)/libshmemu-pmix.so
fails=0 runs=0
# run NAME HOSTS NP WANT PROG ARGS...: WANT is "ok" (exit 0 and, if set,
# $EXPECT in the output) or "ends" (a nonzero exit well before the limit).
# LAUNCHER starts the job: mpirun, or shmemu-run -t ucx, which hands it on.
run() {
    name=$1 hosts=$2 np=$3 want=$4
    shift 4
    runs=$((runs + 1))
    start=$(date +%s)
    # --bind-to none: as ns_mpirun (scripts/netns-pair.sh) says why
    timeout -s KILL $LIMIT ip netns exec "$A" ${LAUNCHER:-mpirun} --allow-run-as-root \
        --mca plm_rsh_agent "$NS_AGENT" --bind-to none --host "$hosts" -np "$np" --oversubscribe \
        -x UCX_TLS=tcp -x SHMEMU_UCX_PLUGIN="$PLUGIN" -x SHMEMU_PMIX_PLUGIN="$PMIX_PLUGIN" "$@" >"$TMP/out" 2>&1
    rc=$? secs=$(($(date +%s) - start))
    ok=1
    case $want in
    ok) [ $rc -eq 0 ] && { [ -z "$EXPECT" ] || grep -q "$EXPECT" "$TMP/out"; } || ok=0 ;;
    ends) [ $rc -ne 0 ] && [ $secs -lt 60 ] && { [ -z "$EXPECT" ] || grep -q "$EXPECT" "$TMP/out"; } ||
        ok=0 ;; # any status: 137 is a killed rank
    esac
    if [ $ok -eq 1 ]; then
        echo "ok: $name ($np PEs on $hosts, ${secs}s)"
    else
        fails=$((fails + 1))
        echo "FAIL: $name ($np PEs on $hosts): exit $rc after ${secs}s, output:"
        sed 's/^/    /' "$TMP/out" | head -40
    fi
}

echo "=== ucx over TCP between namespaces $A ($HA) and $B ($HB)"
TWO=$HA:2,$HB:2
ODD=$HA:1,$HB:2
EXPECT="PE 3/4 on ucx got 1002 from PE 2" run "hello_spmd" "$TWO" 4 ok "$BUILD/examples/hello_spmd"
EXPECT="PE 0/3 on ucx got 1002 from PE 2" run "hello_spmd" "$ODD" 3 ok "$BUILD/examples/hello_spmd"
if ! grep -q "$B" "$TMP/launched" 2>/dev/null; then
    fails=$((fails + 1))
    echo "FAIL: mpirun never started a PE in $B: the job did not span the two hosts"
fi
: >"$TMP/launched"
EXPECT="PE 2/3 on ucx got 1001 from PE 1" LAUNCHER="$BUILD/shmemu-run -t ucx" \
    run "hello_spmd, shmemu-run -t ucx handing the job to mpirun" "$ODD" 3 ok \
    "$BUILD/examples/hello_spmd"
if ! grep -q "$B" "$TMP/launched" 2>/dev/null; then
    fails=$((fails + 1))
    echo "FAIL: shmemu-run -t ucx -H started no PE in $B: it did not hand the job to mpirun"
fi
EXPECT="ok 4" run "osh_features (every feature area)" "$TWO" 4 ok "$BUILD/tests/progs/osh_features"
EXPECT="ok 4" LAUNCHER="$BUILD/oshrun -t ucx" run "osh_features, oshrun -t ucx" "$TWO" 4 ok \
    "$BUILD/tests/progs/osh_features"
EXPECT="ok 3" run "osh_features (every feature area)" "$ODD" 3 ok "$BUILD/tests/progs/osh_features"
EXPECT="ok 4" run "osh_ctx team" "$TWO" 4 ok "$BUILD/tests/progs/osh_ctx" team
EXPECT="ok 4" run "osh_ctx good" "$TWO" 4 ok "$BUILD/tests/progs/osh_ctx" good
EXPECT="ok 4" run "osh_generic" "$TWO" 4 ok "$BUILD/tests/progs/osh_generic"
EXPECT="ok 3" run "osh_threads" "$ODD" 3 ok "$BUILD/tests/progs/osh_threads"
EXPECT="ok 3" run "barriers and team syncs let no PE through early" "$ODD" 3 ok "$BUILD/tests/progs/syncs" order
EXPECT="ok 4" run "PEs in different collective calls get a mismatch" "$TWO" 4 ok "$BUILD/tests/progs/syncs" mixed
EXPECT=" passed, 0 failed" run "the verifier's quick matrix in one job" "$ODD" 3 ok "$BUILD/shmemu-verify" --quick
EXPECT="" run "a PE killed in a barrier ends the job" "$TWO" 4 ends "$BUILD/tests/progs/crashy" kill barrier
EXPECT="" run "a PE crashing in a wait ends the job" "$ODD" 3 ends "$BUILD/tests/progs/crashy" segv wait
EXPECT="" run "a PE exiting while others compute ends the job" "$TWO" 4 ends "$BUILD/tests/progs/crashy" exit3 compute
EXPECT="deadlock: all 4 PEs are blocked" run "a deadlock is reported and ends the job" "$TWO" 4 ends "$BUILD/tests/progs/crashy" none wait
grep -q "PE 3/4 in shmemu_int_wait_until(.*): ivar is 0" "$TMP/out" || {
    fails=$((fails + 1))
    echo "FAIL: the deadlock report names no wait of PE 3, or not the value it waits on:"
    sed 's/^/    /' "$TMP/out" | head -20
}
EXPECT="PE 2/3 polls shmem_long_g on polled_flag+0 of PE 0 (8 bytes) at " \
    run "a livelock across the hosts is reported" "$ODD" 3 ends -x SHMEMU_LIVELOCK=1 \
    "$BUILD/tests/progs/osh_features" misuse 8
echo "test-multinode: $((runs - fails)) of $runs passed"
[ $fails -eq 0 ]
