package synthrun

import (
	"bytes"
	"os"
	"testing"

	"yardstick/datasets"
	"yardstick/stages/tabulate"
)

// Tabulating the same run again gives the same bytes, table by table: a
// column that falls back from dictionary to plain pages part-way once
// made the writer list its encodings in a random order in the footer.
func TestRetabulateIdentical(t *testing.T) {
	rd, _, err := Report.Write(t.TempDir(), Options{Tables: true})
	if err != nil {
		t.Fatal(err)
	}
	first := map[string][]byte{}
	for _, name := range datasets.Names {
		b, err := os.ReadFile(rd.Path(name + ".parquet"))
		if err != nil {
			t.Fatal(err)
		}
		first[name] = b
	}
	for range 5 {
		if _, err := tabulate.Run(rd, Yardstick); err != nil {
			t.Fatal(err)
		}
		for name, want := range first {
			if b, _ := os.ReadFile(rd.Path(name + ".parquet")); !bytes.Equal(b, want) {
				t.Fatalf("%s.parquet differs after tabulating again", name)
			}
		}
	}
}
