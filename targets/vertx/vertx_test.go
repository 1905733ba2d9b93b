//go:build frameworks

// Package vertx_test checks the Vert.x 5 target as `make frameworks` built
// it (bin/vertx.jar), from outside: every endpoint, the access-log switch,
// the event-loop and worker threads in /proc, /api/sleep on the worker pool
// and SIGTERM. A missing jar or JDK 25 fails the tests with what to do;
// they never skip.
package vertx_test

import (
	"testing"

	"yardstick/targets/internal/svctest"
)

// TestVertx: one HTTP verticle per event loop, the worker pool's
// vert.x-worker-thread-N threads, and HEAD with the GET's Content-Length,
// as Go's server sends it.
func TestVertx(t *testing.T) {
	svctest.RunEventLoopTarget(t, svctest.EventLoopTarget{Prog: "vertx", Workers: `^vert\.x-worker-t`, HeadLength: true})
}
