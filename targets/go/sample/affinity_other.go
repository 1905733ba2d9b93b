//go:build !linux

package sample

import "errors"

func pinAllThreads([]int) error {
	return errors.New("-fault-affinity needs Linux (sched_setaffinity)")
}
