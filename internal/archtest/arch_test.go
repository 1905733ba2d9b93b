// Package archtest holds the tests that keep yardstick's layout true (see
// docs/design.md#package-layout): they read the module's own source and
// `go list`, and fail with the offending file or import.
package archtest

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cuelang.org/go/cue/format"
)

// maxFuncLines is the longest a non-test function may be.
const maxFuncLines = 80

// root is the module's root directory (tests run in their package's).
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", dir, err)
	}
	return dir
}

// skipDir reports directories that hold no yardstick source.
func skipDir(name string) bool {
	return name == "node_modules" || name == "testdata" || name == "bin" || name == "results" ||
		(strings.HasPrefix(name, ".") && name != ".")
}

// walk calls fn for every file of the module below root that is not in a
// skipped directory (and not in a nested module, such as the Caddy build).
func walk(t *testing.T, dir string, fn func(path string, d fs.DirEntry)) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir && (skipDir(d.Name()) || exists(filepath.Join(path, "go.mod"))) {
				return filepath.SkipDir
			}
			return nil
		}
		fn(path, d)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// TestFunctionLength: no non-test function is longer than maxFuncLines.
func TestFunctionLength(t *testing.T) {
	dir := root(t)
	fset := token.NewFileSet()
	walk(t, dir, func(path string, _ fs.DirEntry) {
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			from, to := fset.Position(fd.Pos()), fset.Position(fd.End())
			if n := to.Line - from.Line + 1; n > maxFuncLines {
				rel, _ := filepath.Rel(dir, path)
				t.Errorf("%s:%d: %s is %d lines; split it into named steps (at most %d)", rel, from.Line, fd.Name.Name, n, maxFuncLines)
			}
		}
	})
}

// maxReportFileLines is the longest a non-test file of the report may
// be: it was one file of a thousand lines that computed, worded and wrote.
const maxReportFileLines = 500

// TestReportFilesAreSmall: the report's files stay small enough to hold
// one job each.
func TestReportFilesAreSmall(t *testing.T) {
	dir := root(t)
	walk(t, filepath.Join(dir, "stages", "report"), func(path string, _ fs.DirEntry) {
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(b, []byte("\n")); n > maxReportFileLines {
			rel, _ := filepath.Rel(dir, path)
			t.Errorf("%s is %d lines (at most %d): split it by job", rel, n, maxReportFileLines)
		}
	})
}

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

func list(t *testing.T, dir string, patterns ...string) []pkg {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-deps=false", "-json"}, patterns...)...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// stageOf returns "stages/X" for a package under stages/X, or "".
func stageOf(path string) string {
	rest, ok := strings.CutPrefix(path, "yardstick/stages/")
	if !ok {
		return ""
	}
	return "stages/" + strings.SplitN(rest, "/", 2)[0]
}

// TestStagesDoNotImportEachOther: what two stages share lives below them.
func TestStagesDoNotImportEachOther(t *testing.T) {
	for _, p := range list(t, root(t), "./stages/...") {
		from := stageOf(p.ImportPath)
		for _, imp := range p.Imports {
			if to := stageOf(imp); to != "" && to != from {
				t.Errorf("%s imports %s: move what they share below the stages", p.ImportPath, imp)
			}
		}
	}
}

// TestRunnerUsesStageEntryPoints: the runner calls a stage through its
// package, never one of the stage's own sub-packages (procsample,
// machine, ...), and the Slurm scripts link no stage at all: writing a job
// array needs the plan, not the executor and its load generator.
func TestRunnerUsesStageEntryPoints(t *testing.T) {
	dir := root(t)
	for _, p := range list(t, dir, "./runner/...") {
		for _, imp := range p.Imports {
			if st := stageOf(imp); st != "" && imp != "yardstick/"+st {
				t.Errorf("%s imports %s: expose what it needs through yardstick/%s or move it below the stages", p.ImportPath, imp, st)
			}
		}
	}
	cmd := exec.Command("go", "list", "-deps", "./runner/slurm")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./runner/slurm: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if stageOf(dep) != "" || dep == "yardstick/loadgen" {
			t.Errorf("yardstick/runner/slurm links %s: it writes scripts and reads checkpoints, and needs no stage", dep)
		}
	}
}

// analysisImports are all the report's analysis may import: it computes
// values, so it has no fmt (no words, no writers), no os, io or runfs (no
// files), only the pure standard library and the packages below the
// stages whose values it reads.
var analysisImports = []string{"cmp", "maps", "math", "slices", "sort", "strconv", "strings",
	"yardstick/datasets", "yardstick/decide", "yardstick/pipeline", "yardstick/stats"}

// TestReportAnalysisIsPure: the report's numbers are computed apart from
// the reading, the words and the writing of the report.
func TestReportAnalysisIsPure(t *testing.T) {
	pkgs := list(t, root(t), "./stages/report/analysis")
	if len(pkgs) != 1 {
		t.Fatalf("go list ./stages/report/analysis: %d packages", len(pkgs))
	}
	for _, imp := range pkgs[0].Imports {
		if !slices.Contains(analysisImports, imp) {
			t.Errorf("%s imports %s: the analysis reads, writes and words nothing; do that in package report", pkgs[0].ImportPath, imp)
		}
	}
}

// TestCUEStaysOnTheDefinitionSide: the packages that execute a run or
// read one link no CUE.
func TestCUEStaysOnTheDefinitionSide(t *testing.T) {
	dir := root(t)
	for _, p := range list(t, dir, "./pipeline/...", "./stats/...", "./datasets/...", "./runner/...",
		"./stages/execute/...", "./stages/fairness/...", "./stages/tabulate/...", "./stages/report/...", "./loadgen/...") {
		cmd := exec.Command("go", "list", "-deps", p.ImportPath)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", p.ImportPath, err)
		}
		if strings.Contains(string(out), "cuelang.org/") {
			t.Errorf("%s links cuelang.org packages; only the definition side (schema, validate, plan, cmd) may", p.ImportPath)
		}
	}
}

// rendererDecide are the names of package decide that the report's
// renderers may use: the outcomes and the words of a reason, never a
// computation (of stats/changepoint they may use DriftWords, a drift in
// words, and nothing else).
var rendererDecide = []string{"Better", "Worse", "Equivalent", "Undecided", "Outcomes", "ShortReason", "MoreStartsWords", "KindOf",
	"ReasonKind", "ReasonOther", "ReasonNotSteady", "ReasonFewStarts", "ReasonStraddles", "ReasonImpossible", "ReasonUnfair", "ReasonOneStart", "MinStarts"}

// TestReportRenderersComputeNothing: the report computes everything
// first, in its analysis (stages/report/analysis), and its renderers only
// format the values: package report imports no statistics package and
// calls no decision.
func TestReportRenderersComputeNothing(t *testing.T) {
	dir := root(t)
	for _, p := range list(t, dir, "./stages/report") {
		for _, imp := range p.Imports {
			if (imp == "yardstick/stats" || strings.HasPrefix(imp, "yardstick/stats/")) && imp != "yardstick/stats/changepoint" {
				t.Errorf("%s imports %s: compute the figure in stages/report/analysis and format it here", p.ImportPath, imp)
			}
		}
	}
	allowed := map[string][]string{"decide": rendererDecide, "changepoint": {"DriftWords"}}
	files, _ := filepath.Glob(filepath.Join(dir, "stages", "report", "*.go"))
	inspectSources(t, files, func(fset *token.FileSet, n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		if names, guarded := allowed[x.Name]; guarded && !slices.Contains(names, sel.Sel.Name) {
			t.Errorf("%s: %s.%s: a renderer formats the analysis's values and computes none; move it to stages/report/analysis",
				fset.Position(sel.Pos()), x.Name, sel.Sel.Name)
		}
		return true
	})
}

// TestPercentilesThroughHdrstat: every published percentile follows one
// convention, hdrstat's (the reference implementations'); hdrhistogram-go's
// own ValueAtQuantile rounds ranks differently.
func TestPercentilesThroughHdrstat(t *testing.T) {
	dir := root(t)
	fset := token.NewFileSet()
	walk(t, dir, func(path string, _ fs.DirEntry) {
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
			filepath.Dir(path) == filepath.Join(dir, "stats", "hdrstat") {
			return
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && (sel.Sel.Name == "ValueAtQuantile" || sel.Sel.Name == "ValueAtPercentile") {
				t.Errorf("%s: %s: publish percentiles through stats/hdrstat (Dist.Percentile)", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	})
}

// TestScaleOutIsEngineNeutral: the runner's batch code and the pipeline
// name no engine: what an engine does is runner/scaleout's seam, and
// Slurm is runner/slurm's (with the srun host launcher, which a
// definition names). Comments may name Slurm; code may not.
func TestScaleOutIsEngineNeutral(t *testing.T) {
	dir := root(t)
	files, _ := filepath.Glob(filepath.Join(dir, "pipeline", "*.go"))
	files = append(files, filepath.Join(dir, "runner", "batch.go"), filepath.Join(dir, "runner", "runner.go"))
	inspectSources(t, files, func(fset *token.FileSet, n ast.Node) bool {
		var text string
		switch n := n.(type) {
		case *ast.Ident:
			text = n.Name
		case *ast.BasicLit:
			text = n.Value
		case *ast.ImportSpec:
			text = n.Path.Value
		}
		if strings.Contains(strings.ToLower(text), "slurm") {
			t.Errorf("%s: %s: the pipeline and the runner's batches name no engine; go through runner/scaleout", fset.Position(n.Pos()), text)
		}
		return true
	})
}

// inspectSources parses each non-test Go file of files and walks its
// syntax tree with fn (ast.Inspect), failing the test on a file that
// does not parse.
func inspectSources(t *testing.T, files []string, fn func(fset *token.FileSet, n ast.Node) bool) {
	t.Helper()
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool { return n == nil || fn(fset, n) })
	}
}

// TestOnlySchemaImportsCUE: the schema package is the one door to the
// CUE evaluator; validate, plan and cmd reach it through schema.
func TestOnlySchemaImportsCUE(t *testing.T) {
	for _, p := range list(t, root(t), "./...") {
		if p.ImportPath == "yardstick/schema" {
			continue
		}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, "cuelang.org/") {
				t.Errorf("%s imports %s: only yardstick/schema imports CUE; put what it needs there", p.ImportPath, imp)
			}
		}
	}
}

// TestDatasetsHoldNoDecision: datasets is the Parquet door. The
// decisions (the compared metrics, intervals, outcomes) are package
// decide's, which imports datasets; datasets never links decide.
func TestDatasetsHoldNoDecision(t *testing.T) {
	dir := root(t)
	cmd := exec.Command("go", "list", "-deps", "./datasets")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./datasets: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "yardstick/decide" || strings.HasPrefix(dep, "yardstick/decide/") {
			t.Errorf("yardstick/datasets links %s: a decision belongs in package decide, the rows in datasets", dep)
		}
	}
	// datasets may use stats' medians, so stats holds no decision
	// either: none of decide's own names (its outcomes, its decision
	// types and functions) is declared in a package datasets links.
	names := exported(t, filepath.Join(dir, "decide"))
	for _, n := range decisionNames {
		if !names[n] {
			t.Errorf("package decide declares no %s: keep decisionNames true", n)
		}
	}
	for _, dep := range strings.Fields(string(out)) {
		sub, ok := strings.CutPrefix(dep, "yardstick/")
		if !ok {
			continue
		}
		for name, ok := range exported(t, filepath.Join(dir, filepath.FromSlash(sub))) {
			if ok && slices.Contains(decisionNames, name) {
				t.Errorf("%s declares %s, a name of package decide: the decision code came back below datasets", dep, name)
			}
		}
	}
}

// decisionNames are names that mean a decision and nothing else.
var decisionNames = []string{"Better", "Worse", "Equivalent", "Undecided", "Outcomes", "Decision", "Between",
	"Sequential", "ReasonKind", "MoreStartsWords", "Paired", "Metrics", "MetricNamed", "StartsOf", "DesignOf"}

// exported are the exported top-level names declared in the non-test Go
// files of dir.
func exported(t *testing.T, dir string) map[string]bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					names[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.TypeSpec:
						names[sp.Name.Name] = sp.Name.IsExported()
					case *ast.ValueSpec:
						for _, n := range sp.Names {
							names[n.Name] = n.IsExported()
						}
					}
				}
			}
		}
	}
	return names
}

// TestNoPointerOutsideTheRepo: the project stands on its own; no file
// links or cites a directory beside the repository.
func TestNoPointerOutsideTheRepo(t *testing.T) {
	dir := root(t)
	needle := "../" + "shared" // split so that this file does not match itself
	walk(t, dir, func(path string, d fs.DirEntry) {
		info, err := d.Info()
		if err != nil || info.Size() > 4<<20 {
			return
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Error(err)
			return
		}
		if strings.Contains(string(b), needle) {
			rel, _ := filepath.Rel(dir, path)
			t.Errorf("%s points outside the repository (%s)", rel, needle)
		}
	})
}

// TestShippedExperimentsAreFormatted: `cue fmt` leaves every shipped
// definition and the schema unchanged, so a review diff shows only what
// changed and `cue fmt --check schema experiments` is clean.
func TestShippedExperimentsAreFormatted(t *testing.T) {
	var files []string
	for _, dir := range []string{"experiments", "schema"} {
		m, err := filepath.Glob(filepath.Join(root(t), dir, "*.cue"))
		if err != nil || len(m) == 0 {
			t.Fatalf("no %s/*.cue: %v", dir, err)
		}
		files = append(files, m...)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out, err := format.Source(b)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if !bytes.Equal(out, b) {
			t.Errorf("%s is not as cue fmt writes it", filepath.Base(f))
		}
	}
}

// oneMeaning lists words that had several meanings and may name a Go type
// only in the packages given, where the word has its one meaning
// (docs/design.md): a sample is a /proc reading (as taken, in the
// checkpoint, a table row; the report's repeats of one variant at one
// point are a RepeatSet), and runner is the package that runs a run's
// stages (execute's run state is a planRun, loadgen's a loadRun).
var oneMeaning = map[string][]string{
	"sample": {"stages/execute/procsample", "pipeline", "datasets"},
	"runner": {"runner"},
}

// TestOneMeaningPerName: no type, test files' and local ones included, is
// named sample or runner, in any case, outside the packages where the
// word has its one meaning.
func TestOneMeaningPerName(t *testing.T) {
	dir := root(t)
	fset := token.NewFileSet()
	walk(t, dir, func(path string, _ fs.DirEntry) {
		if !strings.HasSuffix(path, ".go") {
			return
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return
		}
		rel, _ := filepath.Rel(dir, path)
		pkgDir := filepath.ToSlash(filepath.Dir(rel))
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			word := strings.ToLower(ts.Name.Name)
			if allowed, ok := oneMeaning[word]; ok && !slices.Contains(allowed, pkgDir) {
				t.Errorf("%s:%d: type %s: %q has one meaning (docs/design.md), in %s only; name this type for what it is",
					rel, fset.Position(ts.Pos()).Line, ts.Name.Name, word, strings.Join(allowed, ", "))
			}
			return true
		})
	})
}
