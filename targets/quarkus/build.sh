#!/bin/sh
# Builds the quarkus target: Maven on Temurin 25, one jar moved into place
# atomically (see targets/jvm-common/mvn-jar.sh).
# Usage: targets/quarkus/build.sh OUT.jar   (e.g. targets/quarkus/build.sh bin/quarkus.jar)
[ "$#" -eq 1 ] || { echo "usage: $0 OUT.jar" >&2; exit 2; }
exec "$(dirname "$0")/../jvm-common/mvn-jar.sh" "$(dirname "$0")" quarkus.jar "$1"
