package tabulate

import (
	"context"
	"errors"

	"golang.org/x/sync/errgroup"

	"yardstick/datasets"
)

// sinkDepth is how many row batches (about one cell's rows each) wait for
// one table's writer; it bounds what Run holds in memory.
const sinkDepth = 16

// tables holds one sink per table while Run fills them.
type tables struct {
	dir         string
	meta        datasets.Meta
	cells       *sink[datasets.Cell]
	timeseries  *sink[datasets.Interval]
	histograms  *sink[datasets.Histogram]
	spectrum    *sink[datasets.SpectrumPoint]
	samples     *sink[datasets.Sample]
	fairness    *sink[datasets.FairnessCheck]
	environment *sink[datasets.Environment]
	batches     *sink[datasets.Batch]
	comparisons *sink[datasets.Comparison]
	holds       *sink[datasets.HoldStep]
	// rows keeps the cells rows sent, for the comparisons computed from
	// them once every cell is in.
	rows []datasets.Cell
	// all lists the sinks in the order of Tables.
	all []tableSink
}

// tableSink is a sink of any row type.
type tableSink interface {
	drain(ctx context.Context) (datasets.File, error)
	end()
	abort()
}

// A sink feeds one table's writer from its own goroutine: rows sent to it
// are appended in the order they were sent.
type sink[R any] struct {
	w      *datasets.Writer[R]
	ch     chan []R
	closed bool // Close was called: the file is in place, or gone
}

func open[R any](tb *tables, t *datasets.Table[R], s **sink[R]) error {
	w, err := t.Create(tb.dir, tb.meta)
	if err != nil {
		return err
	}
	*s = &sink[R]{w: w, ch: make(chan []R, sinkDepth)}
	tb.all = append(tb.all, *s)
	return nil
}

func (tb *tables) create() error {
	return errors.Join(
		open(tb, datasets.Cells, &tb.cells),
		open(tb, datasets.Timeseries, &tb.timeseries),
		open(tb, datasets.Histograms, &tb.histograms),
		open(tb, datasets.Spectrum, &tb.spectrum),
		open(tb, datasets.Samples, &tb.samples),
		open(tb, datasets.Fairness, &tb.fairness),
		open(tb, datasets.Environments, &tb.environment),
		open(tb, datasets.Batches, &tb.batches),
		open(tb, datasets.Comparisons, &tb.comparisons),
		open(tb, datasets.Holds, &tb.holds),
	)
}

// write runs fill, which sends every table its rows, beside one writer per
// table, all under one errgroup: a fixed number of goroutines (one per
// table and the filler), each sink's depth bounding memory. The first
// failure cancels the rest. A table's file appears, complete, only once
// fill has sent everything; a table cut short is dropped (each is atomic
// on its own). Everything stops when parent ends (Ctrl-C, SIGTERM).
func (tb *tables) write(parent context.Context, fill func(ctx context.Context) error) ([]datasets.File, error) {
	g, ctx := errgroup.WithContext(parent)
	g.SetLimit(len(tb.all) + 1)
	files := make([]datasets.File, len(tb.all))
	for i, s := range tb.all {
		g.Go(func() error {
			f, err := s.drain(ctx)
			files[i] = f
			return err
		})
	}
	g.Go(func() error {
		if err := fill(ctx); err != nil {
			return err
		}
		for _, s := range tb.all {
			s.end()
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return files, nil
}

// send queues rows for the table.
func (s *sink[R]) send(ctx context.Context, rows ...R) error {
	if len(rows) == 0 {
		return nil
	}
	select {
	case s.ch <- rows:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// end says no more rows will come.
func (s *sink[R]) end() { close(s.ch) }

// drain appends the rows sent until end, then closes the writer, which
// puts the file in place; it stops early if ctx is done.
func (s *sink[R]) drain(ctx context.Context) (datasets.File, error) {
	for {
		select {
		case rows, ok := <-s.ch:
			if !ok {
				if err := ctx.Err(); err != nil {
					return datasets.File{}, err
				}
				s.closed = true
				return s.w.Close()
			}
			if err := s.w.Append(rows...); err != nil {
				return datasets.File{}, err
			}
		case <-ctx.Done():
			return datasets.File{}, ctx.Err()
		}
	}
}

// abort drops the file unless it was closed.
func (s *sink[R]) abort() {
	if !s.closed {
		s.closed = true
		s.w.Abort()
	}
}

// abort drops every table not closed yet.
func (tb *tables) abort() {
	for _, s := range tb.all {
		s.abort()
	}
}
