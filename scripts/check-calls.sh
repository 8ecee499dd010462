#!/bin/sh
# check-calls.sh BUILD - no call circle between the library's folders.
#
# A folder (src/api, src/ctl, transports/shm, ...) calls another when an
# object built from it refers to a symbol an object of the other defines
# (nm: undefined here, defined there).  The floors point down only:
# runtime at the bottom, then the transports, the control plane, the
# checker, the job layer, the API, the collectives, the OpenSHMEM layer;
# a layer below reaches one above only through a table the one above
# fills in (a transport's core callbacks, the checker's wait hooks, the
# control plane's fail policy).  A circle fails the build, naming one
# symbol each way.
set -eu
build=${1:-build}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Objects of library sources that exist now (a moved file's old object
# would count otherwise).
for src in $(find src transports -name '*.c' -o -name '*.cu' | sort); do
    case "$src" in
        transports/*.cu) continue ;; # built by nvcc into a plugin, not the library
    esac
    obj="$build/obj/${src%.*}.o"
    [ -f "$obj" ] || continue
    dir=$(dirname "$src")
    nm "$obj" | awk -v d="$dir" '
        NF == 3 && $2 ~ /^[TDBR]$/ { print "def", $3, d }
        NF == 2 && $1 == "U" { print "use", $2, d }'
done >"$tmp/syms"
n=$(grep -c '^def' "$tmp/syms" || true)
if [ "$n" -eq 0 ]; then
    echo "check-calls: no objects under $build/obj (build first)" >&2
    exit 1
fi

awk '
    $1 == "def" { where[$2] = $3; next }
    { uses[NR] = $2 " " $3 }
    END {
        for (i in uses) {
            split(uses[i], u, " ")
            if ((u[1] in where) && where[u[1]] != u[2])
                print u[2], where[u[1]], u[1]
        }
    }' "$tmp/syms" | sort -u >"$tmp/edges"

# A circle: an edge a -> b with a path b -> a.
awk '
    { e[$1 " " $2] = $3; adj[$1] = adj[$1] " " $2; nodes[$1]; nodes[$2] }
    function reach(from, to,    seen, stack, n, x, k, m, next_) {
        n = 0; stack[++n] = from; seen[from] = 1
        while (n) {
            x = stack[n--]
            if (x == to) return 1
            m = split(adj[x], next_, " ")
            for (k = 1; k <= m; k++)
                if (!(next_[k] in seen)) { seen[next_[k]] = 1; stack[++n] = next_[k] }
        }
        return 0
    }
    END {
        bad = 0
        for (k in e) {
            split(k, ab, " ")
            if (reach(ab[2], ab[1])) {
                printf "check-calls: %s calls %s (%s), and %s calls back up to it\n", \
                    ab[1], ab[2], e[k], ab[2] > "/dev/stderr"
                bad = 1
            }
        }
        if (!bad)
            printf "check-calls: %d folders, %d calls between them, no circle\n", \
                length(nodes), length(e)
        exit bad
    }' "$tmp/edges"
