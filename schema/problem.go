package schema

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"cuelang.org/go/cue"
	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/token"
)

// Pos is a position in a definition file. The zero Pos means "no position".
type Pos struct {
	File string
	Line int
	Col  int
}

// IsValid reports whether p names a place in a file.
func (p Pos) IsValid() bool { return p.File != "" && p.Line > 0 }

// String formats p as file:line:col.
func (p Pos) String() string {
	if !p.IsValid() {
		return ""
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// InSchema reports whether p points into the embedded schema rather than the
// user's files.
func (p Pos) InSchema() bool { return strings.HasPrefix(p.File, "embed:") }

// Less orders positions by file, line and column.
func (p Pos) Less(q Pos) bool {
	if p.File != q.File {
		return p.File < q.File
	}
	if p.Line != q.Line {
		return p.Line < q.Line
	}
	return p.Col < q.Col
}

// A Problem is one thing wrong with a definition, at a position in the
// user's file where one is known.
type Problem struct {
	Pos  Pos
	Path string // the CUE path, "gateway.batches.main.repeats"; may be empty
	Msg  string
}

func (p Problem) String() string {
	var b strings.Builder
	if p.Pos.IsValid() {
		b.WriteString(p.Pos.String())
		b.WriteString(": ")
	}
	if p.Path != "" {
		b.WriteString(p.Path)
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// Problems is every problem found in a definition; it is an error.
type Problems []Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// sorted orders problems by position, then message, and drops duplicates.
func (ps Problems) sorted() Problems {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Pos != ps[j].Pos {
			return ps[i].Pos.Less(ps[j].Pos)
		}
		return ps[i].String() < ps[j].String()
	})
	out := ps[:0]
	for i, p := range ps {
		if i > 0 && p == ps[i-1] {
			continue
		}
		out = append(out, p)
	}
	return out
}

var (
	conflictRE = regexp.MustCompile(`^conflicting values (.+?) and (.+?)(?: \(mismatched types ([a-z]+) and ([a-z]+)\))?$`)
	boundRE    = regexp.MustCompile(`\(out of bound =~("(?:[^"\\]|\\.)*")\)$`)
	disjRE     = regexp.MustCompile(`^\d+ errors in empty disjunction:?$`)
)

// fromCUE turns a CUE error into problems. CUE reports an enum or a field
// with a default as an "empty disjunction" with one conflict per branch;
// those are merged into one message per path. Where CUE gives only schema
// positions, the position of the nearest enclosing field in the user's own
// file (looked up in raw, the user's unvalidated value) is used instead.
func fromCUE(err error, raw *cue.Value) Problems {
	type group struct {
		path      string
		pos       Pos
		conflicts []string // "conflicting values" messages
		others    []string // every other message
		order     int
	}
	groups := map[string]*group{}
	var order []string
	for _, e := range cueerrors.Errors(err) {
		path := strings.Join(e.Path(), ".")
		format, args := e.Msg()
		msg := fmt.Sprintf(format, args...)
		if disjRE.MatchString(msg) {
			continue
		}
		pos := userPos(e, raw)
		key := path + "\x00" + pos.String()
		g, ok := groups[key]
		if !ok {
			g = &group{path: path, pos: pos, order: len(order)}
			groups[key] = g
			order = append(order, key)
		}
		if strings.HasPrefix(msg, "conflicting values ") {
			g.conflicts = append(g.conflicts, msg)
			continue
		}
		g.others = append(g.others, msg)
	}
	// A knob that may be a scalar or a list conflicts with both shapes when
	// one list element is wrong; the element's own error says it better.
	hasChild := func(path string) bool {
		for _, k := range order {
			if p := groups[k].path; strings.HasPrefix(p, path+".") {
				return true
			}
		}
		return false
	}
	var ps Problems
	for _, k := range order {
		g := groups[k]
		if len(g.others) == 0 && hasChild(g.path) {
			continue
		}
		switch {
		case len(g.others) > 0:
			// A bound or type error explains more than a clash with a
			// default or with one enum member.
			for _, m := range uniq(g.others) {
				ps = append(ps, Problem{Pos: g.pos, Path: g.path, Msg: explainBound(m)})
			}
		case len(g.conflicts) > 0:
			ps = append(ps, Problem{Pos: g.pos, Path: g.path, Msg: mergeConflicts(g.conflicts)})
		}
	}
	return ps
}

// mergeConflicts turns the conflicts of one path (one per branch of an enum
// or a default) into one message: "invalid value V (must be one of A, B)",
// where V is the value common to every conflict.
func mergeConflicts(msgs []string) string {
	msgs = uniq(msgs)
	if len(msgs) == 1 {
		return msgs[0]
	}
	count := map[string]int{}
	var pairs [][2]string
	var typePairs [][2]string
	for _, m := range msgs {
		sm := conflictRE.FindStringSubmatch(m)
		if sm == nil {
			return strings.Join(msgs, "; ")
		}
		pairs = append(pairs, [2]string{sm[1], sm[2]})
		count[sm[1]]++
		count[sm[2]]++
		if sm[3] != "" {
			typePairs = append(typePairs, [2]string{sm[3], sm[4]})
		}
	}
	var value string
	for v, n := range count {
		if n == len(pairs) && (value == "" || v < value) {
			value = v
		}
	}
	if value == "" {
		return strings.Join(msgs, "; ")
	}
	// Every branch failed on the value's type: say which types would do.
	if len(typePairs) == len(pairs) {
		own := kindOf(value)
		var want []string
		for _, p := range typePairs {
			if p[0] == own {
				want = append(want, p[1])
			} else {
				want = append(want, p[0])
			}
		}
		if own != "" {
			return fmt.Sprintf("invalid value %s (want %s, not %s)", value, strings.Join(uniq(want), " or "), own)
		}
	}
	var alts []string
	for _, p := range pairs {
		if p[0] == value {
			alts = append(alts, p[1])
		} else {
			alts = append(alts, p[0])
		}
	}
	return fmt.Sprintf("invalid value %s (must be one of %s)", value, strings.Join(uniq(alts), ", "))
}

// patternNames describes the schema's regular expressions in words, keyed
// by the pattern as CUE quotes it in a message. A test keeps the keys in
// step with yardstick.cue.
var patternNames = map[string]string{
	`"^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$"`: `a duration such as "250ms", "20s" or "1m30s"`,
	`"^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$"`:     `a CPU list such as "0", "0-1" or "0,2-3"`,
	`"^[0-9]+[kKmMgG]?$"`:                          `a JVM size such as "512m" or "2g"`,
	`"^[A-Za-z0-9][A-Za-z0-9_.-]*$"`:               `a name of letters, digits, '.', '_' and '-'`,
	`"^[0-9]+(B|KiB|MiB|GiB|TiB)?$"`:               `"off" or a size such as "512MiB"`,
	`"^[0-9]+(\\.[0-9]+)?%$"`:                      `a number, or a percentage of the peak such as "80%"`,
	`"^/"`:                                         `a path starting with "/"`,
}

// explainBound replaces a schema regular expression in a message by what
// it means.
func explainBound(msg string) string {
	m := boundRE.FindStringSubmatchIndex(msg)
	if m == nil {
		return msg
	}
	if name, ok := patternNames[msg[m[2]:m[3]]]; ok {
		return msg[:m[0]] + "(want " + name + ")"
	}
	return msg
}

// kindOf guesses the CUE kind of a value as CUE prints it in a message.
func kindOf(v string) string {
	switch {
	case strings.HasPrefix(v, `"`):
		return "string"
	case strings.HasPrefix(v, "["):
		return "list"
	case strings.HasPrefix(v, "{"):
		return "struct"
	case v == "true" || v == "false":
		return "bool"
	case v == "null":
		return "null"
	case strings.ContainsAny(v, ".eE") && strings.IndexFunc(v, func(r rune) bool { return r >= '0' && r <= '9' }) >= 0:
		return "float"
	case strings.IndexFunc(v, func(r rune) bool { return r >= '0' && r <= '9' }) == 0 || strings.HasPrefix(v, "-"):
		return "int"
	}
	return ""
}

func uniq(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// userPos picks the position of e in the user's files: the error's own
// position if it is there, else the first input position there, else the
// nearest enclosing field of the error's path in raw.
func userPos(e cueerrors.Error, raw *cue.Value) Pos {
	cands := append([]token.Pos{e.Position()}, e.InputPositions()...)
	for _, p := range cands {
		if pp := posOf(p); pp.IsValid() && !pp.InSchema() {
			return pp
		}
	}
	if raw != nil {
		if p := lookupPos(*raw, e.Path()); p.IsValid() {
			return p
		}
	}
	return posOf(e.Position())
}

// lookupPos returns the position of the deepest prefix of path that exists
// in v (the user's own value).
func lookupPos(v cue.Value, path []string) Pos {
	for n := len(path); n >= 1; n-- {
		sels := make([]cue.Selector, n)
		for i, s := range path[:n] {
			sels[i] = selector(s)
		}
		f := v.LookupPath(cue.MakePath(sels...))
		if !f.Exists() {
			continue
		}
		if p := posOf(f.Pos()); p.IsValid() && !p.InSchema() {
			return p
		}
	}
	return Pos{}
}

// selector makes a path selector from one element of an error path, which
// CUE prints quoted when it is not an identifier, and as a number for list
// indices.
func selector(s string) cue.Selector {
	if strings.HasPrefix(s, `"`) {
		if u, err := unquote(s); err == nil {
			return cue.Str(u)
		}
	}
	if n, ok := atoi(s); ok {
		return cue.Index(n)
	}
	if strings.HasPrefix(s, "#") {
		return cue.Def(s)
	}
	return cue.Str(s)
}

func atoi(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func unquote(s string) (string, error) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return "", fmt.Errorf("not quoted")
	}
	return strings.ReplaceAll(s[1:len(s)-1], `\"`, `"`), nil
}
