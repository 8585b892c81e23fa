package measure

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// analyzeLines is an EXPLAIN ANALYZE answer as engine/plan.go (Explain)
// writes it.
var analyzeLines = []string{
	"split ontime.ontime on `ontime`.`id`",
	"fragment: SELECT `DayOfWeek`, COUNT(1) FROM `ontime`.`ontime` WHERE (`ontime`.`id` >= ? AND `ontime`.`id` < ?) GROUP BY `DayOfWeek`",
	"merge: hash aggregate on 1 key(s): __a0=count(COUNT(1))",
	"fragments: 3 over replica1 (2 slots), replica2 (2 slots)",
	"analyze: 7 rows returned in 69.038ms; 14 rows, 224 bytes shipped from workers",
	"fragment 0 [-inf, 97210): worker replica2, 0 rows, 0 bytes, 53.384ms, tries 1",
	"fragment 1 [97210, 194420): worker replica1 (preferred replica2), 7 rows, 112 bytes, 1.5s, tries 2",
	"fragment 2 NULL: worker replica1, 7 rows, 112 bytes, 812µs, tries 1",
}

func TestParseAnalysis(t *testing.T) {
	a, err := ParseAnalysis(analyzeLines)
	if err != nil {
		t.Fatal(err)
	}
	if a.Planned != 3 || a.RowsShipped != 14 || a.BytesShipped != 224 || a.Passthrough != "" {
		t.Errorf("got planned %d, shipped %d rows %d bytes, passthrough %q; want 3, 14, 224, \"\"",
			a.Planned, a.RowsShipped, a.BytesShipped, a.Passthrough)
	}
	want := []FragmentStat{
		{ID: 0, Range: "[-inf, 97210)", Worker: "replica2", Elapsed: 53384 * time.Microsecond, Tries: 1},
		{ID: 1, Range: "[97210, 194420)", Worker: "replica1 (preferred replica2)", Rows: 7, Bytes: 112, Elapsed: 1500 * time.Millisecond, Tries: 2},
		{ID: 2, Range: "NULL", Worker: "replica1", Rows: 7, Bytes: 112, Elapsed: 812 * time.Microsecond, Tries: 1},
	}
	if !reflect.DeepEqual(a.Fragments, want) {
		t.Errorf("fragments:\n got %+v\nwant %+v", a.Fragments, want)
	}
	ft := a.FragmentTimes()
	if ft.P50 != 53384*time.Microsecond || ft.Max != 1500*time.Millisecond {
		t.Errorf("fragment times p50 %v max %v, want 53.384ms 1.5s", ft.P50, ft.Max)
	}
}

func TestParseAnalysisPassthrough(t *testing.T) {
	a, err := ParseAnalysis([]string{"passthrough to one replica: derived table"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Passthrough != "derived table" || len(a.Fragments) != 0 {
		t.Errorf("got %+v", a)
	}
}

func TestParseAnalysisRejectsUnknownFragmentLine(t *testing.T) {
	for _, line := range []string{
		"fragment 0 [-inf, 5): replica2, 0 rows, 0 bytes, 1ms, tries 1",
		"fragment x [-inf, 5): worker r, 0 rows, 0 bytes, 1ms, tries 1",
		"fragment 0 [-inf, 5): worker r, 0 rows, 0 bytes, soon, tries 1",
		"fragment 0 [-inf, 5): worker r, 0 rows, 0 bytes, 1ms",
		"fragment 0 [-inf, 5): worker r, 0 lines, 0 bytes, 1ms, tries 1",
	} {
		if _, err := ParseAnalysis([]string{line}); err == nil || !strings.Contains(err.Error(), "EXPLAIN ANALYZE line") {
			t.Errorf("%q: err = %v, want a parse error", line, err)
		}
	}
}

func TestParseAnalysisPinned(t *testing.T) {
	a, err := ParseAnalysis([]string{
		"split ontime.recent on `recent`.`id`",
		"note: split table: pinned in memory (55168 rows): runs on the coordinator",
		"in memory: ontime.recent v1, 55168 rows in 7 batches",
		"analyze: 7 rows returned in 38.868ms; 0 rows, 0 bytes shipped from workers",
		"fragment 0 pinned ontime.recent v1 (55168 rows): worker coordinator memory, 0 rows, 0 bytes, 38.81ms, tries 1",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := FragmentStat{Range: "pinned ontime.recent v1 (55168 rows)", Worker: "coordinator memory", Elapsed: 38810 * time.Microsecond, Tries: 1}
	if a.InMemory != "ontime.recent v1, 55168 rows in 7 batches" || len(a.Fragments) != 1 || a.Fragments[0] != want {
		t.Errorf("got %+v", a)
	}
}
