package planner

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/shoaldb/shoal/sqlparse"
)

var update = flag.Bool("update", false, "rewrite golden files")

func testCatalog() Catalog {
	cols := func(names ...string) []Column {
		out := make([]Column, len(names))
		for i, n := range names {
			out[i] = Column{Name: n}
		}
		return out
	}
	c := MapCatalog{}
	c.Add(&Table{Schema: "ontime", Name: "ontime", SplitColumn: "id", Rows: 1e7, Min: 1, Max: 1e7,
		Columns: cols("id", "YearD", "Quarter", "MonthD", "DayofMonth", "DayOfWeek", "FlightDate",
			"UniqueCarrier", "Carrier", "TailNum", "FlightNum", "Origin", "OriginState", "Dest",
			"DestState", "DepDelayMinutes", "ArrDelayMinutes", "Cancelled", "Diverted", "Distance")})
	c.Add(&Table{Schema: "ontime", Name: "nokey", Columns: cols("a", "b")})
	c.Add(&Table{Schema: "ontime", Name: "bignokey", Rows: 1e6, Columns: cols("a", "b")})
	c.Add(&Table{Schema: "ontime", Name: "days", SplitColumn: "FlightDate", SplitType: "date", Rows: 5e6, Columns: cols("FlightDate", "n")})
	parts := []Partition{{Name: "p2023", Rows: 4e6, Min: 1, Max: 4e6}, {Name: "p2024", Rows: 4e6, Min: 4e6 + 1, Max: 8e6}}
	c.Add(&Table{Schema: "ontime", Name: "byyear", SplitColumn: "id", Rows: 8e6, Min: 1, Max: 8e6, Partitions: parts, Columns: cols("id", "YearD", "Distance")})
	c.Add(&Table{Schema: "ontime", Name: "logs", Rows: 8e6, Partitions: parts, Columns: cols("YearD", "msg")})
	c.Add(&Table{Schema: "ontime", Name: "bigtails", KeyColumns: []string{"Carrier", "TailNum"}, Rows: 2e7, Columns: cols("Carrier", "TailNum", "Distance")})
	c.Add(&Table{Schema: "ontime", Name: "tails", KeyColumns: []string{"Carrier", "TailNum"}, Rows: 2e6, Columns: cols("Carrier", "TailNum", "Distance")})
	// fares has typed columns and known indexes (id, k): the plans of
	// aggregates over DECIMAL divisions depend on both.
	c.Add(&Table{Schema: "ontime", Name: "fares", SplitColumn: "id", SplitUnique: true, Rows: 1e6, Min: 1, Max: 1e6,
		IndexLeads: []string{"id", "k"}, Indexed: []string{"id", "k"},
		Columns: []Column{{Name: "id", Type: "int"}, {Name: "k", Type: "int"}, {Name: "g", Type: "int"},
			{Name: "d", Type: "decimal", Scale: 2}, {Name: "wide", Type: "decimal", Scale: 25}}})
	c.Add(&Table{Schema: "ontime", Name: "carriers", SplitColumn: "", Rows: 22, Columns: cols("code", "name", "country")})
	c.Add(&Table{Schema: "ontime", Name: "airports", SplitColumn: "", Rows: 105, Columns: cols("code", "city", "state", "name")})
	return c
}

// golden is one plan test case; unknown fields in the file are rejected.
type golden struct {
	Comment string   `json:"comment"`
	Query   string   `json:"query"`
	Plan    []string `json:"plan,omitempty"`
	Meta    string   `json:"meta,omitempty"`
	Passes  string   `json:"passthrough,omitempty"`
}

func TestPlans(t *testing.T) { runGolden(t, "plans.json", testCatalog()) }

// runGolden plans every case of testdata/file over cat and compares the
// plan (or the passthrough reason) with the file's; -update rewrites it.
// Every fragment must also round-trip through the parser.
func runGolden(t *testing.T, file string, cat Catalog) {
	t.Helper()
	path := filepath.Join("testdata", file)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	var cases []golden
	if err := dec.Decode(&cases); err != nil {
		t.Fatal(err)
	}
	for i := range cases {
		c := &cases[i]
		stmt, err := sqlparse.ParseOne(c.Query)
		if err != nil {
			t.Fatalf("%s: %v", c.Query, err)
		}
		sel, ok := stmt.(*ast.SelectStmt)
		if !ok {
			t.Fatalf("%s: not a SELECT", c.Query)
		}
		p, err := PlanSelect(cat, "ontime", sel)
		var got golden
		got.Comment, got.Query = c.Comment, c.Query
		if err != nil {
			nd, ok := err.(*NotDistributed)
			if !ok {
				t.Fatalf("%s: %v", c.Query, err)
			}
			got.Passes = nd.Reason
		} else {
			got.Plan = p.Describe()
			got.Meta = p.MetaSQL
			// Every fragment must re-parse and restore to itself.
			frag := strings.ReplaceAll(p.FragmentSQL, RangeMarker, "(`x` >= 1 AND `x` < 2)")
			st, err := sqlparse.ParseOne(frag)
			if err != nil {
				t.Fatalf("%s: fragment does not parse: %v", frag, err)
			}
			once, err := sqlparse.Restore(st)
			if err != nil {
				t.Fatal(err)
			}
			st2, err := sqlparse.ParseOne(once)
			if err != nil {
				t.Fatalf("restored fragment does not parse: %v\n%s", err, once)
			}
			if twice, _ := sqlparse.Restore(st2); twice != once {
				t.Errorf("fragment does not round-trip:\n%s\n%s", once, twice)
			}
		}
		if *update {
			*c = got
			continue
		}
		gj, _ := json.MarshalIndent(got, "", "  ")
		wj, _ := json.MarshalIndent(c, "", "  ")
		if string(gj) != string(wj) {
			t.Errorf("case %d %q:\n got %s\nwant %s", i, c.Comment, gj, wj)
		}
	}
	if *update {
		out, _ := json.MarshalIndent(cases, "", "  ")
		if err := os.WriteFile(path, append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
