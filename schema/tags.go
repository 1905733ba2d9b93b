package schema

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/token"
)

// A Tag is one `-t key=value` given on the command line: the value is
// unified with every field of the definition marked @tag(key), as
// `cue -t key=value` does. Tags are how one definition holds a study's
// full shape and its quick profile:
//
//	profile: *"full" | "quick" @tag(profile)
//
// yardstick evaluates the files itself (no module loader), so the
// injection is done here on the parsed files, before evaluation.
type Tag struct {
	Key   string
	Value string
}

func (t Tag) String() string { return t.Key + "=" + t.Value }

// ParseTags parses `key=value` arguments of -t. A key is a CUE identifier;
// a key given twice is an error (cue would unify both values, which only
// ever fails or repeats itself).
func ParseTags(args []string) ([]Tag, error) {
	var out []Tag
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			return nil, fmt.Errorf("-t %q: want key=value", a)
		}
		if !ast.IsValidIdent(k) || strings.HasPrefix(k, "#") || strings.HasPrefix(k, "_") {
			return nil, fmt.Errorf("-t %q: %q is not a tag name (a plain identifier, as in @tag(%s))", a, k, "name")
		}
		if slices.ContainsFunc(out, func(t Tag) bool { return t.Key == k }) {
			return nil, fmt.Errorf("-t %q: tag %s given twice", a, k)
		}
		out = append(out, Tag{Key: k, Value: v})
	}
	return out, nil
}

// TagStrings returns tags as key=value strings, in the order given.
func TagStrings(tags []Tag) []string {
	var out []string
	for _, t := range tags {
		out = append(out, t.String())
	}
	return out
}

// tagField is one field marked @tag(key[,type=kind]).
type tagField struct {
	field *ast.Field
	attr  *ast.Attribute
	key   string
	kind  string // "string" (the default), "int", "number" or "bool"
}

// tagFields finds every field of files marked with @tag, with the
// problems of malformed attributes.
func tagFields(files []*ast.File) ([]tagField, Problems) {
	var out []tagField
	var probs Problems
	for _, f := range files {
		ast.Walk(f, func(n ast.Node) bool {
			fd, ok := n.(*ast.Field)
			if !ok {
				return true
			}
			for _, a := range fd.Attrs {
				name, body := a.Split()
				if name != "tag" {
					continue
				}
				tf, err := parseTagAttr(fd, a, body)
				if err != "" {
					probs = append(probs, Problem{Pos: posOf(a.Pos()), Msg: err})
					continue
				}
				out = append(out, tf)
			}
			return true
		}, nil)
	}
	return out, probs
}

// parseTagAttr reads the body of @tag(key[,type=kind]).
func parseTagAttr(fd *ast.Field, a *ast.Attribute, body string) (tagField, string) {
	parts := strings.Split(body, ",")
	tf := tagField{field: fd, attr: a, key: strings.TrimSpace(parts[0]), kind: "string"}
	if !ast.IsValidIdent(tf.key) {
		return tf, fmt.Sprintf("%s: the tag needs a name: @tag(name) or @tag(name,type=int)", a.Text)
	}
	for _, p := range parts[1:] {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		switch {
		case k == "type" && slices.Contains([]string{"string", "int", "number", "bool"}, v):
			tf.kind = v
		case k == "type":
			return tf, fmt.Sprintf("%s: type=%s: want string, int, number or bool", a.Text, v)
		default:
			return tf, fmt.Sprintf("%s: unknown option %q (yardstick knows type=)", a.Text, p)
		}
	}
	return tf, ""
}

// tagNotes maps the file and line of each field a tag was injected into
// to the tag, so that an evaluation error there can say which -t caused it.
type tagNotes map[string]string

func noteKey(file string, line int) string { return file + ":" + strconv.Itoa(line) }

// annotate appends "(set by -t key=value)" to problems on a tagged line.
func (n tagNotes) annotate(probs Problems) Problems {
	for i, p := range probs {
		if t, ok := n[noteKey(p.Pos.File, p.Pos.Line)]; ok {
			probs[i].Msg += " (the value is set by -t " + t + ")"
		}
	}
	return probs
}

// injectTags unifies each tag's value with every field marked with its
// key. A tag that no field declares, or a value that is not of the
// declared type, is a problem; a value the field's constraint refuses is
// found by the evaluation that follows, at the field (tagNotes).
func injectTags(files []*ast.File, tags []Tag) (tagNotes, Problems) {
	fields, probs := tagFields(files)
	notes := tagNotes{}
	if len(probs) > 0 || len(tags) == 0 {
		return notes, probs
	}
	// The parser resolved every identifier to the value it names; a
	// reference to a tagged field must follow its new value.
	replaced := map[ast.Node]ast.Node{}
	for _, t := range tags {
		var hits []tagField
		for _, tf := range fields {
			if tf.key == t.Key {
				hits = append(hits, tf)
			}
		}
		if len(hits) == 0 {
			probs = append(probs, Problem{Pos: firstFilePos(files), Msg: fmt.Sprintf("-t %s: no field of the definition is marked @tag(%s); %s", t, t.Key, declaredTags(fields))})
			continue
		}
		for _, tf := range hits {
			x, err := tagValue(tf, t)
			if err != "" {
				probs = append(probs, Problem{Pos: posOf(tf.attr.Pos()), Msg: err})
				continue
			}
			notes[noteKey(posOf(tf.field.Pos()).File, posOf(tf.field.Pos()).Line)] = t.String()
			injected := ast.NewBinExpr(token.AND, tf.field.Value, x)
			replaced[tf.field.Value] = injected
			tf.field.Value = injected
		}
	}
	for _, f := range files {
		ast.Walk(f, nil, func(n ast.Node) {
			if id, ok := n.(*ast.Ident); ok {
				if v, ok := replaced[id.Node]; ok {
					id.Node = v
				}
			}
		})
	}
	return notes, probs
}

// declaredTags says which tags the definition has, with their positions.
func declaredTags(fields []tagField) string {
	if len(fields) == 0 {
		return "it declares no tags"
	}
	var s []string
	for _, tf := range fields {
		s = append(s, fmt.Sprintf("%s (%s)", tf.key, posOf(tf.attr.Pos())))
	}
	return "its tags: " + strings.Join(s, ", ")
}

// tagValue is the literal a tag's value becomes for the field's type.
func tagValue(tf tagField, t Tag) (ast.Expr, string) {
	bad := func(what string) (ast.Expr, string) {
		return nil, fmt.Sprintf("-t %s: %s wants %s, got %q", t, tf.attr.Text, what, t.Value)
	}
	switch tf.kind {
	case "int":
		if _, err := strconv.ParseInt(t.Value, 10, 64); err != nil {
			return bad("an int")
		}
		return ast.NewLit(token.INT, t.Value), ""
	case "number":
		var info literal.NumInfo
		if err := literal.ParseNum(t.Value, &info); err != nil {
			return bad("a number")
		}
		if info.IsInt() {
			return ast.NewLit(token.INT, t.Value), ""
		}
		return ast.NewLit(token.FLOAT, t.Value), ""
	case "bool":
		b, err := strconv.ParseBool(t.Value)
		if err != nil {
			return bad("true or false")
		}
		return ast.NewBool(b), ""
	}
	return ast.NewString(t.Value), ""
}
