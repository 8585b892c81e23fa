package evalexpr

import (
	"testing"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
	"vitess.io/vitess/go/vt/sqlparser"
)

// TestConstDateCalls: TIMESTAMP and STR_TO_DATE over literals, as BI
// tools' filters use them, compared with a DATETIME column as MariaDB
// 10.11 compares them (its answers for these literals: TIMESTAMP
// ('2016-12-30') is 2016-12-30 00:00:00, STR_TO_DATE with %f a
// DATETIME(6)).
func TestConstDateCalls(t *testing.T) {
	fields := []*querypb.Field{{Name: "dt", Type: sqltypes.Datetime, Charset: 63}}
	layout := NewLayout([]string{"dt"}, fields)
	values := strs("2016-12-30 00:00:00", "2016-12-30 13:04:05", "2016-12-31 00:00:00", "NULL")
	F := func(s ...string) []string { return s }
	checkCases(t, layout, fields, values, []evalCase{
		{"dt >= timestamp('2016-12-30 13:04:05')", F("0", "1", "1", "NULL")},
		{"dt = timestamp(_utf8mb4'2016-12-30')", F("1", "0", "0", "NULL")},
		{"dt < timestamp('2016-12-30 13:04:05.5')", F("1", "1", "0", "NULL")},
		{"dt between timestamp('2016-12-30 00:00:01') and timestamp('2016-12-31')", F("0", "1", "1", "NULL")},
		{"timestamp('garbage') is null", F("1", "1", "1", "1")},
		{"dt >= str_to_date('2016-12-30 13:04:05.000000', '%Y-%m-%d %H:%i:%s.%f')", F("0", "1", "1", "NULL")},
		{"dt < str_to_date(_utf8mb4'2016-12-31', _utf8mb4'%Y-%m-%d')", F("1", "1", "0", "NULL")},
		{"dt = str_to_date('30/12/2016 13:04:05', '%d/%m/%Y %H:%i:%s')", F("0", "1", "0", "NULL")},
		{"dt < date_add(timestamp('2016-12-31'), interval -1 second)", F("1", "1", "0", "NULL")},
	})
	for _, c := range []struct{ text, format, want string }{
		{"2016-12-30 00:00:00.000000", "%Y-%m-%d %H:%i:%s.%f", "2016-12-30 00:00:00.000000"},
		{"2016-12-30 00:00:00.5", "%Y-%m-%d %H:%i:%s.%f", "2016-12-30 00:00:00.500000"},
		{"2016-12-30", "%Y-%m-%d", "2016-12-30"},
		{"2016-12-30 13:04:05", "%Y-%m-%d %H:%i:%s", "2016-12-30 13:04:05"},
		// Left to the server: an unreal date, lenient widths, other
		// specifiers, leftover text.
		{"2016-02-30", "%Y-%m-%d", ""},
		{"2016-1-30", "%Y-%m-%d", ""},
		{"Dec 30 2016", "%b %d %Y", ""},
		{"2016-12-30x", "%Y-%m-%d", ""},
	} {
		got := ""
		if e := strToDate(c.text, c.format); e != nil {
			got = e.(*sqlparser.Literal).Val
		}
		if got != c.want && c.want != "" {
			t.Errorf("STR_TO_DATE(%q, %q) = %s, want %s", c.text, c.format, got, c.want)
		} else if c.want == "" && got != "" {
			t.Errorf("STR_TO_DATE(%q, %q) = %s, want it left to the server", c.text, c.format, got)
		}
	}
}
