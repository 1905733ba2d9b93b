//go:build frameworks

// Package quarkus_test checks the Quarkus 3 target as `make frameworks`
// built it (bin/quarkus.jar), from outside: every endpoint, the access-log
// switch, the event-loop and worker threads in /proc, the @Blocking
// /api/sleep on the worker pool and SIGTERM. A missing jar or JDK 25 fails
// the tests with what to do; they never skip.
package quarkus_test

import (
	"testing"

	"yardstick/targets/internal/svctest"
)

// TestQuarkus: one HTTP server instance per event loop (io-threads), the
// worker pool's executor-thread-N threads, and HEAD answered by Quarkus
// REST from the GET method, without the body and without Content-Length
// (Go sends the GET's length), logged as 0 bytes.
func TestQuarkus(t *testing.T) {
	svctest.RunEventLoopTarget(t, svctest.EventLoopTarget{Prog: "quarkus", Workers: `^executor-thread`})
}
