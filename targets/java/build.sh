#!/bin/sh
# Builds the JVM sample target with the JDK alone (javac + jar, Java 17):
# its own sources and those every JVM target shares (targets/jvm-common/src/main/java,
# which the framework targets get through Maven).
# Usage: targets/java/build.sh OUT.jar   (e.g. targets/java/build.sh bin/sample-jvm.jar)
# The jar is written to a temporary file beside OUT and moved into place,
# so OUT is either the old jar or the complete new one.
set -eu

[ "$#" -eq 1 ] || { echo "usage: $0 OUT.jar" >&2; exit 2; }
out=$1
here=$(cd "$(dirname "$0")" && pwd)

for tool in javac jar; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "$0: $tool not found: install a JDK 17 (Debian: apt-get install openjdk-17-jdk-headless)" >&2
		exit 1
	fi
done

mkdir -p "$(dirname "$out")"
classes=$(mktemp -d "${TMPDIR:-/tmp}/sample-jvm-classes.XXXXXX")
tmpjar=$(mktemp "$(dirname "$out")/.sample-jvm.jar.XXXXXX")
trap 'rm -rf "$classes" "$tmpjar"' EXIT INT TERM

# find | sort: the same source order on every machine
find "$here/src" "$here/../jvm-common/src/main/java" -name '*.java' | LC_ALL=C sort >"$classes/sources.txt"
javac --release 17 -Xlint:all -Werror -encoding UTF-8 -d "$classes/out" @"$classes/sources.txt"
rm -f "$tmpjar" # jar --create wants to make the file itself
jar --create --file "$tmpjar" --main-class yardstick.sample.Main -C "$classes/out" .
mv -f "$tmpjar" "$out"
