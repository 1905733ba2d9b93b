package safetext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
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
		"::stop-commands::pwn":    `\x3a:stop-commands::pwn`,
		" \u00a0\t::error::x":     " \u00a0\t\\x3a:error::x",
		"mid::line":               "mid::line",
		"x%0Ay%0d%0b%20":          `x\x250Ay\x250d%0b%20`,
		"a ##[stop-commands]t":    `a #\x23[stop-commands]t`,
		"###[error]":              `##\x23[error]`,
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
	w := NewTerminalWriter(&b)
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
		// a ':' after a code span is inside the line, not at its start
		"environment `kernel`: `6.1` → `6.12`": "environment `kernel`: `6.1` → `6.12`",
		"x\n::stop-commands::y ##[error] %0A":  `x ::stop-commands::y #\\x23[error] \\x250A`,
	} {
		if got := MarkdownInline(in); got != want {
			t.Errorf("MarkdownInline(%q) = %q, want %q", in, got, want)
		}
	}
}

// unsafeLine says what in out could act on a terminal or on the GitHub
// Actions runner that reads it, or "".
func unsafeLine(out string) string {
	low := strings.ToLower(out)
	switch {
	case strings.ContainsAny(out, "\n\r\x1b\x00\u0085\u2028\u2029"):
		return "a line break or control character"
	case strings.Contains(low, "%0a") || strings.Contains(low, "%0d"):
		return "a percent-encoded line break"
	case strings.Contains(out, "##["):
		return "a legacy workflow command (##[)"
	case strings.HasPrefix(strings.TrimLeftFunc(out, unicode.IsSpace), ":"):
		return "a leading ':' (a workflow command)"
	case !utf8.ValidString(out):
		return "invalid UTF-8"
	}
	return ""
}

// FuzzLine: whatever the input, Line's output stays on its line, drives
// no terminal and is no workflow command, and Line is idempotent.
func FuzzLine(f *testing.F) {
	for _, s := range []string{"x\n::stop-commands::pwn\r%0A\x1b[31m", " \u00a0::x", "##[error]", "%0%0A", "\xff::", "#", ":"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Line(s)
		if why := unsafeLine(out); why != "" {
			t.Fatalf("Line(%q) = %q holds %s", s, out, why)
		}
		if again := Line(out); again != out {
			t.Fatalf("Line(Line(%q)) = %q, not %q", s, again, out)
		}
	})
}

// A TerminalWriter keeps any line from being a workflow command, even one
// split over several writes, and leaves other text alone.
func TestTerminalWriterNoWorkflowCommand(t *testing.T) {
	var b bytes.Buffer
	w := NewTerminalWriter(&b)
	for _, s := range []string{"ok: a::b ##x\n", "  ", ":", ":stop-commands::t\n", "#", "#", "[error]x\n", "\u00a0::y a::b\n", "::z"} {
		if _, err := w.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	want := "ok: a::b ##x\n  \\x3a:stop-commands::t\n##\\x5berror]x\n\u00a0\\x3a:y a::b\n\\x3a:z"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// JSON escapes by Line's rules and stays JSON that decodes to the same
// values.
func TestJSON(t *testing.T) {
	in := map[string]string{"s": "x\n::stop-commands::pwn\r%0A\x1b[31m ##[error] \u0085 \u202e \U000e0001 <&> %20"}
	enc, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out := JSON(enc)
	if why := unsafeLine(string(out)); why != "" {
		t.Fatalf("JSON(%s) = %s holds %s", enc, out, why)
	}
	if strings.ContainsAny(string(out), "\u202e\U000e0001") {
		t.Errorf("JSON(%s) = %s keeps a format character", enc, out)
	}
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatalf("JSON(%s) = %s: %v", enc, out, err)
	}
	if back["s"] != in["s"] {
		t.Errorf("JSON(%s) decodes to %q, want %q", enc, back["s"], in["s"])
	}
}

// GitHub's rules for a workflow command: data escapes %, CR and LF;
// properties also ':' and ','. Line's escapes come first, so the runner
// decodes an escaped, one-line text.
func TestGitHub(t *testing.T) {
	for _, c := range []struct{ in, data, prop string }{
		{"plain", "plain", "plain"},
		{"50% of a,b:c", "50%25 of a,b:c", "50%25 of a%2Cb%3Ac"},
		{"x\n::stop-commands::pwn\r%0A", `x\x0a::stop-commands::pwn\x0d\x250A`, `x\x0a%3A%3Astop-commands%3A%3Apwn\x0d\x250A`},
		{"::error::x", `\x3a:error::x`, `\x3a%3Aerror%3A%3Ax`},
		{"experiments/a b,c.cue", "experiments/a b,c.cue", "experiments/a b%2Cc.cue"},
	} {
		if got := GitHubData(c.in); got != c.data {
			t.Errorf("GitHubData(%q) = %q, want %q", c.in, got, c.data)
		}
		if got := GitHubProperty(c.in); got != c.prop {
			t.Errorf("GitHubProperty(%q) = %q, want %q", c.in, got, c.prop)
		}
	}
}

// An @-mention in Markdown text or a table cell notifies no one: the '@'
// is followed by a zero-width space; in code it is inert as it is.
func TestMarkdownMentions(t *testing.T) {
	if got, want := MarkdownCell("cc @octocat"), "cc @&#8203;octocat"; got != want {
		t.Errorf("MarkdownCell = %q, want %q", got, want)
	}
	if got, want := MarkdownInline("ask @org/team about `a@b`"), "ask @&#8203;org/team about `a@b`"; got != want {
		t.Errorf("MarkdownInline = %q, want %q", got, want)
	}
}
