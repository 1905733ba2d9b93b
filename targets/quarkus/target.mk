# Quarkus 3 in JVM mode on Java 25 (targets/quarkus/README.md): the uber-jar.
FRAMEWORKS += $(BIN)/quarkus.jar
$(BIN)/quarkus.jar: targets/quarkus/build.sh targets/quarkus/pom.xml $(JVM_COMMON) $(shell find targets/quarkus/src -type f 2>/dev/null)
	targets/quarkus/build.sh $@
