// Package safetext makes untrusted text safe for where it is shown.
// Definitions come from pull requests and run directories from
// colleagues: a name, a header value or an error message read from them
// must not move a terminal's cursor, rewrite a Markdown table or open a
// link. Each function escapes for one destination; HTML and SVG are
// escaped by html/template and encoding/xml where they are written.
package safetext

import (
	"fmt"
	"io"
	"strings"
	"unicode"
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

// Line escapes s as Terminal does and also its line breaks (\n, \r), for
// text that must stay on one line of output: a description or a path in a
// line of its own cannot forge the lines that follow it.
func Line(s string) string {
	return strings.ReplaceAll(Terminal(s), "\n", `\x0a`)
}

// ProgressRedraw is the one control sequence a TerminalWriter lets
// through: yardstick's own progress line redraws itself with it.
const ProgressRedraw = "\r\x1b[K"

// A TerminalWriter escapes everything written through it with Terminal,
// except ProgressRedraw at the start of a write.
type TerminalWriter struct {
	W io.Writer
}

// Write escapes p and writes it; it reports len(p) on success.
func (t TerminalWriter) Write(p []byte) (int, error) {
	s := string(p)
	prefix := ""
	if rest, ok := strings.CutPrefix(s, ProgressRedraw); ok {
		prefix, s = ProgressRedraw, rest
	}
	if _, err := io.WriteString(t.W, prefix+Terminal(s)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// MarkdownCell escapes s for a cell of a Markdown table (or a line of
// Markdown text): the characters that end a cell, start a link, an image,
// code or raw HTML are backslash-escaped or written as entities, line
// breaks become spaces, and terminal controls are escaped. Emphasis
// characters (*, _, ~) are left alone: they can restyle text inside the
// cell but not leave it, and escaping them would make every check name
// (nagle_floor) harder to read in the raw file.
func MarkdownCell(s string) string {
	s = Terminal(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s))
	var b strings.Builder
	for _, r := range s {
		switch r {
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
// cell: the fence is longer than any run of backticks in s, '|' is
// escaped (tables split on it even inside code), line breaks become
// spaces, and terminal controls are escaped. The empty string stays empty.
func MarkdownCode(s string) string {
	if s == "" {
		return ""
	}
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "|", `\|`).Replace(Terminal(s))
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " " // CommonMark strips one space on each side
	}
	return fence + pad + s + pad + fence
}

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
// spaces and terminal controls are escaped; '<' and '&' become entities
// (no raw HTML, no autolink, no entity); '\', '|' and '`' are
// backslash-escaped; and a '(' or '[' right after ']' is escaped, so no
// link or image can form, while a bracketed aside ("[cell main]") stays
// readable in the raw file.
func inlineText(s string) string {
	s = Terminal(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s))
	var b strings.Builder
	prev := rune(0)
	for _, r := range s {
		switch {
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
