//go:build integration

// The history page opened in a real browser needs Chromium, not Go
// alone: this test carries the build tag integration and runs in make
// test-integration.

package history_test

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"yardstick/stages/history"
)

// consoleError matches the lines chromium logs for console messages and
// failed loads (the page has no script: any such line is an error).
var consoleError = regexp.MustCompile(`(?i)(CONSOLE\(\d+\)|:CONSOLE:).*|Failed to load resource|net::ERR_|Uncaught`)

// TestIntegrationHistoryHTMLInChromium opens history.html of a history
// with a step from disk in headless Chromium: no console message, no
// failed load, and its first screen (1280x800) shows the interval band
// (the series colour at the band's opacity over white) and the
// changepoint's mark (the colour of worse). A page without them shows
// that both pixel counts can fail.
func TestIntegrationHistoryHTMLInChromium(t *testing.T) {
	dirs := makeHistory(t, 40, 0.02, 1.2, 25, 1)
	h := build(t, dirs, history.Options{Metrics: []string{"latency_p99"}, Cell: "main/go/c8-p128"})
	out := t.TempDir()
	if _, err := h.Write(out, "v-test"); err != nil {
		t.Fatal(err)
	}
	console, shot := openInChromium(t, filepath.Join(out, "history.html"))
	if keep := os.Getenv("YARDSTICK_KEEP_SHOT"); keep != "" {
		_ = os.WriteFile(keep, shot, 0o644)
	}
	if len(console) > 0 {
		t.Errorf("chromium logged:\n%s", strings.Join(console, "\n"))
	}
	band, change := pixels(t, shot, [3]int{214, 231, 241}), pixels(t, shot, [3]int{0xc0, 0x39, 0x2b})
	t.Logf("first screen: %d band pixels, %d change-mark pixels", band, change)
	if band < 2000 || change < 50 {
		t.Errorf("first screen: %d band pixels (want 2000 or more), %d of the change mark (want 50 or more)", band, change)
	}
	bad := filepath.Join(t.TempDir(), "bad.html")
	if err := os.WriteFile(bad, []byte("<!DOCTYPE html><html><body><p>no chart</p></body></html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, shot = openInChromium(t, bad)
	if n := pixels(t, shot, [3]int{214, 231, 241}) + pixels(t, shot, [3]int{0xc0, 0x39, 0x2b}); n >= 50 {
		t.Errorf("a page without a chart shows %d band or mark pixels: the check cannot fail", n)
	}
}

// openInChromium opens page in headless Chromium: the console lines it
// logged and its 1280x800 screenshot.
func openInChromium(t *testing.T, page string) ([]string, []byte) {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("no chromium: install it (apt-get install chromium; make deps does it)")
	}
	shot := filepath.Join(t.TempDir(), "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--enable-logging=stderr", "--v=0",
		"--screenshot="+shot, "--window-size=1280,800", "--hide-scrollbars", "file://"+page)
	var stderr bytes.Buffer
	cmd.Stderr, cmd.Stdout = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	var console []string
	for _, line := range strings.Split(stderr.String(), "\n") {
		if consoleError.MatchString(line) {
			console = append(console, line)
		}
	}
	b, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, stderr.String())
	}
	return console, b
}

// pixels counts the screenshot's pixels within 8 of colour c.
func pixels(t *testing.T, shot []byte, c [3]int) int {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	near := func(a uint32, b int) bool { d := int(a>>8) - b; return d >= -8 && d <= 8 }
	n := 0
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if near(r, c[0]) && near(g, c[1]) && near(b, c[2]) {
				n++
			}
		}
	}
	return n
}
