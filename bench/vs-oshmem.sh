#!/bin/sh
# vs-oshmem.sh [ROUNDS] - shmemu (shm transport, or TRANSPORT=ucx) against
# Open MPI's OSHMEM on this machine, in one run: the same figures from shmemu-bench and
# bench/oshmem-bench.c, alternating the two ROUNDS times (default 3) so that
# the VM's vCPU placement changes hit both, then the median of each figure
# and the ratio (how many times faster shmemu is: >1 is better).
#
# Needs Debian's openmpi-bin and libopenmpi-dev (installed when run as root).
set -eu
rounds=${1:-3}
build=${BUILD:-build}
npes_list=${NPES:-"2 8 16 64"}
transport=${TRANSPORT:-shm}
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
r=1
while [ "$r" -le "$rounds" ]; do
    "$build/shmemu-bench" -t "$transport" -r 5 lat sync bw | grep -v '^#' | sed 's/^/shmemu /' >>"$out/rows"
    $oshrun -np 2 "$build/oshmem-bench" -r 5 lat sync bw 2>/dev/null | sed 's/^/oshmem /' >>"$out/rows"
    for n in $npes_list; do
        "$build/shmemu-bench" -t "$transport" -r 3 -n "$n" barrier | grep -v '^#' | sed 's/^/shmemu /' >>"$out/rows"
        $oshrun -np "$n" "$build/oshmem-bench" -r 3 barrier 2>/dev/null | sed 's/^/oshmem /' >>"$out/rows"
    done
    r=$((r + 1))
done
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
            if (s < 0 || o < 0) continue
            split(k, f, " ")
            sp = unit[k] == "GB/s" ? s / o : o / s
            printf "%-14s %5s %10s %12.3f %12.3f %6s %8.2fx\n", f[1], f[2], f[3], s, o, unit[k], sp
        }
    }' "$out/rows" | sort -k1,1 -k2,2n -k3,3n
