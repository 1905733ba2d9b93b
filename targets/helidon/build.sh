#!/bin/sh
# Builds the helidon target: Maven on Temurin 25, one jar moved into place
# atomically (see targets/jvm-common/mvn-jar.sh).
# Usage: targets/helidon/build.sh OUT.jar   (e.g. targets/helidon/build.sh bin/helidon.jar)
[ "$#" -eq 1 ] || { echo "usage: $0 OUT.jar" >&2; exit 2; }
exec "$(dirname "$0")/../jvm-common/mvn-jar.sh" "$(dirname "$0")" helidon.jar "$1"
