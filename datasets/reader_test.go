package datasets_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"yardstick/datasets"
)

// TestReadMalformedIsAnError damages a real table file's footer (the
// Parquet schema and row-group metadata) one byte at a time: every read of
// a damaged copy returns rows or an error that names the file, never a
// panic. Much of that damage (an invalid logical type, a negative length)
// makes the Parquet decoder panic; the test checks that the reader caught
// such panics, so that it exercises the guard and not only the decoder's
// own errors.
//
// The key/value metadata at the footer's end is left alone: damage to the
// embedded Arrow schema or to a page header can make the decoder allocate
// gigabytes, a fatal out-of-memory that no recover catches: a limit of
// the Parquet library this guard cannot lift.
func TestReadMalformedIsAnError(t *testing.T) {
	dir := t.TempDir()
	desc := "a batch"
	rows := []datasets.Batch{
		{Batch: "main", Description: &desc, Processors: 1, CPUsTarget: "0", CPUsLoadgen: "1", NoiseBand: 0.07, Repeats: 5, Order: "grouped", Variants: 3},
		{Batch: "heap", Processors: 2, CPUsTarget: "0-1", CPUsLoadgen: "2", NoiseBand: 0.05, Repeats: 1, Order: "grouped", Variants: 3},
	}
	if _, err := datasets.Batches.Write(dir, testMeta, rows); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(datasets.Batches.Path(dir))
	if err != nil {
		t.Fatal(err)
	}
	// The footer: its length is the little-endian uint32 before the
	// trailing magic; its key/value metadata starts before the first key.
	footer := len(src) - 8 - int(binary.LittleEndian.Uint32(src[len(src)-8:]))
	kv := bytes.Index(src[footer:], []byte("ARROW:schema"))
	if k := bytes.Index(src[footer:], []byte(datasets.KeySchemaVersion)); k >= 0 && (kv < 0 || k < kv) {
		kv = k
	}
	if footer <= 4 || kv <= 0 {
		t.Fatalf("no footer with key/value metadata in %d bytes (footer at %d, metadata at %d)", len(src), footer, kv)
	}
	bad := filepath.Join(t.TempDir(), "batches.parquet")
	caught, errs := 0, 0
	for i := footer; i < footer+kv; i++ {
		for _, x := range []byte{0x80, 0x01} {
			b := bytes.Clone(src)
			b[i] ^= x
			if err := os.WriteFile(bad, b, 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := datasets.Batches.Read(bad)
			if err == nil {
				continue
			}
			errs++
			if strings.Contains(err.Error(), "malformed Parquet file") {
				caught++
			}
			if !strings.Contains(err.Error(), bad) {
				t.Fatalf("byte %d ^ %#x: error does not name the file: %v", i, x, err)
			}
		}
	}
	t.Logf("%d damaged copies: %d errors, %d of them decoder panics caught", 2*kv, errs, caught)
	if caught == 0 {
		t.Error("no damaged copy made the decoder panic: the guard is not exercised")
	}
}

// A missing table file is an error that says so.
func TestReadMissing(t *testing.T) {
	_, _, err := datasets.Cells.Read(filepath.Join(t.TempDir(), "cells.parquet"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("err = %v, want one wrapping fs.ErrNotExist", err)
	}
}
