#!/bin/sh
# check-plane.sh - the control area's layout belongs to the control plane.
#
# src/ctl/ctl.h lays out the shared control area; everything else in the
# library reaches the control plane through src/ctl/plane.h and wait.h, so
# that a transport without shared memory can be given a plane of its own
# (docs/DESIGN.md, "The control plane").  This fails the build when a file
# outside src/ctl/ names the layout: its accessors, its header fields
# through a PE's pointers, or its magic.
set -eu
cd "$(dirname "$0")/.."
pattern='shmemu__ctl_(pe|team|size|hdr_size)[[:space:]]*\(|->ctl(_me)?->|SHMEMU__CTL_(MAGIC|LAYOUT)|shmemu__team_gen_word|struct shmemu__ctl(_pe|_team)?[[:space:]]*\*[[:space:]]*[a-z_]+[[:space:]]*='
bad=$(grep -rnE "$pattern" src tools transports --include='*.c' --include='*.h' |
    grep -v '^src/ctl/' || true)
if [ -n "$bad" ]; then
    echo "check-plane: the control area's layout is used outside src/ctl/ (go through src/ctl/plane.h):" >&2
    echo "$bad" >&2
    exit 1
fi
echo "check-plane: the control area's layout is used in src/ctl/ only"
