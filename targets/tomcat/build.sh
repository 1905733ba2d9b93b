#!/bin/sh
# Builds the Spring Boot on Tomcat target: Maven on OpenJDK 17 (versions
# pinned by pom.xml's Spring Boot parent), one jar moved into place
# atomically (see targets/jvm-common/mvn-jar.sh; JAVA17_HOME picks another
# JDK 17, MVN_FLAGS=-o builds offline).
# Usage: targets/tomcat/build.sh OUT.jar   (e.g. targets/tomcat/build.sh bin/tomcat.jar)
[ "$#" -eq 1 ] || { echo "usage: $0 OUT.jar" >&2; exit 2; }
exec "$(dirname "$0")/../jvm-common/mvn-jar.sh" "$(dirname "$0")" tomcat.jar "$1" 17
