package coldefs

import (
	"errors"
	"fmt"
	"testing"

	"vitess.io/vitess/go/mysql/sqlerror"
)

func TestPrepareError(t *testing.T) {
	for _, c := range []struct {
		err    error
		tables bool
		want   bool
	}{
		{sqlerror.NewSQLError(sqlerror.ERBadFieldError, "42S22", "Unknown column 'x' in 'SELECT'"), false, true},
		{fmt.Errorf("describing: %w", sqlerror.NewSQLError(sqlerror.ERSPDoesNotExist, "42000", "FUNCTION f does not exist")), false, true},
		{sqlerror.NewSQLError(sqlerror.ERNoSuchTable, "42S02", "Table 'db.t' doesn't exist"), true, true},
		// A pinned query result is no replica's table.
		{sqlerror.NewSQLError(sqlerror.ERNoSuchTable, "42S02", "Table 'db.t' doesn't exist"), false, false},
		{sqlerror.NewSQLError(sqlerror.ERQueryInterrupted, "70100", "Query execution was interrupted"), true, false},
		{errors.New("connection refused"), true, false},
	} {
		got := PrepareError(c.err, c.tables)
		if (got != nil) != c.want {
			t.Errorf("PrepareError(%v, %v) = %v, want an error: %v", c.err, c.tables, got, c.want)
		}
	}
}

// TestMetadataQueryLimit: a statement with a LIMIT of its own is
// described with that LIMIT made 0 (a prepare of it described no columns);
// a LIMIT inside a subquery stays, INTO still gives none.
func TestMetadataQueryLimit(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"select a, count(*) from t group by a", "select a, count(*) from t group by a\nLIMIT 0"},
		{"select a from t order by a limit 5", "select a from t order by a \nLIMIT 0"},
		{"select a from t order by a limit 0, 5", "select a from t order by a \nLIMIT 0"},
		{"select a from t where a in (select b from u limit 3) limit 2 offset 1", "select a from t where a in (select b from u limit 3) \nLIMIT 0"},
		{"select a from t limit 1 into @x", ""},
	} {
		got, err := MetadataQuery(c.in)
		if err != nil || got != c.want {
			t.Errorf("MetadataQuery(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestQualifier(t *testing.T) {
	for col, want := range map[string]string{
		"`l`.`l_orderkey`":   "`l`",
		"`a.b`.`c`":          "`a.b`",
		"`x``y`.`k`":         "`x``y`",
		"`lineitem`.`a.b.c`": "`lineitem`",
	} {
		if got := qualifier(col); got != want {
			t.Errorf("qualifier(%s) = %s, want %s", col, got, want)
		}
	}
}
