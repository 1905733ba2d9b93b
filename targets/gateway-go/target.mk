# The Go gateway, Caddy v2 (targets/gateway-go), included by the top Makefile.
FRAMEWORKS += $(BIN)/gateway-go
$(BIN)/gateway-go: targets/gateway-go/build.sh $(wildcard targets/gateway-go/caddy/*)
	targets/gateway-go/build.sh $@
