package dashboard

import (
	"slices"
	"testing"
)

func TestParseSteps(t *testing.T) {
	got, err := parseSteps("10, 25,300")
	if err != nil || !slices.Equal(got, []int{10, 25, 300}) {
		t.Errorf("parseSteps = %v, %v", got, err)
	}
	for _, bad := range []string{"", "10,,20", "0", "-5", "ten"} {
		if _, err := parseSteps(bad); err == nil {
			t.Errorf("parseSteps(%q): no error", bad)
		}
	}
}

func TestSplitStatements(t *testing.T) {
	got := splitStatements(" CACHE TABLE ontime.recent AS SELECT * FROM ontime.ontime WHERE YearD >= 2009 ;; SELECT 1; ")
	want := []string{"CACHE TABLE ontime.recent AS SELECT * FROM ontime.ontime WHERE YearD >= 2009", "SELECT 1"}
	if !slices.Equal(got, want) {
		t.Errorf("splitStatements = %q, want %q", got, want)
	}
	if got := splitStatements(""); got != nil {
		t.Errorf("splitStatements(\"\") = %q, want none", got)
	}
}
