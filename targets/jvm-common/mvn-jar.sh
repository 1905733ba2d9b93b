#!/bin/sh
# Builds one framework target's jar with Maven and moves it into place
# atomically (OUT is either the old jar or the complete new one).
# Usage: targets/jvm-common/mvn-jar.sh TARGET_DIR BUILT_JAR OUT [JDK]
#   TARGET_DIR  the target's folder, with its pom.xml (e.g. targets/helidon)
#   BUILT_JAR   the jar Maven makes, relative to the target's build folder (helidon.jar)
#   OUT         where the jar goes (bin/helidon.jar)
#   JDK         25 (the default: Temurin 25, or $JAVA25_HOME) or 17 (Debian's
#               OpenJDK 17, or $JAVA17_HOME): the Spring targets are Java 17
# Maven builds the target with the module it depends on, targets/jvm-common,
# in one reactor (targets/pom.xml: -pl TARGET -am), in a fresh temporary
# folder (-Dbuild.dir; each module builds in its own folder below it), batch
# mode, quiet, with the default local repository (~/.m2) and without -U: a
# second build downloads nothing. MVN_FLAGS adds Maven options (e.g. -o to
# build offline).
set -eu

[ "$#" -ge 3 ] && [ "$#" -le 4 ] || { echo "usage: $0 TARGET_DIR BUILT_JAR OUT [25|17]" >&2; exit 2; }
dir=$1
built=$2
out=$3
jdk=${4:-25}

case $jdk in
25) JAVA_HOME=${JAVA25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64} ;;
17) JAVA_HOME=${JAVA17_HOME:-/usr/lib/jvm/java-17-openjdk-amd64} ;;
*)
	echo "$0: JDK $jdk: want 25 or 17" >&2
	exit 2
	;;
esac
if ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -q "version \"$jdk"; then
	echo "$0: no JDK $jdk at $JAVA_HOME (install a JDK $jdk there, or set JAVA${jdk}_HOME to one)" >&2
	exit 1
fi
if ! command -v mvn >/dev/null 2>&1; then
	echo "$0: mvn not found: install Maven 3.8 or later (Debian: apt-get install maven)" >&2
	exit 1
fi
export JAVA_HOME
if [ "$jdk" = 25 ]; then
	# Maven's own libraries call sun.misc.Unsafe, which JDK 25 warns about on every run
	MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
	export MAVEN_OPTS
fi

mkdir -p "$(dirname "$out")"
work=$(mktemp -d "${TMPDIR:-/tmp}/yardstick-mvn.XXXXXX")
tmpjar=$(mktemp "$(dirname "$out")/.$(basename "$out").XXXXXX")
trap 'rm -rf "$work" "$tmpjar"' EXIT INT TERM

# shellcheck disable=SC2086
name=$(basename "$(cd "$dir" && pwd)")
(cd "$dir/.." && mvn -B -q ${MVN_FLAGS:-} -Dstyle.color=never -Dbuild.dir="$work/build" -DskipTests \
	-pl "$name" -am package)
cp "$work/build/$name/$built" "$tmpjar"
chmod 644 "$tmpjar"
mv -f "$tmpjar" "$out"
