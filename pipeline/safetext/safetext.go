// Package safetext makes untrusted text safe for where it is shown.
// Definitions come from pull requests and run directories from
// colleagues: a name, a header value or an error message read from them
// must not move a terminal's cursor, rewrite a Markdown table or open a
// link. Each function escapes for one destination; HTML and SVG are
// escaped by html/template and encoding/xml where they are written.
package safetext

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Terminal escapes s for a terminal: control characters other than tab
// and newline, DEL, C1 controls, invalid UTF-8, format characters (the
// bidirectional overrides, zero-width characters) and the Unicode line
// and paragraph separators become visible \x.. or \u.... escapes.
func Terminal(s string) string {
	if !needsTerminal(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafeRune(r):
			if r < 0x100 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func needsTerminal(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || unsafeRune(r) {
			return true
		}
	}
	return false
}

// unsafeRune reports whether r must not reach a terminal as is.
func unsafeRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return true
	case r < 0x80:
		return false
	case unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp):
		// Format characters (the bidirectional overrides, zero-width
		// spaces and joiners, the byte order mark) make text read
		// differently than it is; the line and paragraph separators
		// break a line in editors and browsers.
		return true
	}
	return false
}

// Line escapes s, a string from a definition, a run directory or another
// source yardstick does not control, for a line of output. It is the one
// escape every such string passes through before a command prints it, in
// every format: the Markdown and GitHub escapes below and JSON apply it
// (or, for JSON, its rules) first. Its output
//
//   - carries no terminal control: Terminal's escapes;
//   - stays on its line: line feeds and carriage returns become \x0a and
//     \x0d, and the percent-encoded ones that a GitHub Actions workflow
//     command decodes (%0A, %0D, in either case) have their '%' escaped
//     (\x250A);
//   - cannot be a workflow command of GitHub Actions: the runner reads a
//     line whose first non-blank characters are "::" as one, and "##["
//     anywhere in a line as one of its legacy form, so a leading ':' (after
//     white space) becomes \x3a and "##[" becomes "#\x23[".
//
// Line is idempotent: Line(Line(s)) == Line(s).
func Line(s string) string {
	s = inLine(s)
	if t := strings.TrimLeftFunc(s, unicode.IsSpace); strings.HasPrefix(t, ":") {
		s = s[:len(s)-len(t)] + `\x3a` + t[1:]
	}
	return s
}

// inLine is Line less its rule for the start of a line, for text that
// stands inside a line of Markdown (a cell, a code span, the text between
// two code spans), which a leading ':' cannot make a command.
func inLine(s string) string {
	s = strings.NewReplacer("\n", `\x0a`, "\r", `\x0d`).Replace(Terminal(s))
	if strings.Contains(s, "%") {
		s = percentBreaks.ReplaceAllStringFunc(s, func(m string) string { return `\x25` + m[1:] })
	}
	return strings.ReplaceAll(s, "##[", `#\x23[`)
}

// percentBreaks are the percent-encoded line breaks.
var percentBreaks = regexp.MustCompile(`%0[AaDd]`)

// ProgressRedraw is the one control sequence a TerminalWriter lets
// through: yardstick's own progress line redraws itself with it.
const ProgressRedraw = "\r\x1b[K"

// A TerminalWriter escapes everything written through it with Terminal,
// except ProgressRedraw at the start of a write, and keeps every line it
// writes from being a GitHub Actions workflow command, whatever wrote it:
// a ':' that is a line's first non-blank character becomes \x3a, and the
// '[' of "##[" becomes \x5b (Line escapes the strings a command prints;
// this catches a line the command itself would get wrong). Its zero value
// is not usable: make one with NewTerminalWriter. It is safe for
// concurrent use.
type TerminalWriter struct {
	w  io.Writer
	mu sync.Mutex
	// blank: only white space since the last line feed (or the start);
	// hashes: the '#' characters just written, at most 2.
	blank  bool
	hashes int
}

// NewTerminalWriter returns a TerminalWriter that writes to w.
func NewTerminalWriter(w io.Writer) *TerminalWriter {
	return &TerminalWriter{w: w, blank: true}
}

// Write escapes p and writes it; it reports len(p) on success.
func (t *TerminalWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(p)
	var b strings.Builder
	if rest, ok := strings.CutPrefix(s, ProgressRedraw); ok {
		b.WriteString(ProgressRedraw)
		s = rest
		t.blank, t.hashes = true, 0 // the redraw starts the line again
	}
	for _, r := range Terminal(s) {
		switch {
		case r == ':' && t.blank:
			b.WriteString(`\x3a`)
			t.blank = false
			t.hashes = 0
			continue
		case r == '[' && t.hashes == 2:
			b.WriteString(`\x5b`)
			t.blank = false
			t.hashes = 0
			continue
		}
		b.WriteRune(r)
		switch {
		case r == '\n':
			t.blank = true
		case !unicode.IsSpace(r):
			t.blank = false
		}
		if r == '#' {
			t.hashes = min(t.hashes+1, 2)
		} else {
			t.hashes = 0
		}
	}
	if _, err := io.WriteString(t.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// JSON escapes encoded JSON (the output of encoding/json, whose strings
// may hold untrusted text) by Line's rules, with JSON's own escapes, so
// that it decodes to the same values: every rune Terminal would escape
// becomes \uXXXX (invalid UTF-8 becomes \ufffd, as encoding/json writes
// it), and the '%' of a percent-encoded line break and the second '#' of
// "##[" become \u0025 and \u0023. These characters can stand only inside
// a JSON string, where the escapes mean them. A line of JSON cannot start
// with ':' (no encoding of a value does), and encoding/json escapes line
// breaks in strings itself.
func JSON(b []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(b))
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			out.WriteString(`\ufffd`)
		case r == '%' && i+2 < len(b) && b[i+1] == '0' && strings.IndexByte("AaDd", b[i+2]) >= 0:
			out.WriteString(`\u0025`)
		case r == '#' && i > 0 && b[i-1] == '#' && i+1 < len(b) && b[i+1] == '[':
			out.WriteString(`\u0023`)
		case r != '\n' && r != '\t' && unsafeRune(r):
			for _, u := range utf16.Encode([]rune{r}) {
				fmt.Fprintf(&out, `\u%04x`, u)
			}
		default:
			out.Write(b[i : i+n])
		}
		i += n
	}
	return out.Bytes()
}

// GitHubData escapes s for the data of a GitHub Actions workflow command
// (the message after "::error ...::"): Line, then GitHub's escapes of
// '%', CR and LF (%25, %0D, %0A), which the runner decodes.
func GitHubData(s string) string {
	return githubData.Replace(Line(s))
}

// GitHubProperty escapes s for the value of a workflow command's property
// (file=..., title=...): as GitHubData, and ':' and ',' too (%3A, %2C),
// which would end the property.
func GitHubProperty(s string) string {
	return githubProperty.Replace(Line(s))
}

var (
	githubData     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	githubProperty = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

// MarkdownCell escapes s for a cell of a Markdown table (or a line of
// Markdown text): line breaks become spaces, Line escapes the rest (less
// its rule for a line's start, which TerminalWriter applies to whatever a
// command prints), the characters that end a cell, start a link, an
// image, code or raw HTML are backslash-escaped or written as entities,
// and an '@' is followed by a zero-width space (&#8203;), so that no
// @-mention notifies anyone where GitHub renders the text. Emphasis
// characters (*, _, ~) are left alone: they can restyle text inside the
// cell but not leave it, and escaping them would make every check name
// (nagle_floor) harder to read in the raw file.
func MarkdownCell(s string) string {
	s = inLine(spaceBreaks(s))
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '@':
			b.WriteString(mentionBreak)
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\\', '|', '`', '[', ']':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// MarkdownCode writes s as a Markdown code span that may stand in a table
// cell: line breaks become spaces, Line escapes the rest (inside the
// span, not at a line's start), the fence is
// longer than any run of backticks in s, and '|' is escaped (tables split
// on it even inside code). Markup, HTML and @-mentions are inert in code.
// The empty string stays empty.
func MarkdownCode(s string) string {
	if s == "" {
		return ""
	}
	s = strings.ReplaceAll(inLine(spaceBreaks(s)), "|", `\|`)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " " // CommonMark strips one space on each side
	}
	return fence + pad + s + pad + fence
}

// spaceBreaks makes line breaks spaces, for Markdown text that keeps to
// its line.
func spaceBreaks(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

// mentionBreak is what an '@' of untrusted text becomes in Markdown: the
// '@' and a zero-width space, which GitHub does not read as a mention.
const mentionBreak = "@&#8203;"

func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

// MarkdownInline escapes s for a line of Markdown text (a heading, a
// paragraph, a list item, a caption) in which `code` spans are the only
// markup, as the report's HTML renderer reads it: the text between
// backticks becomes a code span (MarkdownCode), the rest is escaped so
// that it opens no HTML, link or image and, its line breaks made spaces,
// starts no block of its own; a leading character that would start a
// heading, a list, a quote or a link definition is escaped. An unpaired
// backtick is text.
func MarkdownInline(s string) string {
	parts := strings.Split(s, "`")
	var b strings.Builder
	for i, p := range parts {
		switch {
		case i%2 == 1 && i < len(parts)-1:
			b.WriteString(MarkdownCode(p))
		case i%2 == 1:
			b.WriteString(inlineText("`" + p))
		default:
			b.WriteString(inlineText(p))
		}
	}
	return escapeBlockStart(b.String())
}

// inlineText escapes text for inside a Markdown line: line breaks become
// spaces and Line escapes the rest (as inside a line: inLine); '<' and '&'
// become entities (no raw HTML, no autolink, no entity); '\', '|' and '`'
// are backslash-escaped; a '(' or '[' right after ']' is escaped, so no
// link or image can form, while a bracketed aside ("[cell main]") stays
// readable in the raw file; and an '@' cannot mention anyone
// (mentionBreak).
func inlineText(s string) string {
	s = inLine(spaceBreaks(s))
	var b strings.Builder
	prev := rune(0)
	for _, r := range s {
		switch {
		case r == '@':
			b.WriteString(mentionBreak)
		case r == '<':
			b.WriteString("&lt;")
		case r == '&':
			b.WriteString("&amp;")
		case r == '\\' || r == '|' || r == '`' || (prev == ']' && (r == '(' || r == '[')):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}

// escapeBlockStart backslash-escapes what would make a line start a
// block: #, +, -, *, =, >, [ (a link definition), or digits followed by
// . or ).
func escapeBlockStart(s string) string {
	t := strings.TrimLeft(s, " ")
	if t == "" {
		return s
	}
	switch t[0] {
	case '#', '+', '-', '*', '=', '>', '[':
		return `\` + t
	}
	d := 0
	for d < len(t) && t[d] >= '0' && t[d] <= '9' {
		d++
	}
	if d > 0 && d < len(t) && (t[d] == '.' || t[d] == ')') {
		return t[:d] + `\` + t[d:]
	}
	return s
}
