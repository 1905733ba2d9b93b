# Spring Cloud Gateway (targets/scg), included by the top Makefile.
FRAMEWORKS += $(BIN)/scg.jar
$(BIN)/scg.jar: targets/scg/build.sh targets/scg/pom.xml targets/pom.xml targets/jvm-common/mvn-jar.sh $(shell find targets/scg/src -type f 2>/dev/null)
	targets/scg/build.sh $@
