# Spring Boot on Tomcat (targets/tomcat), the scenarios study's blocking server, included by the top Makefile.
FRAMEWORKS += $(BIN)/tomcat.jar
$(BIN)/tomcat.jar: targets/tomcat/build.sh targets/tomcat/pom.xml $(JVM_COMMON) $(shell find targets/tomcat/src -type f 2>/dev/null)
	targets/tomcat/build.sh $@
