#!/bin/sh
# check-includes.sh - no include cycle among the library's modules.
#
# A module is a .c file and its .h (src/ctl/wait.c + src/ctl/wait.h).  Module
# A depends on B when any file of A includes B's header; a cycle means two
# parts of the library cannot be understood, tested or replaced apart, so it
# fails the build.  Headers are looked up as the compiler does: beside the
# including file, then in src/, transports/ and include/.
set -eu
cd "$(dirname "$0")/.."
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT

find src transports -name '*.[ch]' | sort | while read -r f; do
    dir=$(dirname "$f")
    from=${f%.*}
    echo "$from $from" >>"$edges" # every module is a node, even alone
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
        while read -r inc; do
            for base in "$dir" src transports include; do
                if [ -f "$base/$inc" ]; then
                    to=$(realpath -m --relative-to=. "$base/$inc")
                    case $to in
                    src/* | transports/*)
                        to=${to%.*}
                        [ "$to" = "$from" ] || echo "$from $to" >>"$edges"
                        ;;
                    esac
                    break
                fi
            done
        done
done

if ! out=$(tsort "$edges" 2>&1 >/dev/null) || [ -n "$out" ]; then
    echo "check-includes: include cycle among these modules (each includes the next's header):" >&2
    echo "$out" | sed -n 's/^tsort: //p' | grep -v 'input contains a loop' | sed 's/^/  /' >&2
    exit 1
fi
echo "check-includes: $(cut -d' ' -f1 "$edges" | sort -u | wc -l) modules, no include cycle"
