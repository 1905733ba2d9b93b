#!/bin/sh
# Builds one framework target's jar with Maven on Temurin 25 and moves it
# into place atomically (OUT is either the old jar or the complete new one).
# Usage: targets/jvm-common/mvn-jar.sh TARGET_DIR BUILT_JAR OUT
#   TARGET_DIR  the target's folder, with its pom.xml (e.g. targets/helidon)
#   BUILT_JAR   the jar Maven makes, relative to its build folder (helidon.jar)
#   OUT         where the jar goes (bin/helidon.jar)
# Maven builds in a fresh temporary folder (-Dbuild.dir), batch mode, quiet,
# with the default local repository (~/.m2) and without -U: a second build
# downloads nothing. JAVA25_HOME overrides the JDK's folder.
set -eu

if [ "$#" -ne 3 ]; then
	echo "usage: $0 TARGET_DIR BUILT_JAR OUT" >&2
	exit 2
fi
dir=$1
built=$2
out=$3

JAVA_HOME=${JAVA25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
if ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -q 'version "25'; then
	echo "$0: no JDK 25 at $JAVA_HOME (install a JDK 25 there, or set JAVA25_HOME to one)" >&2
	exit 1
fi
if ! command -v mvn >/dev/null 2>&1; then
	echo "$0: mvn not found: install Maven 3.8 or later (Debian: apt-get install maven)" >&2
	exit 1
fi
export JAVA_HOME
# Maven's own libraries call sun.misc.Unsafe, which JDK 25 warns about on every run
MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
export MAVEN_OPTS

mkdir -p "$(dirname "$out")"
work=$(mktemp -d "${TMPDIR:-/tmp}/yardstick-mvn.XXXXXX")
tmpjar=$(mktemp "$(dirname "$out")/.$(basename "$out").XXXXXX")
trap 'rm -rf "$work" "$tmpjar"' EXIT INT TERM

(cd "$dir" && mvn -B -q -Dstyle.color=never -Dbuild.dir="$work/build" package)
cp "$work/build/$built" "$tmpjar"
chmod 644 "$tmpjar"
mv -f "$tmpjar" "$out"
