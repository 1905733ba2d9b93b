package tabulate_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"yardstick/datasets"
	"yardstick/internal/synthrun"
	"yardstick/stages/tabulate"
)

// A cancelled context (Ctrl-C, SIGTERM) ends the stage: no table is
// written, and the error says why.
func TestRunStopsWithContext(t *testing.T) {
	rd, _ := writeFixture(t, synthrun.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := tabulate.Run(rd.WithContext(ctx), "v-test")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if _, err := os.Stat(datasets.Cells.Path(rd.Root)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cells.parquet written by a cancelled run: %v", err)
	}
}
