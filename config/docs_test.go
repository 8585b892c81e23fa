package config

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The configuration reference in docs/operations.md must keep up with the
// code: every YAML key of Coordinator and Worker (and of the structs they
// nest: users, replicas, pins) documented with a default, every default
// that names a value equal to what Defaults() fills in, and every flag and
// environment variable of `shoal coordinator` and `shoal worker` named in
// that command's section. A key added without a line in the docs fails
// here.

const operationsDoc = "../docs/operations.md"

// docRow is one row of a reference table: the keys its first cell names,
// its default cell and the whole row's text.
type docRow struct {
	keys []string
	def  string
	text string
}

var backticked = regexp.MustCompile("`([^`]*)`")

// section returns the text under the heading whose title is title, up to
// the next heading of the same or a higher level.
func section(t *testing.T, doc, title string) string {
	t.Helper()
	lines := strings.Split(doc, "\n")
	for i, l := range lines {
		level := len(l) - len(strings.TrimLeft(l, "#"))
		if level == 0 || strings.TrimSpace(l[level:]) != title {
			continue
		}
		var out []string
		for _, m := range lines[i+1:] {
			if n := len(m) - len(strings.TrimLeft(m, "#")); n > 0 && n <= level && strings.HasPrefix(m[n:], " ") {
				break
			}
			out = append(out, m)
		}
		return strings.Join(out, "\n")
	}
	t.Fatalf("%s has no section %q", operationsDoc, title)
	return ""
}

// tableRows reads the rows of the markdown tables in text whose first
// cell names keys in backticks.
func tableRows(text string) []docRow {
	var rows []docRow
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(l, "| `") {
			continue
		}
		cells := strings.Split(l, " | ")
		r := docRow{text: l}
		for _, m := range backticked.FindAllStringSubmatch(cells[0], -1) {
			r.keys = append(r.keys, m[1])
		}
		if len(cells) > 1 {
			r.def = strings.TrimSpace(cells[1])
		}
		rows = append(rows, r)
	}
	return rows
}

// yamlKeys lists a struct type's YAML keys with their fields.
func yamlKeys(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		out[name] = f
	}
	return out
}

// nested is the struct a field holds (through pointers, slices and maps),
// nil for a scalar or for Duration.
func nested(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	return t
}

func TestOperationsDocCoversConfig(t *testing.T) {
	b, err := os.ReadFile(operationsDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	var c Coordinator
	c.Defaults()
	var w Worker
	w.Defaults()
	for _, tc := range []struct {
		title    string
		typ      reflect.Type
		defaults reflect.Value
	}{
		{"Coordinator configuration (YAML)", reflect.TypeFor[Coordinator](), reflect.ValueOf(c)},
		{"Worker configuration (YAML)", reflect.TypeFor[Worker](), reflect.ValueOf(w)},
	} {
		rows := tableRows(section(t, doc, tc.title))
		byKey := map[string]docRow{}
		for _, r := range rows {
			for _, k := range r.keys {
				byKey[k] = r
			}
		}
		for key, f := range yamlKeys(tc.typ) {
			r, ok := byKey[key]
			if !ok {
				t.Errorf("%s: key %s (%s.%s) is not documented", tc.title, key, tc.typ.Name(), f.Name)
				continue
			}
			if r.def == "" {
				t.Errorf("%s: key %s has no default", tc.title, key)
			}
			if st := nested(f.Type); st != nil {
				for sub := range yamlKeys(st) {
					if !regexp.MustCompile(`\b` + regexp.QuoteMeta(sub) + `\b`).MatchString(r.text) {
						t.Errorf("%s: %s's row does not name its field %s", tc.title, key, sub)
					}
				}
			}
			if len(r.keys) == 1 {
				checkDefault(t, tc.title, key, r.def, tc.defaults.FieldByIndex(f.Index))
			}
		}
	}
}

// checkDefault compares a documented default that names one value with
// the field's value after Defaults(). A default in words ("CPU count",
// "none") is not compared.
func checkDefault(t *testing.T, title, key, cell string, v reflect.Value) {
	t.Helper()
	cell = strings.Trim(cell, "`")
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return // unset means "see the meaning" (affinity, http_listen)
		}
		v = v.Elem()
	}
	switch {
	case v.Type() == reflect.TypeFor[Duration]():
		d, err := time.ParseDuration(cell)
		if err == nil && d != time.Duration(v.Int()) {
			t.Errorf("%s: %s documented default %s, Defaults() sets %s", title, key, cell, time.Duration(v.Int()))
		}
	case v.Kind() == reflect.Int || v.Kind() == reflect.Int64:
		n, unit := cell, int64(1)
		for suffix, u := range map[string]int64{" GiB": 1 << 30, " MiB": 1 << 20} {
			if s, ok := strings.CutSuffix(cell, suffix); ok {
				n, unit = s, u
			}
		}
		if x, err := strconv.ParseInt(n, 10, 64); err == nil && x*unit != v.Int() {
			t.Errorf("%s: %s documented default %s, Defaults() sets %d", title, key, cell, v.Int())
		}
	case v.Kind() == reflect.String:
		if strings.ContainsAny(cell, ".:") && cell != v.String() { // an address or a name with a dot
			t.Errorf("%s: %s documented default %s, Defaults() sets %q", title, key, cell, v.String())
		}
	}
}

// TestOperationsDocCoversFlags: every flag of `shoal coordinator` and
// `shoal worker` (read from their source) and every environment variable
// they or package config read is named in the command's section.
func TestOperationsDocCoversFlags(t *testing.T) {
	b, err := os.ReadFile(operationsDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, tc := range []struct{ file, title string }{
		{"../cmd/shoal/coordinator.go", "Coordinator flags and environment"},
		{"../cmd/shoal/worker.go", "Worker flags and environment"},
	} {
		text := section(t, doc, tc.title)
		flags, envs := flagsAndEnv(t, tc.file)
		if len(flags) < 3 {
			t.Fatalf("%s: found only flags %v; has the flag set changed shape?", tc.file, flags)
		}
		envs = append(envs, SecretEnv)
		for _, f := range flags {
			if !strings.Contains(text, "`--"+f) {
				t.Errorf("%s: flag --%s (%s) is not documented", tc.title, f, tc.file)
			}
		}
		for _, e := range envs {
			if !strings.Contains(text, "`"+e+"`") {
				t.Errorf("%s: environment variable %s (%s) is not documented", tc.title, e, tc.file)
			}
		}
	}
}

// flagsAndEnv reads the flag names (fs.String("name", …) and the like)
// and os.Getenv names of a Go file.
func flagsAndEnv(t *testing.T, path string) (flags, envs []string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		lit, ok := call.Args[0].(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		name, _ := strconv.Unquote(lit.Value)
		x, _ := sel.X.(*ast.Ident)
		switch {
		case x != nil && x.Name == "fs" && strings.Contains("String Bool Int Int64 Duration Float64 Uint", sel.Sel.Name):
			flags = append(flags, name)
		case x != nil && x.Name == "os" && (sel.Sel.Name == "Getenv" || sel.Sel.Name == "LookupEnv"):
			envs = append(envs, name)
		}
		return true
	})
	return flags, envs
}
