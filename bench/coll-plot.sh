#!/bin/sh
# coll-plot.sh [PNG] - shmemu's allreduce against Open MPI's MPI_Allreduce on
# this machine: `shmemu-bench coll` over 8 B..64 MiB on 2 PEs (double sum,
# algorithm auto) on the local and the shm transport, each run alternating
# with Open MPI round by round.  Prints a markdown table (busbw median with
# the min-max over all repetitions, and the ratio of the medians) and draws
# busbw against size into PNG (default docs/img/allreduce-busbw.png).
#
# Needs Debian's openmpi-bin, libopenmpi-dev and gnuplot-nox (installed when
# run as root).  DTYPE, NPES, ROUNDS and REPS override the defaults.
set -eu
cd "$(dirname "$0")/.."
build=${BUILD:-build}
png=${1:-docs/img/allreduce-busbw.png}
dtype=${DTYPE:-double}
npes=${NPES:-2}
need=""
command -v mpicc >/dev/null 2>&1 || need="$need libopenmpi-dev"
command -v mpirun >/dev/null 2>&1 || need="$need openmpi-bin"
command -v gnuplot >/dev/null 2>&1 || need="$need gnuplot-nox"
if [ -n "$need" ]; then
    [ "$(id -u)" -eq 0 ] || { echo "coll-plot: needs$need (apt-get as root)" >&2; exit 2; }
    apt-get install -y --no-install-recommends $need >/dev/null
fi
make -s "$build/shmemu-bench" "$build/mpi-coll-bench"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in local shm; do
    "$build/shmemu-bench" coll -t "$t" --npes "$npes" -b 8 -e 64M -f 2 -d "$dtype" \
        --rounds "${ROUNDS:-3}" --reps "${REPS:-5}" --csv >"$tmp/$t.csv"
done
grep '^# machine' "$tmp/local.csv" | sed 's/^# machine: /Machine: /'
grep '^# MPI' "$tmp/local.csv" | sed 's/^# MPI: \(Open MPI [^ ]*\).*/Compared with: \1/'
echo
# columns: size,count,type,redop,root,time_us,algbw,busbw,busbw_min,busbw_max,wrong,
#          mpi_time_us,mpi_algbw,mpi_busbw,mpi_busbw_min,mpi_busbw_max,ratio,
#          bound_us,of_bound,copy_gbs
# (paste joins two rows: the second's columns are 20 further on)
echo "| size | local busbw GB/s | MPI | local/MPI | shm busbw GB/s | MPI | shm/MPI |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
grep '^[0-9]' "$tmp/local.csv" >"$tmp/l"
grep '^[0-9]' "$tmp/shm.csv" >"$tmp/s"
paste -d, "$tmp/l" "$tmp/s" | awk -F, '
    function hs(b) { return b >= 1048576 ? b / 1048576 " MiB" : b >= 1024 ? b / 1024 " KiB" : b " B" }
    { printf "| %s | %.2f (%.2f-%.2f) | %.2f | %.2fx | %.2f (%.2f-%.2f) | %.2f | %.2fx |\n",
             hs($1), $8, $9, $10, $14, $17, $28, $29, $30, $34, $37 }'
for t in local shm; do
    grep '^[0-9]' "$tmp/$t.csv" | awk -F, '$11 != 0 { print "coll-plot: " FILENAME ": #wrong " $11 " at " $1 " B"; bad = 1 } END { exit bad }' FILENAME="$t"
    grep '^[0-9]' "$tmp/$t.csv" | tr , ' ' >"$tmp/$t.dat"
done
mkdir -p "$(dirname "$png")"
gnuplot <<GP
set terminal pngcairo size 900,560 font ",11"
set output "$png"
set title "allreduce, $npes PEs, $dtype sum: bus bandwidth (median, bars: min-max)"
set logscale x 2
set format x "%.0b%B"
set xlabel "size (bytes)"
set ylabel "busbw (GB/s)"
set key top left
set grid
plot "$tmp/local.dat" using 1:8:9:10 with yerrorlines lw 2 title "shmemu auto, local", \
     "$tmp/shm.dat" using 1:8:9:10 with yerrorlines lw 2 title "shmemu auto, shm", \
     "$tmp/local.dat" using 1:14:15:16 with yerrorlines lw 2 title "Open MPI MPI\\\\_Allreduce"
GP
echo
echo "plot: $png"
