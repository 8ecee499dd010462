#!/bin/sh
# build-systems.sh BUILD_DIR - build tests/oshcc/buildsys/hello.c with
# CC=oshcc through autoconf's configure and through CMake, as OpenSHMEM
# software is built, and run each result on 3 PEs.  Both tools run the
# compiler as $CC while CC names the wrapper (a wrapper that read CC for
# its own compiler would call itself forever: each run has a time limit).
# Prints "autotools: total 6" and "cmake: total 6"; a tool that is not
# installed is said ("autotools: skipped: no autoconf"), exit 0.
set -u
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/buildsys" && pwd)
work=$(mktemp -d /tmp/shmemu-buildsys-XXXXXX)
trap 'rm -rf "$work"' EXIT
export CC="$build/oshcc"
rc=0
if command -v autoconf >/dev/null 2>&1; then
    mkdir "$work/at" && cp "$src/configure.ac" "$src/Makefile.in" "$src/hello.c" "$work/at/"
    if (cd "$work/at" && autoconf && timeout 120 ./configure -q && timeout 120 make -s) \
        >"$work/at.log" 2>&1; then
        echo "autotools: $("$build/oshrun" -np 3 "$work/at/hello")"
    else
        echo "autotools: failed:"; cat "$work/at.log"; rc=1
    fi
else
    echo "autotools: skipped: no autoconf on the PATH"
fi
if command -v cmake >/dev/null 2>&1; then
    if (cd "$work" && timeout 120 cmake -S "$src" -B "$work/cm" -DCMAKE_C_COMPILER="$CC" &&
        timeout 120 cmake --build "$work/cm") >"$work/cm.log" 2>&1; then
        echo "cmake: $("$build/oshrun" -np 3 "$work/cm/hello")"
    else
        echo "cmake: failed:"; cat "$work/cm.log"; rc=1
    fi
else
    echo "cmake: skipped: no cmake on the PATH"
fi
exit $rc
