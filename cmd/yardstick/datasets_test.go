package main

import (
	"fmt"
	"os"
	"strconv"

	"yardstick/stages/tabulate/tabulatetest"
)

// mkrun writes the tabulatetest fixture run under the results directory it
// is given: mkrun RESULTS [PENDING [FAILED]].
func init() {
	scriptCommands["mkrun"] = func() {
		args := os.Args[1:]
		if len(args) < 1 {
			fmt.Fprintln(os.Stderr, "usage: mkrun RESULTS [PENDING [FAILED]]")
			os.Exit(2)
		}
		var o tabulatetest.Options
		if len(args) > 1 {
			o.Pending, _ = strconv.Atoi(args[1])
		}
		if len(args) > 2 {
			o.Failed, _ = strconv.Atoi(args[2])
		}
		if _, _, err := tabulatetest.Write(args[0], o); err != nil {
			fmt.Fprintln(os.Stderr, "mkrun:", err)
			os.Exit(1)
		}
		fmt.Println(tabulatetest.Path(args[0]))
	}
}
