#!/bin/sh
# check-settings.sh BUILD - the settings shmemu-info prints (the one table in
# src/runtime/config.h) and the ones docs/API.md's Environment table lists
# are the same set: a setting added to one and not the other fails make test.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
info=$("$1/shmemu-info" | sed -n 's/^  \(SHMEMU_[A-Z_]*\) *= .*/\1/p' | sort -u)
# the first column of each row: the variables (a row may name several)
docs=$(sed -n '/^## Environment/,/^## /p' "$root/docs/API.md" | grep '^|' |
    sed 's/^| \([^|]*\)|.*/\1/' | grep -o '`SHMEMU_[A-Z_]*`' | tr -d '`' | sort -u)
only_info=$(printf '%s\n' "$info" | grep -vxF "$docs")
only_docs=$(printf '%s\n' "$docs" | grep -vxF "$info")
if [ -n "$only_info$only_docs" ]; then
    [ -n "$only_info" ] && echo "check-settings: shmemu-info has, docs/API.md lacks:" $only_info
    [ -n "$only_docs" ] && echo "check-settings: docs/API.md has, shmemu-info lacks:" $only_docs
    exit 1
fi
echo "check-settings: $(printf '%s\n' "$info" | wc -l) settings, the same in shmemu-info and docs/API.md"
