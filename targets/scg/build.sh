#!/bin/sh
# Builds the Spring Cloud Gateway target: Maven on OpenJDK 17 (versions pinned by
# pom.xml), one jar moved into place atomically (see
# targets/jvm-common/mvn-jar.sh; JAVA17_HOME picks another JDK 17,
# MVN_FLAGS=-o builds offline).
# Usage: targets/scg/build.sh OUT.jar   (e.g. targets/scg/build.sh bin/scg.jar)
[ "$#" -eq 1 ] || { echo "usage: $0 OUT.jar" >&2; exit 2; }
exec "$(dirname "$0")/../jvm-common/mvn-jar.sh" "$(dirname "$0")" scg.jar "$1" 17
