# Spring WebFlux (targets/webflux), included by the top Makefile.
FRAMEWORKS += $(BIN)/webflux.jar
$(BIN)/webflux.jar: targets/webflux/build.sh targets/webflux/pom.xml $(JVM_COMMON) $(shell find targets/webflux/src -type f 2>/dev/null)
	targets/webflux/build.sh $@
