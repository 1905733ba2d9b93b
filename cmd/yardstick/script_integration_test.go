//go:build integration

package main

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestIntegrationScripts runs testdata/integration/*.txtar (make
// test-integration): the scripts that measure real targets for many
// seconds, run the JVM sample target, or have readers that are not ours
// (DuckDB under Node.js, pandas, polars, the notebook in the .venv) check
// a run's tables. YARDSTICK_UPDATE=1 rewrites their golden sections too.
func TestIntegrationScripts(t *testing.T) {
	testscript.Run(t, scriptParams("testdata/integration", true))
}
