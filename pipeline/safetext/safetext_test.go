package safetext

import (
	"bytes"
	"testing"
)

func TestTerminal(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, tab\tand newline\n": "plain text, tab\tand newline\n",
		"red \x1b[31mALERT\x1b[0m":       `red \x1b[31mALERT\x1b[0m`,
		"bell\a back\b cr\r del\x7f":     `bell\x07 back\x08 cr\x0d del\x7f`,
		"c1 \u009b31m":                   `c1 \x9b31m`,
		"bidi \u202eevil\u202c":          `bidi \u202eevil\u202c`,
		"bad utf8 \xff\xfe":              `bad utf8 \xff\xfe`,
		"unicode ok: µs → 🐹":             "unicode ok: µs → 🐹",
		"zero\u200bwidth\ufeff\u2060":    `zero\u200bwidth\ufeff\u2060`,
		"line\u2028para\u2029sep":        `line\u2028para\u2029sep`,
		"nel\u0085":                      `nel\x85`,
	} {
		if got := Terminal(in); got != want {
			t.Errorf("Terminal(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLine: text meant for one line keeps to it: newlines and carriage
// returns are escaped too.
func TestLine(t *testing.T) {
	for in, want := range map[string]string{
		"one line":                "one line",
		"two\nlines\r\n":          `two\x0alines\x0d\x0a`,
		"sep\u2028cells: 0\u200d": `sep\u2028cells: 0\u200d`,
		"tab\tstays":              "tab\tstays",
	} {
		if got := Line(in); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTerminalWriter(t *testing.T) {
	var b bytes.Buffer
	w := TerminalWriter{W: &b}
	for _, s := range []string{ProgressRedraw + "[1/2] cell \x1b]0;title\x07", "\n", "\r\x1b[2J"} {
		if n, err := w.Write([]byte(s)); err != nil || n != len(s) {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	want := ProgressRedraw + `[1/2] cell \x1b]0;title\x07` + "\n" + `\x0d\x1b[2J`
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

func TestMarkdownCell(t *testing.T) {
	for in, want := range map[string]string{
		"main/go/c1/r1":                 "main/go/c1/r1",
		"a|b":                           `a\|b`,
		"[click](javascript:alert(1))":  `\[click\](javascript:alert(1))`,
		"<img src=x onerror=alert(1)>":  "&lt;img src=x onerror=alert(1)&gt;",
		"two\nlines\r\n":                "two lines ",
		"*bold* _em_ ~~del~~ `code` \\": "*bold* _em_ ~~del~~ \\`code\\` \\\\",
		"esc \x1b[31m":                  `esc \\x1b\[31m`,
	} {
		if got := MarkdownCell(in); got != want {
			t.Errorf("MarkdownCell(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMarkdownCode(t *testing.T) {
	for in, want := range map[string]string{
		"":                "",
		"-XX:+UseG1GC":    "`-XX:+UseG1GC`",
		"a|b":             "`a\\|b`",
		"x ``` y":         "````x ``` y````",
		"`start":          "`` `start ``",
		"line\nbreak":     "`line break`",
		"esc \x1b[2J now": "`esc \\x1b[2J now`",
	} {
		if got := MarkdownCode(in); got != want {
			t.Errorf("MarkdownCode(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzMarkdownCell: no output of MarkdownCell can end a table cell, start
// a line, raw HTML or a link, whatever the input.
func FuzzMarkdownCell(f *testing.F) {
	for _, s := range []string{"a|b", "<x>", "[a](b)", "x\ny", "\x1b[31m"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := MarkdownCell(s)
		for i := 0; i < len(out); i++ {
			c := out[i]
			switch {
			case c == '\n' || c == '\r' || c == '<' || c == '>':
				t.Fatalf("MarkdownCell(%q) = %q holds %q", s, out, c)
			case c == '|' || c == '[' || c == ']' || c == '`':
				if backslashesBefore(out, i)%2 == 0 {
					t.Fatalf("MarkdownCell(%q) = %q: unescaped %q at %d", s, out, c, i)
				}
			}
		}
	})
}

func backslashesBefore(s string, i int) int {
	n := 0
	for i > 0 && s[i-1] == '\\' {
		n++
		i--
	}
	return n
}

// Text of a heading or paragraph cannot add a line, raw HTML, a link or
// a table: only its `code` spans stay markup.
func TestMarkdownInline(t *testing.T) {
	for in, want := range map[string]string{
		"Which wins?\n<script>alert(1)</script>\n| a | b |":    `Which wins? &lt;script>alert(1)&lt;/script> \| a \| b \|`,
		"tail >10 ms at `c8-p128`":                             "tail >10 ms at `c8-p128`",
		"# not a heading":                                      `\# not a heading`,
		"> not a quote":                                        `\> not a quote`,
		"1. not a list":                                        `1\. not a list`,
		"see [link](http://x) ![i][r] and `a|b` and `unpaired": "see [link]\\(http://x) ![i]\\[r] and `a\\|b` and \\`unpaired",
		"[r]: http://x":                                        `\[r]: http://x`,
		"UNFAIR steady_state [cell main], 5 cells":             "UNFAIR steady_state [cell main], 5 cells",
		"R&D &gt;": "R&amp;D &amp;gt;",
	} {
		if got := MarkdownInline(in); got != want {
			t.Errorf("MarkdownInline(%q) = %q, want %q", in, got, want)
		}
	}
}
