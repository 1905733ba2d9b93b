package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	"github.com/rogpeppe/go-internal/testscript"
)

// The scripts' checks of what yardstick prints of hostile input
// (hostile_definition.txtar and the other hostile_*.txtar).
func init() {
	scriptCmds["safeout"] = cmdSafeout
	scriptCmds["hostilename"] = cmdHostileName
	scriptCmds["oddnames"] = cmdOddNames
	scriptCmds["hostilemv"] = cmdHostileMv
}

// hostileText is the text of the hostile scripts' strings: a line break
// into a workflow command, a carriage return, a percent-encoded line
// break, a terminal escape, GitHub's legacy command form, an @-mention,
// HTML, a link and table markup.
const hostileText = "x\n::stop-commands::pwn\r%0A\x1b[31m##[error]y @octocat <script>alert(1)</script> `tick` | [l](http://e)"

// fenceRE is a line that opens or closes a fenced code block: up to three
// spaces, three or more backticks, and the rest.
var fenceRE = regexp.MustCompile("^ {0,3}(```+)(.*)$")

// ghCommandRE is a workflow command yardstick writes itself (validate
// --format github): ::error or ::warning, its properties escaped.
var ghCommandRE = regexp.MustCompile(`^::(error|warning)( file=[^:,\n]*(,line=[0-9]+(,col=[0-9]+)?)?)?::`)

// cmdSafeout checks that files of yardstick output hold nothing a hostile
// definition could have used to act on the terminal, on the GitHub
// Actions runner or on a Markdown reader: safeout text|github|markdown|json FILE...
//
//   - no line starts (after white space) with "::", except, for github,
//     the workflow commands yardstick writes;
//   - no carriage return, terminal escape, "%0A" or "%0D", nor "##[";
//   - markdown: outside code spans and fenced code blocks (as CommonMark
//     closes them), no raw HTML, no link and no @-mention;
//   - json: valid JSON, whose strings hold hostileText unchanged (the
//     escapes are JSON's own; in a file name, less its '/').
func cmdSafeout(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: safeout text|github|markdown|json FILE...")
	}
	mode := args[0]
	for _, name := range args[1:] {
		b, err := os.ReadFile(ts.MkAbs(name))
		ts.Check(err)
		s := string(b)
		low := strings.ToLower(s)
		switch {
		case strings.ContainsAny(s, "\r\x1b\u0085\u2028\u2029"):
			ts.Fatalf("%s: a carriage return or control character", name)
		case strings.Contains(low, "%0a") || strings.Contains(low, "%0d"):
			ts.Fatalf("%s: a percent-encoded line break", name)
		case strings.Contains(s, "##["):
			ts.Fatalf("%s: a legacy workflow command (##[)", name)
		}
		fence := "" // the fence of the fenced code block the line is in
		for i, line := range strings.Split(s, "\n") {
			if t := strings.TrimLeftFunc(line, unicode.IsSpace); strings.HasPrefix(t, "::") && !(mode == "github" && ghCommandRE.MatchString(line)) {
				ts.Fatalf("%s:%d: a workflow command: %q", name, i+1, line)
			}
			if mode != "markdown" {
				continue
			}
			if m := fenceRE.FindStringSubmatch(line); m != nil {
				switch {
				case fence == "":
					fence = m[1]
					continue
				case strings.HasPrefix(m[1], fence) && strings.TrimSpace(m[2]) == "":
					fence = ""
					continue
				}
			}
			if fence == "" {
				rest := stripCodeSpans(line)
				for _, bad := range []string{"<script", "<img", "](", "@octocat"} {
					if strings.Contains(rest, bad) {
						ts.Fatalf("%s:%d: %q outside code: %q", name, i+1, bad, line)
					}
				}
			}
		}
		if mode == "json" {
			if !json.Valid(b) {
				ts.Fatalf("%s: not valid JSON", name)
			}
			var v any
			ts.Check(json.Unmarshal(b, &v))
			if !holdsString(v, hostileText) && !holdsString(v, strings.ReplaceAll(hostileText, "/", "_")) {
				ts.Fatalf("%s: no string holds the hostile text unchanged", name)
			}
		}
	}
}

// stripCodeSpans removes a Markdown line's code spans: a run of n
// backticks to the next run of exactly n.
func stripCodeSpans(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		if line[i] != '`' {
			b.WriteByte(line[i])
			i++
			continue
		}
		n := 0
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		end := -1
		for j := i + n; j < len(line); {
			if line[j] != '`' {
				j++
				continue
			}
			m := 0
			for j+m < len(line) && line[j+m] == '`' {
				m++
			}
			if m == n {
				end = j + m
				break
			}
			j += m
		}
		if end < 0 {
			b.WriteString(line[i : i+n])
			i += n
			continue
		}
		i = end
	}
	return b.String()
}

func holdsString(v any, sub string) bool {
	switch x := v.(type) {
	case string:
		return strings.Contains(x, sub)
	case []any:
		for _, e := range x {
			if holdsString(e, sub) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if holdsString(e, sub) {
				return true
			}
		}
	}
	return false
}

// cmdHostileName copies SRC into DIR under a name that holds hostileText
// (less its '/'): hostilename DIR SRC.
func cmdHostileName(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: hostilename DIR SRC")
	}
	b, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	name := strings.ReplaceAll(hostileText, "/", "_") + ".cue"
	ts.Check(os.WriteFile(filepath.Join(ts.MkAbs(args[0]), name), b, 0o644))
}

// oddNames are file names that a shell script must quote: spaces,
// quotes, backticks, a command substitution, a leading dash, and
// hostileText's line breaks, markup and mentions.
var oddNames = []string{
	"a b.cue", `it's "q".cue`, "`tick`.cue", "$(touch pwned).cue", "-n.cue",
	strings.ReplaceAll(hostileText, "/", "_") + ".cue",
}

// cmdOddNames copies SRC into DIR under each of oddNames: oddnames DIR SRC.
func cmdOddNames(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: oddnames DIR SRC")
	}
	b, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	for _, name := range oddNames {
		ts.Check(os.WriteFile(filepath.Join(ts.MkAbs(args[0]), name), b, 0o644))
	}
}

// cmdHostileMv renames SRC to DIR/PREFIX followed by hostileText (less
// its '/'): hostilemv SRC DIR PREFIX.
func cmdHostileMv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: hostilemv SRC DIR PREFIX")
	}
	dir := ts.MkAbs(args[1])
	ts.Check(os.MkdirAll(dir, 0o755))
	ts.Check(os.Rename(ts.MkAbs(args[0]), filepath.Join(dir, args[2]+strings.ReplaceAll(hostileText, "/", "_"))))
}
