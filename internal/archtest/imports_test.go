// Package archtest checks the shape of the code base: which of Shoal's
// packages may import which. It has no code of its own.
package archtest

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/shoaldb/shoal/"

// layer ranks the packages a statement passes through, top down: a
// package may import project packages of a lower rank only (and leaves).
// observe sits below the engine and the router, which feed it; it reads
// them only through its Source interface.
var layer = map[string]int{
	"coordinator":         60,
	"frontend/mysqlwire":  50,
	"frontend/flightwire": 50,
	"router":              40,
	"engine":              30,
	"engine/pinstore":     27,
	"engine/replicaset":   26,
	"engine/route":        26,
	"engine/schedule":     25,
	"engine/coldefs":      22,
	"engine/catalog":      20,
	"replica":             18,
	"engine/proclist":     16, // the session rows observe lists
	"observe":             15,
}

// tools may import anything; no layered or leaf package may import them.
var tools = map[string]bool{
	"cmd/shoal": true, "bench": true, "e2e": true, "deploy/localcluster": true, "internal/cli": true,
	"internal/archtest": true, "gen": true, "netshape": true, "deploy/schema": true,
	"bench/measure": true, "bench/scan": true, "bench/pinbench": true, "bench/dashboard": true, "bench/live": true,
}

// benchDeps are the bench packages each bench package may import (their
// package comments say why): the workloads share bench/measure, pinbench
// reads scan's query sets, and only the bench command imports the
// workloads.
var benchDeps = map[string][]string{
	"bench":           {"bench/measure", "bench/scan", "bench/pinbench", "bench/dashboard", "bench/live"},
	"bench/measure":   nil,
	"bench/scan":      {"bench/measure"},
	"bench/pinbench":  {"bench/measure", "bench/scan"},
	"bench/dashboard": {"bench/measure"},
	"bench/live":      {"bench/measure"},
}

// TestImportDirection lists every package's imports (go list, tests
// excluded) and fails on one against the direction: up a layer, across
// the two front ends, from a leaf (planner, pinned, worker, ...) into a
// layer, or from anything but a tool into a tool.
func TestImportDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		seen[pkg] = true
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			dep := strings.TrimPrefix(imp, module)
			if why := forbidden(pkg, dep); why != "" {
				t.Errorf("%s imports %s: %s", pkg, dep, why)
			}
		}
	}
	for pkg := range layer {
		if !seen[pkg] {
			t.Errorf("layered package %s not found: update the layer table", pkg)
		}
	}
	for pkg := range benchDeps {
		if !seen[pkg] {
			t.Errorf("bench package %s not found: update benchDeps and tools", pkg)
		}
	}
	for pkg := range seen {
		if _, listed := benchDeps[pkg]; isBench(pkg) && (!listed || !tools[pkg]) {
			t.Errorf("bench package %s is missing from benchDeps or tools", pkg)
		}
	}
}

// forbidden says why pkg may not import dep, or "" when it may.
func forbidden(pkg, dep string) string {
	if allowed, ok := benchDeps[pkg]; ok && isBench(dep) && !slices.Contains(allowed, dep) {
		return "bench packages import bench/measure and their own seams only (benchDeps)"
	}
	if tools[pkg] {
		return ""
	}
	if tools[dep] {
		return "a tool package; only tools import tools"
	}
	lp, pkgLayered := layer[pkg]
	ld, depLayered := layer[dep]
	switch {
	case !depLayered:
		return "" // a leaf: anyone may import it
	case !pkgLayered:
		return "leaf packages import no layered package"
	case ld >= lp:
		return "imports go one way: coordinator → front ends → router → engine → catalog → replica → observe → leaves"
	}
	return ""
}

// isBench reports whether pkg is the bench command or one of its
// packages (bench/duckdb is a module of its own, outside go list's view).
func isBench(pkg string) bool { return pkg == "bench" || strings.HasPrefix(pkg, "bench/") }

// TestForbidden pins the rule itself, so the test above cannot pass by
// allowing everything.
func TestForbidden(t *testing.T) {
	for _, c := range []struct {
		pkg, dep string
		ok       bool
	}{
		{"router", "engine", true},
		{"engine", "router", false},
		{"observe", "engine", false},
		{"engine", "observe", true},
		{"frontend/mysqlwire", "frontend/flightwire", false},
		{"engine/catalog", "engine", false},
		{"planner", "engine", false},
		{"pinned", "planner", true},
		{"engine", "bench", false},
		{"bench", "coordinator", true},
		{"engine", "bench/measure", false},
		{"bench/scan", "coordinator", true},
		{"bench/pinbench", "bench/scan", true},
		{"bench/dashboard", "bench/scan", false},
		{"bench/measure", "bench/live", false},
		{"bench/live", "bench", false},
		{"bench", "bench/live", true},
	} {
		if got := forbidden(c.pkg, c.dep) == ""; got != c.ok {
			t.Errorf("%s → %s allowed %v, want %v", c.pkg, c.dep, got, c.ok)
		}
	}
}
