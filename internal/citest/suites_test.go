package citest

import (
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// integrationOnly reports whether a Go file's build constraint holds with
// the tag integration and not without it (make test-integration builds
// it, make test does not).
func integrationOnly(t *testing.T, path string) bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.PackageClauseOnly|parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range f.Comments {
		if g.Pos() > f.Package {
			break
		}
		for _, c := range g.List {
			if !constraint.IsGoBuild(c.Text) {
				continue
			}
			expr, err := constraint.Parse(c.Text)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			with := expr.Eval(func(tag string) bool { return tag == "integration" })
			without := expr.Eval(func(string) bool { return false })
			return with && !without
		}
	}
	return false
}

// testFuncs are the names of a test file's top-level Test functions.
func testFuncs(t *testing.T, path string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") && fn.Name.Name != "TestMain" {
			names = append(names, fn.Name.Name)
		}
	}
	return names
}

// TestTaggedTestsAreSelected: make test-integration selects its tests
// by name (-run '^TestIntegration' with -tags integration, so that the
// tests of make test do not run twice): every Test function in a file
// built only with the tag integration is named TestIntegration*, and no
// other file has one, or a test would run in neither target, or in make
// test without what it needs.
func TestTaggedTestsAreSelected(t *testing.T) {
	root := repoRoot(t)
	tagged := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		only := integrationOnly(t, path)
		for _, name := range testFuncs(t, path) {
			prefixed := strings.HasPrefix(name, "TestIntegration")
			switch {
			case only && !prefixed:
				t.Errorf("%s: %s is built only with -tags integration but make test-integration runs TestIntegration* alone: rename it TestIntegration...", rel, name)
			case !only && prefixed:
				t.Errorf("%s: %s is named for make test-integration but its file is not built only with -tags integration", rel, name)
			case only:
				tagged++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if tagged < 5 {
		t.Errorf("%d TestIntegration functions in integration files: the walk missed them", tagged)
	}
}

// makeN is what `make -n target` would run.
func makeN(t *testing.T, target string) string {
	t.Helper()
	cmd := exec.Command("make", "-n", "-C", repoRoot(t), target)
	cmd.Env = append(os.Environ(), "MAKEFLAGS=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n %s: %v\n%s", target, err, out)
	}
	return string(out)
}

// TestTwoSuites: make test runs every package's tests without tags and
// needs nothing but Go (no .venv, no Node modules); make test-integration
// runs the TestIntegration* tests with -tags integration; .ci/run runs
// make test, then make test-integration.
func TestTwoSuites(t *testing.T) {
	goTest := regexp.MustCompile(`(?m)^go test .*$`)
	fast := makeN(t, "test")
	if got := goTest.FindAllString(fast, -1); len(got) != 1 || strings.Contains(got[0], "-tags") || strings.Contains(got[0], "-run") || !strings.HasSuffix(got[0], " ./...") {
		t.Errorf("make test runs %q, want one go test of ./... without -tags or -run", got)
	}
	for _, bad := range []string{".venv", "npm", "pip", "node_modules"} {
		if strings.Contains(fast, bad) {
			t.Errorf("make test would run something with %s: it must need Go alone\n%s", bad, fast)
		}
	}
	slow := makeN(t, "test-integration")
	if got := goTest.FindAllString(slow, -1); len(got) != 1 || !strings.Contains(got[0], "-tags integration") ||
		!strings.Contains(got[0], "-run '^TestIntegration'") || !strings.HasSuffix(got[0], " ./...") {
		t.Errorf("make test-integration runs %q, want one go test -tags integration -run '^TestIntegration' of ./...", got)
	}
	b, err := os.ReadFile(filepath.Join(repoRoot(t), ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	step := regexp.MustCompile(`(?m)^(?:time )?make (test|test-integration)$`)
	var got []string
	for _, m := range step.FindAllStringSubmatch(string(b), -1) {
		got = append(got, m[1])
	}
	if strings.Join(got, ",") != "test,test-integration" {
		t.Errorf(".ci/run runs make %q, want test, then test-integration", got)
	}
}
