package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The size limits a new engineer can find their room in: a package is
// read as a whole, a type's methods as one list.
const (
	maxPackageLines = 4000 // non-test lines of Go, comments included
	maxTypeMethods  = 30
)

// TestSizes fails on a package over maxPackageLines non-test lines or a
// type with more than maxTypeMethods methods: split it along a seam
// (issue 12) rather than raising the limit.
func TestSizes(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{.Dir}}", module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, dir, _ := strings.Cut(line, " ")
		pkg = strings.TrimPrefix(pkg, module)
		lines, methods := measure(t, dir)
		if lines > maxPackageLines {
			t.Errorf("package %s has %d non-test lines (limit %d): split it", pkg, lines, maxPackageLines)
		}
		for typ, n := range methods {
			if n > maxTypeMethods {
				t.Errorf("type %s.%s has %d methods (limit %d): split it", pkg, typ, n, maxTypeMethods)
			}
		}
	}
}

// measure counts the non-test lines of the package in dir and the methods
// of each of its types.
func measure(t *testing.T, dir string) (lines int, methods map[string]int) {
	t.Helper()
	methods = map[string]int{}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines += strings.Count(string(src), "\n")
		file, err := parser.ParseFile(fset, f, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil && len(fn.Recv.List) == 1 {
				if name := receiverType(fn.Recv.List[0].Type); name != "" {
					methods[name]++
				}
			}
		}
	}
	return lines, methods
}

// receiverType names a method's receiver type: T, *T, T[K] or *T[K].
func receiverType(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return receiverType(x.X)
	case *ast.IndexExpr:
		return receiverType(x.X)
	case *ast.IndexListExpr:
		return receiverType(x.X)
	case *ast.Ident:
		return x.Name
	}
	return ""
}

// TestReceiverType pins the receiver naming the method count relies on.
func TestReceiverType(t *testing.T) {
	for src, want := range map[string]string{
		"func (s *Engine) F() {}":  "Engine",
		"func (c cache) F() {}":    "cache",
		"func (l *LRU[V]) F() {}":  "LRU",
		"func (m *M[K, V]) F() {}": "M",
		"func F() {}":              "",
	} {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package x\n"+src, 0)
		if err != nil {
			t.Fatal(err)
		}
		fn := f.Decls[0].(*ast.FuncDecl)
		got := ""
		if fn.Recv != nil {
			got = receiverType(fn.Recv.List[0].Type)
		}
		if got != want {
			t.Errorf("%s: receiver %q, want %q", src, got, want)
		}
	}
}

// TestPackageDocs fails on a package without a doc comment: each says
// what it owns and what it may import.
func TestPackageDocs(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{len .GoFiles}}|{{.Doc}}", module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.SplitN(line, "|", 3)
		if parts[1] != "0" && strings.TrimSpace(parts[2]) == "" {
			t.Errorf("package %s has no doc comment: say what it owns and what it may import", strings.TrimPrefix(parts[0], module))
		}
	}
}
