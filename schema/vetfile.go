package schema

import (
	"fmt"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/format"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"
)

// IsPackageName says name can be a CUE package clause's name.
func IsPackageName(name string) bool { return ast.IsValidIdent(name) }

// VetFile is the embedded schema made usable by plain `cue vet` on a
// definition of any package, as `yardstick schema --write` writes it
// (version is yardstick's, for the file's header): without a package clause (or with pkg's),
// and with two top-level pattern constraints, which `cue vet -d` cannot
// apply to CUE input: every field whose name is a #Name is an
// #Experiment, and any other field is an error, as in #Experiments.
func VetFile(pkg, version string) ([]byte, error) {
	f, err := parser.ParseFile(SchemaFile, Source(), parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("embedded schema: %w", err)
	}
	name, err := namePattern(f)
	if err != nil {
		return nil, err
	}
	decls := []ast.Decl{}
	if pkg != "" {
		decls = append(decls, &ast.Package{Name: ast.NewIdent(pkg)})
	}
	for _, d := range f.Decls {
		if _, ok := d.(*ast.Package); !ok {
			decls = append(decls, d)
		}
	}
	f.Decls = decls
	body, err := format.Node(f)
	if err != nil {
		return nil, fmt.Errorf("embedded schema: %w", err)
	}
	src := fmt.Sprintf(`// yardstick's experiment schema (yardstick %s), written by
// yardstick schema --write. Check a definition against it with
//
//	cue vet -c yardstick.cue my-experiment.cue
//
// Every top-level field of the definition is an experiment.

%s
// Written by yardstick schema --write: the top level of a definition is
// #Experiments.
[=~%s]: #Experiment
[N=!~%s]: error("\(N): field not allowed: not an experiment name (#Name)")
`, version, body, name, name)
	out, err := format.Source([]byte(src))
	if err != nil {
		return nil, fmt.Errorf("schema --write: %w", err)
	}
	return out, nil
}

// namePattern returns the quoted regular expression of #Name, as the
// schema spells it: a label expression cannot refer to #Name itself, which
// sits at the top level it would constrain.
func namePattern(f *ast.File) (string, error) {
	for _, d := range f.Decls {
		fld, ok := d.(*ast.Field)
		if !ok {
			continue
		}
		if n, _, _ := ast.LabelName(fld.Label); n != "#Name" {
			continue
		}
		if u, ok := fld.Value.(*ast.UnaryExpr); ok && u.Op == token.MAT {
			if lit, ok := u.X.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				return lit.Value, nil
			}
		}
	}
	return "", fmt.Errorf("embedded schema: no #Name: =~\"...\" at its top level")
}
