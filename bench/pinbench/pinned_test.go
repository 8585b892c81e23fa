package pinbench

import (
	"testing"
	"time"
)

func TestSameRows(t *testing.T) {
	mysql := [][]string{{"WN", "0.10", "40712"}, {"AA", "0.12", "NULL"}}
	duck := [][]string{{"AA", "0.12", "NULL"}, {"WN", "0.1", "40712"}}
	if !sameRows(duck, mysql, numericCell) {
		t.Errorf("DuckDB's 0.1 and MySQL's 0.10, in another order: not equal")
	}
	if sameRows(duck, mysql, exactCell) {
		t.Errorf("exact compare: 0.1 equals 0.10")
	}
	if sameRows([][]string{{"AA", "0.13", "NULL"}, {"WN", "0.1", "40712"}}, mysql, numericCell) {
		t.Errorf("0.13 equals 0.12")
	}
	if sameRows(mysql[:1], mysql, exactCell) {
		t.Errorf("a missing row: equal")
	}
}

func TestAnalyzeTime(t *testing.T) {
	lines := []string{
		"split ontime.ontime on `ontime`.`id`",
		"analyze: 10 rows returned in 1.234ms; 0 rows, 0 bytes shipped from workers",
		"fragment 0 pinned ontime.ontime v1 (200000 rows): worker coordinator memory, 0 rows, 0 bytes, 1.1ms, tries 1",
	}
	got, err := analyzeTime(lines)
	if err != nil || got != 1234*time.Microsecond {
		t.Errorf("analyzeTime = %v, %v; want 1.234ms", got, err)
	}
	if got, err := analyzeTime([]string{"analyze: 1 rows returned in 950µs; 0 rows, 0 bytes shipped from workers"}); err != nil || got != 950*time.Microsecond {
		t.Errorf("analyzeTime(µs) = %v, %v", got, err)
	}
	if _, err := analyzeTime(lines[:1]); err == nil {
		t.Errorf("no analyze line: no error")
	}
}
