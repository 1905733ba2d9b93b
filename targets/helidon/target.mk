# Helidon SE 4 on Java 25 (targets/helidon/README.md): the jar, and its
# Leyden AOT cache made by a training run against the jar just built.
HELIDON_SRC := targets/helidon/build.sh targets/helidon/pom.xml targets/jvm-common/mvn-jar.sh \
	$(shell find targets/helidon/src targets/jvm-common/src -type f 2>/dev/null) \
	$(addprefix targets/java/src/yardstick/sample/,Work.java Utf8.java Json.java Document.java AccessLog.java)

FRAMEWORKS += $(BIN)/helidon.jar $(BIN)/helidon.aot

$(BIN)/helidon.jar: $(HELIDON_SRC)
	targets/helidon/build.sh $@

$(BIN)/helidon.aot: $(BIN)/helidon.jar targets/jvm-common/aot-train.sh targets/jvm-common/train/Train.java
	targets/jvm-common/aot-train.sh $< $@
