#!/bin/sh
# Builds the vertx target: Maven on Temurin 25, one jar moved into place
# atomically (see targets/jvm-common/mvn-jar.sh).
# Usage: targets/vertx/build.sh OUT.jar   (e.g. targets/vertx/build.sh bin/vertx.jar)
[ "$#" -eq 1 ] || { echo "usage: $0 OUT.jar" >&2; exit 2; }
exec "$(dirname "$0")/../jvm-common/mvn-jar.sh" "$(dirname "$0")" vertx.jar "$1"
