package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"yardstick/internal/synthrun"
)

func init() {
	// mkhistory RESULTS N SD [STEP AT]: a history of N runs of the
	// report fixture under RESULTS, made from one real run directory
	// (synthrun.Report with its tables) copied with its figures scaled:
	// by a seeded between-run noise of SD (log scale), and by STEP from
	// run AT (0-based) on. Run i is a day after run i-1.
	scriptCommands["mkhistory"] = func() {
		if len(os.Args) != 4 && len(os.Args) != 6 {
			fmt.Fprintln(os.Stderr, "usage: mkhistory RESULTS N SD [STEP AT]")
			os.Exit(2)
		}
		if err := mkHistory(os.Args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, "mkhistory:", err)
			os.Exit(1)
		}
	}
	// newerschema FILE: FILE's footer claims the next schema version.
	scriptCommands["newerschema"] = func() {
		if len(os.Args) != 2 {
			fmt.Fprintln(os.Stderr, "usage: newerschema FILE")
			os.Exit(2)
		}
		if err := synthrun.NewerSchema(os.Args[1]); err != nil {
			fmt.Fprintln(os.Stderr, "newerschema:", err)
			os.Exit(1)
		}
	}
}

func mkHistory(args []string) error {
	n, err1 := strconv.Atoi(args[1])
	sd, err2 := strconv.ParseFloat(args[2], 64)
	step, at := 1.0, -1
	var err3, err4 error
	if len(args) == 5 {
		step, err3 = strconv.ParseFloat(args[3], 64)
		at, err4 = strconv.Atoi(args[4])
	}
	for _, err := range []error{err1, err2, err3, err4} {
		if err != nil {
			return err
		}
	}
	tmp, err := os.MkdirTemp("", "mkhistory-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	src, _, err := synthrun.Report.Write(tmp, synthrun.Options{Tables: true})
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(uint64(n), 11))
	for i := range n {
		f := math.Exp(sd * rng.NormFloat64())
		if at >= 0 && i >= at {
			f *= step
		}
		id := time.Date(2026, 6, 1, 6, 0, 0, 0, time.UTC).AddDate(0, 0, i).Format("20060102T150405Z") + fmt.Sprintf("-%04x", i)
		if _, err := synthrun.Scaled(src.Root, args[0], id, synthrun.Scale{Factor: f}); err != nil {
			return err
		}
	}
	fmt.Println(filepath.Join(args[0], synthrun.Report.Experiment))
	return nil
}
