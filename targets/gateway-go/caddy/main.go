// Command caddy is the Go gateway of yardstick's gateway study: Caddy v2
// with its standard modules, exactly what the upstream caddy command is,
// built from a pinned go.mod so that the binary is reproducible.
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"
)

func main() {
	caddycmd.Main()
}
