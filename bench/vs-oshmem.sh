#!/bin/sh
# vs-oshmem.sh [ROUNDS] - shmemu (shm transport, or TRANSPORT=ucx) against
# Open MPI's OSHMEM on this machine, in one run: the same figures from shmemu-bench and
# bench/oshmem-bench.c, alternating the two ROUNDS times (default 3) so that
# the VM's vCPU placement changes hit both, then the median of each figure
# and the ratio (how many times faster shmemu is: >1 is better).
#
# HOSTS=2 (root, ucx): both across two hosts -- two network namespaces
# joined by a veth pair (scripts/netns-pair.sh), PEs split evenly, UCX
# over TCP for both -- with shmemu-bench joining mpirun's job.
#
# Needs Debian's openmpi-bin and libopenmpi-dev (installed when run as root).
set -eu
rounds=${1:-3}
build=${BUILD:-build}
hosts=${HOSTS:-1}
if [ "$hosts" = 2 ]; then
    npes_list=${NPES:-"2 4 8"}
    transport=ucx
else
    npes_list=${NPES:-"2 8 16 64"}
    transport=${TRANSPORT:-shm}
fi
cd "$(dirname "$0")/.."
if ! command -v oshcc >/dev/null 2>&1 || ! command -v oshrun >/dev/null 2>&1; then
    [ "$(id -u)" -eq 0 ] || { echo "vs-oshmem: needs openmpi-bin and libopenmpi-dev (apt-get as root)" >&2; exit 2; }
    apt-get install -y --no-install-recommends openmpi-bin libopenmpi-dev >/dev/null
fi
make -s "$build/shmemu-bench" lib
oshcc -O2 -std=gnu11 -Ibench -o "$build/oshmem-bench" bench/oshmem-bench.c
# As root Open MPI needs --allow-run-as-root; past 2 PEs on 2 cores
# --oversubscribe; and Debian's 4.1.4 crashes in shmem_finalize without
# excluding the openib BTL.
oshrun="oshrun --allow-run-as-root --oversubscribe --mca btl ^openib"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if [ "$hosts" = 2 ]; then
    [ "$(id -u)" -eq 0 ] || { echo "vs-oshmem: HOSTS=2 needs root (network namespaces)" >&2; exit 2; }
    make -s ucx-plugin
    . scripts/netns-pair.sh
    netns_pair_up "$out" || { echo "vs-oshmem: $NS_WHY" >&2; exit 2; }
    export NS_A NS_AGENT
    trap 'netns_pair_down; rm -rf "$out"' EXIT
    plugin=$(cd "$build" && pwd)/libshmemu-ucx.so
fi
# on_hosts N: mpirun's --host for N PEs split evenly over the two hosts
on_hosts() { echo "$HOST_A:$(( ($1 + 1) / 2 )),$HOST_B:$(( $1 / 2 ))"; }
# shmemu_run N ARGS / oshmem_run N ARGS: one shmemu-bench / oshmem-bench run
shmemu_run() {
    n=$1
    shift
    if [ "$hosts" = 2 ]; then
        ns_mpirun --host "$(on_hosts "$n")" -np "$n" --oversubscribe -x UCX_TLS=tcp \
            -x SHMEMU_UCX_PLUGIN="$plugin" -x SHMEMU_HEAP_SIZE=96M "$build/shmemu-bench" "$@"
    else
        "$build/shmemu-bench" -t "$transport" "$@"
    fi
}
oshmem_run() {
    n=$1
    shift
    if [ "$hosts" = 2 ]; then
        # Open MPI 4.1.4's OSHMEM can hang here (a put+quiet whose target
        # sits in a barrier that does not progress UCX): bounded, a hung run
        # gives no figure.
        NS_RUN=oshrun timeout -s KILL 30 sh -c '. scripts/netns-pair.sh; ns_mpirun "$@"' sh \
            --host "$(on_hosts "$n")" -np "$n" --oversubscribe --mca btl ^openib \
            -x UCX_TLS=tcp "$build/oshmem-bench" "$@" || true
        pkill -KILL -f "$build/oshmem-bench" 2>/dev/null || true
    else
        $oshrun -np "$n" "$build/oshmem-bench" "$@"
    fi
}
r=1
while [ "$r" -le "$rounds" ]; do
    shmemu_run 2 -r 5 lat sync bw | grep -v '^#' | sed 's/^/shmemu /' >>"$out/rows"
    oshmem_run 2 -r 5 lat sync bw 2>/dev/null | sed 's/^/oshmem /' >>"$out/rows"
    for n in $npes_list; do
        shmemu_run "$n" -r 3 -n "$n" barrier | grep -v '^#' | sed 's/^/shmemu /' >>"$out/rows"
        oshmem_run "$n" -r 3 barrier 2>/dev/null | sed 's/^/oshmem /' >>"$out/rows"
    done
    r=$((r + 1))
done
[ "$hosts" = 2 ] && echo "# across two hosts: network namespaces joined by a veth pair, UCX_TLS=tcp, PEs split evenly"
echo "# shmemu ($transport) vs Open MPI $(oshrun --version 2>&1 | head -1 | awk '{print $NF}') OSHMEM, $rounds alternating rounds, median of the rounds' medians"
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs"
printf '%-14s %5s %10s %12s %12s %6s %9s\n' "# test" npes bytes shmemu oshmem unit "speedup"
awk '
    { key = $2 " " $3 " " $4; unit[key] = $8; v[$1, key, ++n[$1, key]] = $5; keys[key] = 1 }
    function med(side, key,   c, i, j, t, a) {
        c = n[side, key]; if (!c) return -1
        for (i = 1; i <= c; i++) a[i] = v[side, key, i]
        for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
    }
    END {
        for (k in keys) {
            s = med("shmemu", k); o = med("oshmem", k)
            if (s < 0) continue
            split(k, f, " ")
            if (o < 0) { printf "%-14s %5s %10s %12.3f %12s %6s %9s\n", f[1], f[2], f[3], s, "(none)", unit[k], "-"; continue }
            sp = unit[k] == "GB/s" ? s / o : o / s
            printf "%-14s %5s %10s %12.3f %12.3f %6s %8.2fx\n", f[1], f[2], f[3], s, o, unit[k], sp
        }
    }' "$out/rows" | sort -k1,1 -k2,2n -k3,3n
