# Vert.x 5 (vertx-core + vertx-web) on Java 25 (targets/vertx/README.md): one shaded jar.
FRAMEWORKS += $(BIN)/vertx.jar
$(BIN)/vertx.jar: targets/vertx/build.sh targets/vertx/pom.xml $(JVM_COMMON) $(shell find targets/vertx/src -type f 2>/dev/null)
	targets/vertx/build.sh $@
