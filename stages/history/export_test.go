package history

import (
	"os"
	"path/filepath"
)

// CleanupReport removes the report fixture's run the internal tests
// wrote, if they did (TestMain calls it).
func CleanupReport() {
	if report.rd != nil {
		os.RemoveAll(filepath.Dir(filepath.Dir(report.rd.Root)))
	}
}
