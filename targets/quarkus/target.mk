# Quarkus 3 in JVM mode on Java 25 (targets/quarkus/README.md): the uber-jar.
QUARKUS_SRC := targets/quarkus/build.sh targets/quarkus/pom.xml targets/jvm-common/mvn-jar.sh \
	$(shell find targets/quarkus/src targets/jvm-common/src -type f 2>/dev/null) \
	$(addprefix targets/java/src/yardstick/sample/,Work.java Utf8.java Json.java Document.java AccessLog.java)

FRAMEWORKS += $(BIN)/quarkus.jar

$(BIN)/quarkus.jar: $(QUARKUS_SRC)
	targets/quarkus/build.sh $@
