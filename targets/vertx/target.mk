# Vert.x 5 (vertx-core + vertx-web) on Java 25 (targets/vertx/README.md): one shaded jar.
VERTX_SRC := targets/vertx/build.sh targets/vertx/pom.xml targets/jvm-common/mvn-jar.sh \
	$(shell find targets/vertx/src targets/jvm-common/src -type f 2>/dev/null) \
	$(addprefix targets/java/src/yardstick/sample/,Work.java Utf8.java Json.java Document.java AccessLog.java)

FRAMEWORKS += $(BIN)/vertx.jar

$(BIN)/vertx.jar: $(VERTX_SRC)
	targets/vertx/build.sh $@
