package datasets_test

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"yardstick/datasets"
)

// docType is how SCHEMA.md writes an Arrow type, and what DuckDB shows
// for it.
func docType(t arrow.DataType) (arrowName, duckName string) {
	switch t := t.(type) {
	case *arrow.DictionaryType:
		if t.ValueType.ID() == arrow.STRING {
			return "dictionary<utf8>", "VARCHAR"
		}
	case *arrow.StringType:
		return "utf8", "VARCHAR"
	case *arrow.Int64Type:
		return "int64", "BIGINT"
	case *arrow.Float64Type:
		return "float64", "DOUBLE"
	case *arrow.BooleanType:
		return "bool", "BOOLEAN"
	case *arrow.TimestampType:
		if t.Unit == arrow.Microsecond && t.TimeZone == "UTC" {
			return "timestamp[us, UTC]", "TIMESTAMP WITH TIME ZONE"
		}
	}
	return "?" + t.String(), "?"
}

// docColumn is one row of a table in SCHEMA.md.
type docColumn struct {
	name, arrow, duck, unit, null, meaning string
}

// readSchemaDoc parses the column tables of SCHEMA.md: a "### `name`"
// heading, then a Markdown table | column | Arrow type | DuckDB type |
// unit | null | meaning |. check.mjs parses the same tables.
func readSchemaDoc(t *testing.T) map[string][]docColumn {
	t.Helper()
	f, err := os.Open("SCHEMA.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]docColumn{}
	table := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if h, ok := strings.CutPrefix(line, "### "); ok {
			table = strings.Trim(h, "` ")
			continue
		}
		if table == "" || !strings.HasPrefix(line, "|") {
			if table != "" && len(out[table]) > 0 {
				table = ""
			}
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if len(cells) != 6 || cells[0] == "column" || strings.HasPrefix(cells[0], "---") {
			continue
		}
		out[table] = append(out[table], docColumn{
			name: strings.Trim(cells[0], "`"), arrow: strings.Trim(cells[1], "`"), duck: cells[2],
			unit: cells[3], null: cells[4], meaning: cells[5],
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSchemaDocMatchesTables: SCHEMA.md documents every column of every
// table, in order, with its type and nullability.
func TestSchemaDocMatchesTables(t *testing.T) {
	doc := readSchemaDoc(t)
	if os.Getenv("YARDSTICK_SCHEMA_SKELETON") == "1" {
		for _, name := range datasets.Names {
			fmt.Printf("\n### `%s`\n\n| column | Arrow type | DuckDB type | unit | null | meaning |\n|---|---|---|---|---|---|\n", name)
			for _, f := range datasets.SchemaOf(name).Fields() {
				a, d := docType(f.Type)
				null := "no"
				if f.Nullable {
					null = "yes"
				}
				fmt.Printf("| `%s` | `%s` | %s |  | %s |  |\n", f.Name, a, d, null)
			}
		}
	}
	for _, name := range append(datasets.Names, datasets.History.Name()) {
		fields := datasets.SchemaOf(name).Fields()
		cols := doc[name]
		if len(cols) != len(fields) {
			t.Errorf("SCHEMA.md: table %s has %d columns, the code %d", name, len(cols), len(fields))
		}
		for i, f := range fields {
			if i >= len(cols) {
				t.Errorf("SCHEMA.md: %s.%s missing", name, f.Name)
				continue
			}
			c := cols[i]
			a, d := docType(f.Type)
			null := "no"
			if f.Nullable {
				null = "yes"
			}
			if c.name != f.Name || c.arrow != a || c.duck != d || c.null != null {
				t.Errorf("SCHEMA.md: %s column %d reads %s %s %s null=%s, the code has %s %s %s null=%s",
					name, i+1, c.name, c.arrow, c.duck, c.null, f.Name, a, d, null)
			}
			if c.meaning == "" {
				t.Errorf("SCHEMA.md: %s.%s has no meaning", name, f.Name)
			}
		}
	}
	for name := range doc {
		if datasets.SchemaOf(name) == nil {
			t.Errorf("SCHEMA.md documents table %s, which the code does not have", name)
		}
	}
}
