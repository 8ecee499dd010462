#!/bin/sh
# check-docs.sh - run every command README.md and docs/*.md show, so that
# the docs cannot drift from the code.
#
# A command is a line of a fenced block opened with ```sh (a line ending
# in \ goes on).  It runs from a scratch folder that links the repository's
# build/, include/, examples/, tests/, scripts/, tools/ and docs/, and must
# exit 0, or the status its trailing comment names ("# exit 1").  `make
# TARGET` lines are checked with make -n in the repository (they are the
# build's own steps, which CI runs).  A block right after a line
# <!-- not run: REASON --> is listed with its reason, not run.
#
# Prints a line per command and "N passed, M failed"; exit 1 if any failed.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
scratch=$(mktemp -d /tmp/shmemu-docs-XXXXXX)
list=$(mktemp)
trap 'rm -rf "$scratch" "$list"' EXIT
for d in include examples tests scripts tools docs; do
    ln -s "$root/$d" "$scratch/$d"
done
ln -s "$root/$build" "$scratch/build"
# One record per command: FILE:LINE|REASON-or-empty|COMMAND (a command may
# hold | itself: read gives the rest of the line to its last field)
for f in "$root/README.md" "$root"/docs/*.md; do
    awk -v file="${f#"$root"/}" '
        /^<!-- not run: .* -->$/ { why = $0; sub(/^<!-- not run: /, "", why); sub(/ -->$/, "", why); next }
        /^```sh$/ { inblock = 1; reason = why; why = ""; next }
        /^```/ && inblock { inblock = 0; next }
        inblock {
            if (cmd == "") start = NR
            line = $0
            if (line ~ /\\$/) { sub(/\\$/, "", line); cmd = cmd line; next }
            cmd = cmd line
            printf "%s:%d|%s|%s\n", file, start, reason, cmd
            cmd = ""
            next
        }
        NF { why = "" }
    ' "$f"
done >"$list"
passed=0 failed=0 notrun=0
while IFS='|' read -r where reason cmd; do
    if [ -n "$reason" ]; then
        notrun=$((notrun + 1))
        echo "docs: $where: not run ($reason): $cmd"
        continue
    fi
    want=0
    case "$cmd" in
    *"# exit "[0-9]*) want=$(printf '%s\n' "$cmd" | sed 's/.*# exit \([0-9]*\).*/\1/') ;;
    esac
    case "$cmd" in
    "make "*)
        targets=${cmd#make }
        (cd "$root" && make -n ${targets%%#*} >/dev/null 2>&1)
        st=$?
        how="make -n"
        ;;
    *)
        (cd "$scratch" && timeout -k 5 300 sh -c "$cmd") >"$scratch/.out" 2>&1
        st=$?
        how="ran"
        ;;
    esac
    if [ "$st" -eq "$want" ]; then
        passed=$((passed + 1))
        echo "docs: $where: ok ($how, exit $st): $cmd"
    else
        failed=$((failed + 1))
        echo "docs: $where: FAILED ($how, exit $st, wanted $want): $cmd"
        [ "$how" = ran ] && tail -20 "$scratch/.out" | sed 's/^/    /'
    fi
done <"$list"
echo "docs: $notrun shown but not run (reasons above)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
