package planner

import (
	"testing"

	"github.com/shoaldb/shoal/sqlparse"
)

// TestClassifyTextWrites: both the parsed and the unparsed path refuse
// what the text would write, parsed or not by TiDB.
func TestClassifyTextWrites(t *testing.T) {
	for _, sql := range []string{
		"SELECT id FROM t LIMIT 1 /*M! INTO OUTFILE '/tmp/x' */",
		"SELECT id INTO OUTFILE '/tmp/x' FROM t",
		"SELECT 1 UNION SELECT 2 INTO OUTFILE '/tmp/x'",
		"SELECT NEXTVAL(s)",
		"WITH c AS (SELECT 1) SELECT * FROM c INTO OUTFILE '/tmp/x'",
	} {
		var kind Kind
		if stmts, err := sqlparse.Parse(sql); err == nil && len(stmts) == 1 {
			kind, _ = Classify(stmts[0])
		} else {
			kind, _ = ClassifyUnparsed(sql)
		}
		if kind != Refuse {
			t.Errorf("%q: kind %v, want Refuse", sql, kind)
		}
	}
}
