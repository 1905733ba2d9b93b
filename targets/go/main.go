// Command sample-go is the Go sample service under test; see package
// yardstick/targets/go/sample for its endpoints and flags.
package main

import (
	"os"

	"yardstick/targets/go/sample"
)

func main() { os.Exit(sample.Main(os.Args[1:], os.Stdout, os.Stderr)) }
