#!/bin/sh
# Makes a JDK 25 AOT cache (Leyden, JEP 483/514/515) for a framework
# target's jar with a training run: starts `java -XX:AOTCacheOutput=...
# -jar JAR --port 0` on 127.0.0.1, drives a bounded set of requests at every
# endpoint (train/Train.java, run by the JDK's source launcher), then stops
# it with SIGTERM; at exit the JVM assembles the cache in a child JVM. The
# cache is written to a temporary file beside OUT and moved into place.
# Usage: targets/jvm-common/aot-train.sh JAR OUT [ROUNDS]
# The cache is only valid for this jar (path, size and time are checked),
# this JDK build and a G1/Parallel/Serial heap with compressed oops (not ZGC).
set -eu

if [ "$#" -lt 2 ] || [ "$#" -gt 3 ]; then
	echo "usage: $0 JAR OUT [ROUNDS]" >&2
	exit 2
fi
jar=$1
out=$2
rounds=${3:-300}
here=$(cd "$(dirname "$0")" && pwd)

JAVA_HOME=${JAVA25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
java=$JAVA_HOME/bin/java
if ! "$java" -version 2>&1 | grep -q 'version "25'; then
	echo "$0: no JDK 25 at $JAVA_HOME (install a JDK 25 there, or set JAVA25_HOME to one)" >&2
	exit 1
fi
if [ ! -f "$jar" ]; then
	echo "$0: $jar not found" >&2
	exit 1
fi

mkdir -p "$(dirname "$out")"
work=$(mktemp -d "${TMPDIR:-/tmp}/yardstick-aot.XXXXXX")
tmpaot=$(mktemp "$(dirname "$out")/.$(basename "$out").XXXXXX")
pid=
cleanup() {
	if [ -n "$pid" ]; then
		kill -KILL "$pid" 2>/dev/null || true
	fi
	rm -rf "$work" "$tmpaot" "$tmpaot.config"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
	echo "$0: $*" >&2
	echo "--- training JVM's stderr:" >&2
	tail -n 30 "$work/stderr" >&2 || true
	echo "--- its stdout (AOT messages):" >&2
	tail -n 30 "$work/stdout" >&2 || true
	exit 1
}

rm -f "$tmpaot" # the JVM writes the cache itself
"$java" -XX:AOTCacheOutput="$tmpaot" -jar "$jar" --port 0 >"$work/stdout" 2>"$work/stderr" &
pid=$!

# the listening line gives the port (at most 120 s: a loaded machine starts slowly)
port=
i=0
while [ $i -lt 1200 ]; do
	port=$(sed -n 's/.* listening on 127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$work/stderr" | head -n 1)
	[ -n "$port" ] && break
	kill -0 "$pid" 2>/dev/null || fail "the training JVM exited before it listened"
	sleep 0.1
	i=$((i + 1))
done
[ -n "$port" ] || fail "no listening line after 120 s"

"$java" "$here/train/Train.java" "$port" "$rounds" || fail "the training requests failed"

# SIGTERM: the application stops, then the JVM writes the cache (at most 300 s)
kill -TERM "$pid"
i=0
while kill -0 "$pid" 2>/dev/null; do
	[ $i -lt 3000 ] || fail "still running 300 s after SIGTERM"
	sleep 0.1
	i=$((i + 1))
done
status=0
wait "$pid" || status=$?
pid=
if [ "$status" -ne 0 ] && [ "$status" -ne 143 ]; then
	fail "the training JVM exited with status $status"
fi
grep -q 'AOTCache creation is complete' "$work/stdout" "$work/stderr" || fail "the JVM did not report a complete AOT cache"
[ -s "$tmpaot" ] || fail "no cache written"
chmod 644 "$tmpaot"
mv -f "$tmpaot" "$out"
