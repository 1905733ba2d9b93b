//go:build integration

// The report opened in a real browser needs Chromium, not Go alone: this
// test carries the build tag integration and runs in make test-integration.

package report

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
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
		"--screenshot="+shot, "--window-size=1280,800", "--hide-scrollbars", "file://"+page)
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

// TestIntegrationReportHTMLInChromium opens report.html from disk in
// headless Chromium, checks the browser logged no console message and no
// failed load, and keeps its 1280x800 screenshot (testdata/out/report.png,
// ignored by git): that first screen must show a chart, which the
// screenshot's series colours prove. A page that logs an error and has no
// chart shows that both checks see the difference.
func TestIntegrationReportHTMLInChromium(t *testing.T) {
	res := render(t, Options{})
	errs, shot := openInChromium(t, filepath.Join(res.Out, "report.html"))
	if len(errs) > 0 {
		t.Errorf("chromium logged console errors or failed loads:\n%s", strings.Join(errs, "\n"))
	}
	if len(shot) < 20_000 || !bytes.HasPrefix(shot, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("screenshot is %d bytes or not a PNG: the page looks empty", len(shot))
	}
	keep := filepath.Join("testdata", "out")
	if err := os.MkdirAll(keep, 0o755); err == nil {
		if err := os.WriteFile(filepath.Join(keep, "report.png"), shot, 0o644); err == nil {
			t.Logf("screenshot: %s", filepath.Join(keep, "report.png"))
		}
	}
	n := seriesPixels(t, shot)
	t.Logf("first screen: %d pixels of series colour", n)
	if n < 100 {
		t.Errorf("the first screen (1280x800) shows %d pixels of series colour: no chart on it", n)
	}

	bad := filepath.Join(t.TempDir(), "bad.html")
	if err := os.WriteFile(bad, []byte(`<!DOCTYPE html><html><body><table><tr><td>host</td><td>bench-01</td></tr></table><script>console.error("broken chart")</script></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	errs, shot = openInChromium(t, bad)
	if len(errs) == 0 {
		t.Error("the console check missed console.error on a bad page")
	}
	if n := seriesPixels(t, shot); n >= 100 {
		t.Errorf("a page without a chart shows %d pixels of series colour: the chart check cannot fail", n)
	} else {
		t.Logf("a page without a chart: %d pixels of series colour", n)
	}
}

// seriesPixels counts the pixels of a 1280x800 screenshot that are close
// to one of the first three series colours: only the charts draw them.
func seriesPixels(t *testing.T, shot []byte) int {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 800 {
		t.Fatalf("screenshot is %dx%d, want the 1280x800 first screen", b.Dx(), b.Dy())
	}
	var want [][3]int
	for _, c := range palette[:3] {
		var r, g, b int
		if _, err := fmt.Sscanf(c, "#%02x%02x%02x", &r, &g, &b); err != nil {
			t.Fatalf("palette colour %q: %v", c, err)
		}
		want = append(want, [3]int{r, g, b})
	}
	n := 0
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			for _, w := range want {
				if abs(int(r>>8)-w[0]) <= 12 && abs(int(g>>8)-w[1]) <= 12 && abs(int(b>>8)-w[2]) <= 12 {
					n++
					break
				}
			}
		}
	}
	return n
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
