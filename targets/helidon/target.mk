# Helidon SE 4 on Java 25 (targets/helidon/README.md): the jar, and its
# Leyden AOT cache made by a training run against the jar just built.
FRAMEWORKS += $(BIN)/helidon.jar $(BIN)/helidon.aot

$(BIN)/helidon.jar: targets/helidon/build.sh targets/helidon/pom.xml $(JVM_COMMON) $(shell find targets/helidon/src -type f 2>/dev/null)
	targets/helidon/build.sh $@

$(BIN)/helidon.aot: $(BIN)/helidon.jar targets/jvm-common/aot-train.sh targets/jvm-common/train/Train.java
	targets/jvm-common/aot-train.sh $< $@
