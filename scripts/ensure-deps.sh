#!/bin/sh
# ensure-deps.sh NAME... - make sure each library is there (pkg-config finds
# it; boost-context: the compiler finds libboost_context.a), installing its
# Debian package with apt-get when it is not.  Used by the
# Makefile, so that `make run` and `make test` work on a fresh machine.
set -eu

pkg_of() {
    case "$1" in
    hwloc) echo libhwloc-dev ;;
    cmocka) echo libcmocka-dev ;;
    boost-context) echo libboost-context-dev ;;
    ucx) echo libucx-dev ;;
    pmix) echo libpmix-dev ;;
    mpirun) echo openmpi-bin ;;
    libdw) echo libdw1 ;; # loaded at run time (source lines in reports)
    *) echo "ensure-deps: no Debian package known for '$1'" >&2; exit 2 ;;
    esac
}

have() {
    case "$1" in
    boost-context) # no .pc file: ask the compiler
        [ "$(${CC:-cc} -print-file-name=libboost_context.a)" != libboost_context.a ] ;;
    mpirun) command -v mpirun >/dev/null 2>&1 ;;
    libdw) /sbin/ldconfig -p 2>/dev/null | grep -q 'libdw\.so\.1 ' ;;
    *) command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$1" ;;
    esac
}

missing=""
command -v pkg-config >/dev/null 2>&1 || missing="pkg-config"
for lib in "$@"; do
    have "$lib" || missing="$missing $(pkg_of "$lib")"
done
[ -z "$missing" ] && exit 0

echo "ensure-deps: installing missing Debian packages:$missing" >&2
if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "ensure-deps: need root (or sudo) to run: apt-get install$missing" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# An old package index can name versions the mirror no longer has.
$SUDO apt-get install -y --no-install-recommends $missing >/dev/null 2>&1 || {
    $SUDO apt-get update -qq
    $SUDO apt-get install -y --no-install-recommends $missing
}
for lib in "$@"; do
    have "$lib" || { echo "ensure-deps: $lib still not found" >&2; exit 1; }
done
