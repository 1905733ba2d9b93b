package main

import (
	"fmt"
	"os"
	"strconv"

	"yardstick/internal/synthrun"
	"yardstick/pipeline"
)

// mkrun writes the synthrun.Datasets fixture run under the results directory it
// is given: mkrun RESULTS [PENDING [FAILED]].
func init() {
	scriptCommands["mkrun"] = func() {
		args := os.Args[1:]
		if len(args) < 1 {
			fmt.Fprintln(os.Stderr, "usage: mkrun RESULTS [PENDING [FAILED]]")
			os.Exit(2)
		}
		var o synthrun.Options
		if len(args) > 1 {
			o.Pending, _ = strconv.Atoi(args[1])
		}
		if len(args) > 2 {
			o.Failed, _ = strconv.Atoi(args[2])
		}
		if _, _, err := synthrun.Datasets.Write(args[0], o); err != nil {
			fmt.Fprintln(os.Stderr, "mkrun:", err)
			os.Exit(1)
		}
		fmt.Println(synthrun.Datasets.Path(args[0]))
	}
}

// mkreportrun writes the report stage's fixture run (five repeats, a heap
// batch, a failed and an unfair cell) with its Parquet tables under the
// results directory it is given: mkreportrun RESULTS [RUNID [RERUN_OF]].
// With RERUN_OF it writes a lock.json that says the run reran that one.
func init() {
	scriptCommands["mkreportrun"] = func() {
		if len(os.Args) < 2 || len(os.Args) > 4 {
			fmt.Fprintln(os.Stderr, "usage: mkreportrun RESULTS [RUNID [RERUN_OF]]")
			os.Exit(2)
		}
		o := synthrun.Options{Tables: true}
		if len(os.Args) > 2 {
			o.RunID = os.Args[2]
		}
		rd, _, err := synthrun.Report.Write(os.Args[1], o)
		if err == nil && len(os.Args) > 3 {
			err = rd.WriteLock(&pipeline.Lock{Version: pipeline.LockVersion, Binaries: []pipeline.Binary{}, RerunOf: os.Args[3]})
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "mkreportrun:", err)
			os.Exit(1)
		}
		fmt.Println(rd.Root)
	}
}
