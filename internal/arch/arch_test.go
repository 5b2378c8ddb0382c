package arch

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/packer-sched/packer/"

// allowed lists, for each package, the packer packages it may import. Read
// left to right it is the data flow: the vocabulary (model), the generic
// swarm (pso) and file safety first; then the built-in catalogue, what makes
// models (profile) and plans (optimize); the plan document, which imports
// only model; then what consumes plans (sim, chart, xenlibvirt) and traces
// (importers into sim's workloads); the experiments over all of it; the
// command line last. A package missing here fails the test, so a new one
// gets its place on purpose.
var allowed = map[string][]string{
	"model":                  {},
	"pso":                    {},
	"internal/safefile":      {},
	"internal/progress":      {},
	"internal/memlimit":      {},
	"internal/shell":         {},
	"internal/chromium":      {},
	"internal/plantest":      {"model", "optimize", "plan", "workloads"},
	"model/modeltest":        {"model"},
	"internal/docs":          {},
	"internal/goldenfile":    {},
	"internal/fuzzmin":       {},
	"internal/table":         {},
	"workloads":              {"model"},
	"profile":                {"model"},
	"optimize":               {"model", "pso"},
	"optimize/solverbench":   {"model", "pso", "optimize", "workloads", "internal/safefile"},
	"plan":                   {"model"},
	"sim/internal/reference": {},
	"sim/internal/engine":    {"sim/internal/reference"},
	"sim":                    {"model", "plan", "sim/internal/engine"},
	"chart":                  {"model", "plan", "sim"},
	"xenlibvirt":             {"model", "plan", "profile", "internal/safefile"},
	"xenlibvirt/libvirttest": {"model", "plan", "xenlibvirt"},
	"workloads/traces":       {"model", "profile", "sim", "workloads"},
	"experiments":            {"model", "pso", "optimize", "plan", "sim", "workloads", "internal/safefile"},
	"sweep":                  {"model", "pso", "optimize", "plan", "sim", "workloads", "workloads/traces", "internal/safefile", "internal/memlimit"},
}

// TestImportsFollowTheDataFlow: no package imports one to its right, and sim,
// chart and xenlibvirt read plans without the solvers.
func TestImportsFollowTheDataFlow(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"...").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], module)
		if strings.HasPrefix(pkg, "cmd/") || pkg == "internal/arch" {
			continue
		}
		ok, known := allowed[pkg]
		if !known {
			t.Errorf("package %s has no place in the data flow (add it to allowed)", pkg)
			continue
		}
		for _, imp := range f[1:] {
			if dep, ours := strings.CutPrefix(imp, module); ours && !slices.Contains(ok, dep) {
				t.Errorf("%s imports %s, which is not to its left", pkg, dep)
			}
		}
	}
}

// goFiles calls fn for every non-test Go file of the module with its path
// relative to the module root.
func goFiles(t *testing.T, fn func(rel string, f *ast.File, fset *token.FileSet)) {
	t.Helper()
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		fn(filepath.ToSlash(rel), f, fset)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// maxFuncLines is the longest a function may be, its closures included.
const maxFuncLines = 100

// TestNoFunctionOver100Lines: long functions are cut into named steps.
func TestNoFunctionOver100Lines(t *testing.T) {
	goFiles(t, func(rel string, f *ast.File, fset *token.FileSet) {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxFuncLines {
				t.Errorf("%s: %s is %d lines (at most %d)", rel, fd.Name.Name, n, maxFuncLines)
			}
		}
	})
}

// TestCommandLineIsThin: cmd/packer parses flags, calls the library and
// prints, so it holds at most 12 % of the non-test lines, and no file of it
// is over 350 lines.
func TestCommandLineIsThin(t *testing.T) {
	var all, cmd int
	goFiles(t, func(rel string, f *ast.File, fset *token.FileSet) {
		n := fset.Position(f.FileEnd).Line
		all += n
		if strings.HasPrefix(rel, "cmd/packer/") {
			cmd += n
			if n > 350 {
				t.Errorf("%s is %d lines (a command file holds at most 350)", rel, n)
			}
		}
	})
	if share := float64(cmd) / float64(all); share > 0.12 {
		t.Errorf("cmd/packer is %d of %d non-test lines (%.1f %%, at most 12 %%)", cmd, all, 100*share)
	}
}
