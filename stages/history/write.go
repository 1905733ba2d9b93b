package history

import (
	"bytes"
	"fmt"
	"html"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"yardstick/datasets"
	"yardstick/pipeline"
)

// css is the report's page style, for a history page that reads as the
// report's pages do.
const css = `body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:24px auto;max-width:1400px;padding:0 16px;color:#222;background:#fff}
h1{font-size:24px}h2{font-size:20px;border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:32px}
figure{margin:8px 0}figure svg{max-width:100%;height:auto}pre{white-space:pre-wrap}`

// Write writes the history into dir (made if missing; refused when it is
// a symbolic link): history.md, history.html, history-<metric>.svg per
// metric, and history.parquet, each atomically. It returns the files written.
func (h *History) Write(dir, version string) ([]string, error) {
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil, fmt.Errorf("history: %s is a symbolic link: refused, as a report/ that is one is", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	var md bytes.Buffer
	if err := h.WriteText(&md, true); err != nil {
		return nil, err
	}
	files := map[string][]byte{"history.md": md.Bytes()}
	var page bytes.Buffer
	fmt.Fprintf(&page, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<link rel=\"icon\" href=\"data:,\">\n<title>History of %s</title>\n<style>\n%s\n</style>\n</head>\n<body>\n",
		html.EscapeString(h.Experiment), css)
	var words bytes.Buffer
	if err := h.WriteText(&words, false); err != nil {
		return nil, err
	}
	fmt.Fprintf(&page, "<h1>History of %s</h1>\n<pre>%s</pre>\n", html.EscapeString(h.Experiment), html.EscapeString(words.String()))
	for _, m := range h.metrics() {
		svg := h.SVG(m)
		files["history-"+m+".svg"] = svg
		fmt.Fprintf(&page, "<h2>%s</h2>\n<figure>%s</figure>\n", html.EscapeString(m), svg)
	}
	page.WriteString("</body>\n</html>\n")
	files["history.html"] = page.Bytes()
	var out []string
	for _, name := range slices.Sorted(maps.Keys(files)) {
		p := filepath.Join(dir, name)
		if err := pipeline.WriteFileAtomic(p, files[name]); err != nil {
			return out, err
		}
		out = append(out, p)
	}
	f, err := datasets.History.Write(dir, h.Meta(version), h.Rows())
	if err != nil {
		return out, err
	}
	return append(out, f.Path), nil
}

// metrics are the metrics of the history's series, in the comparisons
// table's order.
func (h *History) metrics() []string {
	var out []string
	for _, m := range MetricNames() {
		if slices.ContainsFunc(h.Series, func(s Series) bool { return s.Metric == m }) {
			out = append(out, m)
		}
	}
	return out
}
