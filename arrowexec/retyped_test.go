package arrowexec

import (
	"testing"

	"vitess.io/vitess/go/sqltypes"
)

// TestRetypedYear: YEAR 0 is written 0000, as MariaDB sends it.
func TestRetypedYear(t *testing.T) {
	for in, want := range map[int64]string{0: "0000", 1901: "1901", 2155: "2155"} {
		if got := retyped(sqltypes.Year, sqltypes.NewInt64(in)); got.ToString() != want || got.Type() != sqltypes.Year {
			t.Errorf("YEAR %d: %q (%s), want %q", in, got.ToString(), got.Type(), want)
		}
	}
	if got := retyped(sqltypes.Time, sqltypes.NewVarChar("-00:00:01")); got.ToString() != "-00:00:01" || got.Type() != sqltypes.Time {
		t.Errorf("TIME: %v", got)
	}
}
