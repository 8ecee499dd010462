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
rc=0
for tls in "" tcp; do
    echo "=== ucx transport, UCX_TLS=${tls:-(UCX's choice)}"
    if [ -n "$tls" ]; then
        UCX_TLS=$tls scripts/run-tests.sh "$@" || rc=1
    else
        scripts/run-tests.sh "$@" || rc=1
    fi
done
exit $rc
