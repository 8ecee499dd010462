#!/bin/sh
# gpu-check.sh [STEP...] - the cuda transport's checks on a machine with a
# GPU, from a build tree made elsewhere (BUILD, default build), for GPU
# machines lent for minutes: each step runs under its own time limit, so a
# hang costs only its step; one line per step (name, exit status, seconds)
# goes to stdout, each step's output to LOGDIR/NAME.log (default
# gpu-check.logs), and each step's output, as the step ends, to LOG
# (gpu-check.log).
#
# Steps (default: all, in this order):
#   env     nvidia-smi, the machine, what the loader finds
#   basic   shmemu-info, then a CUDA program on 2 PEs (if it fails, stop)
#   tests   test_cuda, test_staged, the verifier's quick matrix in jobs of
#           VERIFY_NPES PEs and its default one in jobs of
#           VERIFY_DEFAULT_NPES, side by side (correctness, not timings)
#   bench   shmemu-bench -t cuda: dev (up to half of DEV_MAX), barrier
#           2/4/8, alone on the GPU
#   coll    allreduce bus bandwidth on COLL_NPES PEs (sizes: COLL_ARGS)
#   device  the device-initiated built-ins on COLL_NPES PEs: dev_oneshot
#           8 B..64 KiB, dev_twoshot 1 MiB..256 MiB (the bound: bench-dev's
#           copy rate), and the tutorial's kernel through the verifier
#
# Libraries the build machine had and this one may lack (hwloc, cmocka,
# CUDA's runtime) can be put in LIBS: searched only when the loader misses
# something, so the machine's own CUDA runtime wins.
#
# gpu-check.sh --pack DIR, on the machine that built (after make and
# make build/tests/test_cuda build/tests/test_staged build/tests/cuda_kernels
# build/tests/dev_spin_cuda build/examples/device_allreduce_cuda
# build/examples/libmy_device_allreduce_cuda.so
# build/tests/libflag_barriers_cuda.so build/tests/libll_allgather_cuda.so),
# copies what the checks run, and those libraries, into DIR/build and
# DIR/libs (about 7 MiB): carry DIR, then BUILD=DIR/build LIBS=DIR/libs.
set -u
if [ "${1:-}" = "--pack" ] && [ -n "${2:-}" ]; then
    src=${BUILD:-build} dir=$2
    rm -rf "$dir"
    mkdir -p "$dir/build/tests" "$dir/build/examples" "$dir/libs" || exit 1
    for f in libshmemu.so libshmemu-cuda.so shmemu-run shmemu-info shmemu-verify \
        shmemu-bench examples/hello_spmd tests/test_cuda tests/test_staged \
        tests/cuda_kernels tests/dev_spin_cuda examples/device_allreduce_cuda \
        examples/libmy_device_allreduce_cuda.so tests/libflag_barriers_cuda.so \
        tests/libll_allgather_cuda.so; do
        cp "$src/$f" "$dir/build/$f" || exit 1
        strip --strip-debug "$dir/build/$f" # symbol names stay: reports name functions
    done
    ln -s libshmemu.so "$dir/build/libshmemu.so.0"
    for lib in $(ldd "$src/tests/test_staged" "$src/libshmemu-cuda.so" |
        awk '/(hwloc|cmocka|udev|cudart)/ {print $3}' | sort -u); do
        cp -L "$lib" "$dir/libs/" || exit 1
    done
    du -sh "$dir"
    exit 0
fi
BUILD=${BUILD:-build}
LOG=${LOG:-gpu-check.log}
LOGDIR=${LOGDIR:-gpu-check.logs}
REPS=${REPS:-5}
LIMIT_SCALE=${LIMIT_SCALE:-1}
rm -rf "$LOGDIR"
mkdir -p "$LOGDIR"
: >"$LOG"
if [ -n "${LIBS:-}" ] && [ -d "$LIBS" ]; then
    for lib in "$BUILD/libshmemu-cuda.so" "$BUILD/tests/test_staged"; do
        ldd "$lib" 2>/dev/null | grep -q 'not found' || continue
        export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$(cd "$LIBS" && pwd)"
        break
    done
fi
seq=0

step() { # NAME LIMIT COMMAND...
    name=$1 limit=$(( $2 * LIMIT_SCALE ))
    shift 2
    seq=$((seq + 1))
    f="$LOGDIR/$(printf '%02d' "$seq")-$name"
    printf '===== %s (limit %ss): %s\n' "$name" "$limit" "$*" >"$f.log"
    t0=$(date +%s)
    timeout -k 5 "$limit" "$@" >>"$f.log" 2>&1
    rc=$?
    echo "$rc" >"$f.rc"
    printf '===== %s: rc %d\n\n' "$name" "$rc" >>"$f.log"
    cat "$f.log" >>"$LOG" # as each step ends: a run cut short keeps what it did
    printf '%-26s rc %3d  %4ss\n' "$name" "$rc" "$(( $(date +%s) - t0 ))"
    return "$rc"
}

STEPS=" ${*:-env basic tests bench coll device} "
want() { case "$STEPS" in *" $1 "*) return 0 ;; esac; return 1; }

if want env; then
    step nvidia-smi 20 nvidia-smi
    step machine 10 sh -c 'uname -a; nproc; free -g; ldd --version | head -1; df -h /dev/shm;
        ldd '"$BUILD"'/libshmemu-cuda.so '"$BUILD"'/tests/test_staged'
fi
go=1
if want basic; then
    step shmemu-info 90 "$BUILD/shmemu-info"
    step kernels-2 60 "$BUILD/shmemu-run" -t cuda -n 2 --timeout 50 -- \
        "$BUILD/tests/cuda_kernels" || go=0
fi
if [ "$go" = 1 ] && want tests; then
    step test_cuda 200 "$BUILD/tests/test_cuda" &
    step test_staged 200 "$BUILD/tests/test_staged" &
    # Inside one job per PE count: CUDA's start-up is paid once per PE, not
    # once per case.  The quick matrix for VERIFY_NPES, the default one for
    # VERIFY_DEFAULT_NPES, each chain beside the other.
    verify_chain() { # MATRIX NPES...
        m=$1
        shift
        for np in "$@"; do
            step "verify-${m:-default}-$np" "${VERIFY_LIMIT:-120}" "$BUILD/shmemu-run" -t cuda \
                -n "$np" --timeout "${VERIFY_LIMIT:-120}" --heap-size "${VERIFY_HEAP:-512M}" -- \
                "$BUILD/shmemu-verify" \
                ${m:+--$m} --npes "$np" --transport cuda
        done
    }
    verify_chain quick ${VERIFY_NPES:-2 4 8} &
    [ -n "${VERIFY_DEFAULT_NPES:-}" ] && verify_chain "" $VERIFY_DEFAULT_NPES &
    wait
fi
if [ "$go" = 1 ] && want bench; then
    step bench-dev 240 "$BUILD/shmemu-bench" -t cuda -r "$REPS" -m "${DEV_MAX:-2G}" dev
    step bench-barrier 60 "$BUILD/shmemu-bench" -t cuda -r "$REPS" -n 2,4,8 barrier
fi
if [ "$go" = 1 ] && want coll; then
    for np in ${COLL_NPES:-2 4 8}; do
        step "coll-allreduce-$np" "${COLL_LIMIT:-120}" "$BUILD/shmemu-bench" coll -t cuda \
            --coll allreduce --npes "$np" ${COLL_ARGS:--b 8 -e 256M -f 8} --reps "$REPS" --no-mpi
    done
fi
if [ "$go" = 1 ] && want device; then
    for np in ${COLL_NPES:-2 4 8}; do
        step "dev-oneshot-$np" "${COLL_LIMIT:-120}" "$BUILD/shmemu-bench" coll -t cuda \
            --coll allreduce --algo dev_oneshot --npes "$np" -b 8 -e 64K -f 8 --reps "$REPS" --no-mpi
        step "dev-twoshot-$np" "${COLL_LIMIT:-120}" "$BUILD/shmemu-bench" coll -t cuda \
            --coll allreduce --algo dev_twoshot --npes "$np" -b 1M -e 256M -f 16 --reps "$REPS" \
            --no-mpi
    done
    step dev-user-kernel 120 "$BUILD/shmemu-verify" --lib \
        "$BUILD/examples/libmy_device_allreduce_cuda.so" --symbol my_device_allreduce \
        --collective allreduce --dtype float --op sum --in-place no --quick --transport cuda
    # the user-style kernels the CPU checks (test_devcc), on the GPU
    step dev-flag-barriers 120 "$BUILD/shmemu-verify" --lib \
        "$BUILD/tests/libflag_barriers_cuda.so" --symbol flag_twoshot --collective allreduce \
        --dtype float --op sum --in-place no --team world --quick --transport cuda
    step dev-ll-allgather 120 "$BUILD/shmemu-verify" --lib \
        "$BUILD/tests/libll_allgather_cuda.so" --symbol ll_allgather --collective allgather \
        --team world --quick --transport cuda
fi
failed=""
for f in "$LOGDIR"/*.rc; do
    [ -e "$f" ] && [ "$(cat "$f")" != 0 ] && failed="$failed $(basename "$f" .rc | cut -c4-)"
done
echo "failed:${failed:- none}"
[ -z "$failed" ]
