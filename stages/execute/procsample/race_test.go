//go:build race

package procsample

// raceEnabled: the race detector shadows memory, so a touched page costs
// more than a page of RSS.
const raceEnabled = true
