package report

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// chromium is where Debian's chromium package puts the browser.
const chromium = "/usr/bin/chromium"

// consoleError matches the lines chromium logs (with --enable-logging=stderr)
// for console messages of level error, and for failed loads.
var consoleError = regexp.MustCompile(`(?i)(CONSOLE\(\d+\)|:CONSOLE:).*|Failed to load resource|net::ERR_|Uncaught`)

// openInChromium opens page from disk in headless Chromium and returns
// the console lines it logged and its screenshot. Chromium logs every
// console message (console.log and console.error alike) as a CONSOLE line
// at level INFO; the report has no script, so any such line is an error.
func openInChromium(t *testing.T, page string) (console []string, png []byte) {
	t.Helper()
	bin := chromium
	if _, err := os.Stat(bin); err != nil {
		p, lerr := exec.LookPath("chromium")
		if lerr != nil {
			t.Fatalf("no %s: install chromium (apt-get install chromium; make deps does it)", chromium)
		}
		bin = p
	}
	shot := filepath.Join(t.TempDir(), "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--enable-logging=stderr", "--v=0",
		"--screenshot="+shot, "--window-size=1280,2000", "file://"+page)
	var stderr bytes.Buffer
	cmd.Stderr, cmd.Stdout = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if consoleError.MatchString(line) {
			console = append(console, line)
		}
	}
	png, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, stderr.String())
	}
	return console, png
}

// TestReportHTMLInChromium opens report.html from disk in headless
// Chromium, checks the browser logged no console message and no failed
// load, and keeps its screenshot (testdata/out/report.png, ignored by git).
// A page that does log an error shows that the check sees one.
func TestReportHTMLInChromium(t *testing.T) {
	res := render(t, Options{})
	errs, png := openInChromium(t, filepath.Join(res.Out, "report.html"))
	if len(errs) > 0 {
		t.Errorf("chromium logged console errors or failed loads:\n%s", strings.Join(errs, "\n"))
	}
	if len(png) < 20_000 || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("screenshot is %d bytes or not a PNG: the page looks empty", len(png))
	}
	keep := filepath.Join("testdata", "out")
	if err := os.MkdirAll(keep, 0o755); err == nil {
		if err := os.WriteFile(filepath.Join(keep, "report.png"), png, 0o644); err == nil {
			t.Logf("screenshot: %s", filepath.Join(keep, "report.png"))
		}
	}

	bad := filepath.Join(t.TempDir(), "bad.html")
	if err := os.WriteFile(bad, []byte(`<!DOCTYPE html><html><body><script>console.error("broken chart")</script></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	if errs, _ := openInChromium(t, bad); len(errs) == 0 {
		t.Error("the console check missed console.error on a bad page")
	}
}

// The page is self-contained: no script, no external reference.
func TestHTMLSelfContained(t *testing.T) {
	res := render(t, Options{})
	h := string(read(t, filepath.Join(res.Out, "report.html")))
	for _, bad := range []string{"<script", "src=\"http", "href=\"http", "<img", "@import", "url("} {
		if strings.Contains(h, bad) {
			t.Errorf("report.html contains %q", bad)
		}
	}
	if n := strings.Count(h, "<svg "); n < 10 {
		t.Errorf("report.html inlines %d charts", n)
	}
}
