#!/bin/sh
# Builds the Spring Cloud Gateway target with Maven (versions pinned by
# pom.xml) into a temporary directory, then moves the executable jar into
# place, so OUT is either the old jar or the complete new one and the
# source tree gets no target/ directory.
# Usage: targets/scg/build.sh OUT.jar   (e.g. targets/scg/build.sh bin/scg.jar)
# Environment: JAVA_HOME picks the JDK (17 or newer; default: the one on PATH),
# MVN_FLAGS adds Maven options (e.g. -o to build offline).
set -eu

if [ "$#" -ne 1 ]; then
	echo "usage: $0 OUT.jar" >&2
	exit 2
fi
out=$1
here=$(cd "$(dirname "$0")" && pwd)
name=scg

for tool in mvn java; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "$0: $tool not found: apt-get install maven openjdk-17-jdk-headless" >&2
		exit 1
	fi
done

mkdir -p "$(dirname "$out")"
outdir=$(cd "$(dirname "$out")" && pwd)
build=$(mktemp -d "${TMPDIR:-/tmp}/$name-build.XXXXXX")
tmp=$(mktemp -d "$outdir/.$name.XXXXXX")
trap 'rm -rf "$build" "$tmp"' EXIT INT TERM

# -B: no colours or progress; -q: errors only; one thread (the default).
# shellcheck disable=SC2086
mvn -B -q ${MVN_FLAGS:-} -f "$here/pom.xml" -Dyardstick.buildDir="$build" -DskipTests package
cp "$build/$name.jar" "$tmp/$name.jar"
mv -f "$tmp/$name.jar" "$out"
