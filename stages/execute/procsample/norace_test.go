//go:build !race

package procsample

const raceEnabled = false
