#!/bin/sh
# Builds the vertx target: Maven on Temurin 25, one jar moved into place
# atomically (see targets/jvm-common/mvn-jar.sh).
# Usage: targets/vertx/build.sh OUT.jar   (e.g. targets/vertx/build.sh bin/vertx.jar)
set -eu

if [ "$#" -ne 1 ]; then
	echo "usage: $0 OUT.jar" >&2
	exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../jvm-common/mvn-jar.sh" "$here" vertx.jar "$1"
