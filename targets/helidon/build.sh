#!/bin/sh
# Builds the helidon target: Maven on Temurin 25, one jar moved into place
# atomically (see targets/jvm-common/mvn-jar.sh).
# Usage: targets/helidon/build.sh OUT.jar   (e.g. targets/helidon/build.sh bin/helidon.jar)
set -eu

if [ "$#" -ne 1 ]; then
	echo "usage: $0 OUT.jar" >&2
	exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../jvm-common/mvn-jar.sh" "$here" helidon.jar "$1"
