package evalexpr

import (
	"testing"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// TestDateText: a DATE compared with text or a number is compared as
// DATETIMEs, the text read leniently ('2016-12-30 10:00', '2016-12-30x',
// ' 2016-12-31', '2016.12.30', 161230), impossible days compared as they
// are, text that is no date as the zero date; the date functions read
// text literals the same way (impossible days: NULL). vitess' evalengine
// read most of these forms as no date. The answers are MariaDB 10.11's
// over a DATE column holding each value.
func TestDateText(t *testing.T) {
	fields := []*querypb.Field{{Name: "d", Type: sqltypes.Date, Charset: 63}}
	layout := NewLayout([]string{"d"}, fields)
	values := strs("2016-12-30", "2016-12-31", "2016-02-29", "NULL")
	F := func(s ...string) []string { return s }
	checkCases(t, layout, fields, values, []evalCase{
		{"d > '2016-12-30 10:00'", F("0", "1", "0", "NULL")},
		{"d > '2016-12-30 '", F("0", "1", "0", "NULL")},
		{"d = '2016-12-30 '", F("1", "0", "0", "NULL")},
		{"d > '2016-12-30x'", F("0", "1", "0", "NULL")},
		{"d = '2016-12-30x'", F("1", "0", "0", "NULL")},
		{"d = '2016.12.30'", F("1", "0", "0", "NULL")},
		{"d = 161230", F("1", "0", "0", "NULL")},
		{"d > 161230", F("0", "1", "0", "NULL")},
		{"d = '2016-12-30 00:00:00 '", F("1", "0", "0", "NULL")},
		{"d = ' 2016-12-31'", F("0", "1", "0", "NULL")},
		{"d < '2016-02-31'", F("0", "0", "1", "NULL")},
		{"d > '2016-02-31'", F("1", "1", "0", "NULL")},
		{"d > '2016-12-00'", F("1", "1", "0", "NULL")},
		{"d < '2016-12-00'", F("0", "0", "1", "NULL")},
		{"d >= 20161231000000", F("0", "1", "0", "NULL")},
		{"d = 20161231", F("0", "1", "0", "NULL")},
		{"d = 20161231.5", F("0", "1", "0", "NULL")},
		{"d = 2.0161231e7", F("0", "1", "0", "NULL")},
		{"d > 1612310000", F("1", "1", "1", "NULL")},
		{"d > 'garbage'", F("1", "1", "1", "NULL")},
		{"d = ''", F("0", "0", "0", "NULL")},
		{"d > '2016-13-01'", F("1", "1", "1", "NULL")},
		{"d = '2016-12-31T00:00'", F("0", "1", "0", "NULL")},
		{"d = '2016/12/31 00.00.00'", F("0", "1", "0", "NULL")},
		{"d = '20161231'", F("0", "1", "0", "NULL")},
		{"d = '161231'", F("0", "1", "0", "NULL")},
		{"d = '16-12-31'", F("0", "1", "0", "NULL")},
		{"d = '2016-12-31 10'", F("0", "0", "0", "NULL")},
		{"d < '2016-12-31 10'", F("1", "1", "1", "NULL")},
		{"d = '2016-12-31 00:00:00.000001'", F("0", "0", "0", "NULL")},
		{"d < '2016-12-31 00:00:00.000001'", F("1", "1", "1", "NULL")},
		{"d = '2016--12--31'", F("0", "0", "0", "NULL")},
		{"d = '2016-12-31x10:00'", F("0", "1", "0", "NULL")},
		{"d = '2016-12-31-00:00'", F("0", "1", "0", "NULL")},
		{"d = '20161231T000000'", F("0", "1", "0", "NULL")},
		{"d = '161231000000'", F("0", "1", "0", "NULL")},
		{"d > '1612311015301'", F("0", "0", "0", "NULL")},
		{"d = '2016-12-31 24:00'", F("0", "0", "0", "NULL")},
		{"d <=> '2016-12-31 00:00'", F("0", "1", "0", "0")},
		{"d <=> 'x'", F("0", "0", "0", "0")},
		{"d <> '2016-12-31 00:00'", F("1", "0", "1", "NULL")},
		{"d in ('2016-12-31 00:00', 'x')", F("0", "1", "0", "NULL")},
		{"d not in ('2016-12-30 00:00', 161231)", F("0", "0", "1", "NULL")},
		{"d in ('x', null)", F("NULL", "NULL", "NULL", "NULL")},
		{"d between '2016-12-30 10:00' and '2016-12-31 0'", F("0", "1", "0", "NULL")},
		{"d not between 161230 and '2016-12-31 00:00'", F("0", "0", "1", "NULL")},
		{"if(d > '2016-12-30 10:00', 'y', 'n')", F("n", "y", "n", "n")},
		{"case when d >= '2016-12-30 10:00' then 1 else 0 end", F("0", "1", "0", "0")},
		{"'2016-12-30 10:00' < d", F("0", "1", "0", "NULL")},
		{"161230 < d", F("0", "1", "0", "NULL")},
		{"datediff('2016-12-31 23:00', d)", F("1", "0", "306", "NULL")},
		{"datediff(d, '2016-12-30x')", F("0", "1", "-305", "NULL")},
		{"datediff(d, '2016-02-31')", F("NULL", "NULL", "NULL", "NULL")},
		{"datediff(d, '2016-12-00')", F("NULL", "NULL", "NULL", "NULL")},
		{"datediff(d, 'garbage')", F("NULL", "NULL", "NULL", "NULL")},
		{"datediff(d, ' 2016-12-30 10')", F("0", "1", "-305", "NULL")},
		{"to_days('2016-12-30 10:00') - to_days(d)", F("0", "-1", "305", "NULL")},
		{"'2016-12-30 10:00' + interval 1 day", F("2016-12-31 10:00:00", "2016-12-31 10:00:00", "2016-12-31 10:00:00", "2016-12-31 10:00:00")},
		{"date_add('2016-12-30 10:00:00.5', interval 1 day)", F("2016-12-31 10:00:00.5", "2016-12-31 10:00:00.5", "2016-12-31 10:00:00.5", "2016-12-31 10:00:00.5")},
		{"date_sub('2016-12-30', interval 1 hour)", F("2016-12-29 23:00:00", "2016-12-29 23:00:00", "2016-12-29 23:00:00", "2016-12-29 23:00:00")},
		{"adddate('2016.12.30', interval 1 day)", F("2016-12-31", "2016-12-31", "2016-12-31", "2016-12-31")},
		{"'2016-02-31' + interval 1 day", F("NULL", "NULL", "NULL", "NULL")},
		{"'2016-12-30x' - interval 1 day", F("2016-12-29", "2016-12-29", "2016-12-29", "2016-12-29")},
		{"datediff(_utf8mb4'2016-12-31 23:00', d)", F("1", "0", "306", "NULL")},
		{"_utf8mb4'2016-12-30 10:00' + interval 1 day", F("2016-12-31 10:00:00", "2016-12-31 10:00:00", "2016-12-31 10:00:00", "2016-12-31 10:00:00")},
		{"datediff(20161231.5, d)", F("1", "0", "306", "NULL")},
		{"20161231000000 + interval 1 day", F("2017-01-01 00:00:00", "2017-01-01 00:00:00", "2017-01-01 00:00:00", "2017-01-01 00:00:00")},
		{"20161231101530.25 + interval 1 day", F("2017-01-01 10:15:30.25", "2017-01-01 10:15:30.25", "2017-01-01 10:15:30.25", "2017-01-01 10:15:30.25")},
		{"161231 + interval 1 day", F("2017-01-01", "2017-01-01", "2017-01-01", "2017-01-01")},
		{"datediff(161231, d)", F("1", "0", "306", "NULL")},
		{"date_add(20161231, interval 1 hour)", F("2016-12-31 01:00:00", "2016-12-31 01:00:00", "2016-12-31 01:00:00", "2016-12-31 01:00:00")},
	})
}

// TestTextAsDate: text values (a VARCHAR column) compared with a DATE or
// DATETIME, as MariaDB 10.11 compares them.
func TestTextAsDate(t *testing.T) {
	fields := []*querypb.Field{{Name: "n", Type: sqltypes.VarChar, Charset: 45}}
	layout := NewLayout([]string{"n"}, fields)
	values := strs("2016-12-30 10:00", "2016-12-30x", " 2016-12-31", "2016-02-31", "2016-12-00", "garbage", "161231", "2016-12-31 10", "NULL")
	F := func(s ...string) []string { return s }
	checkCases(t, layout, fields, values, []evalCase{
		{"date '2016-12-31' > n", F("1", "1", "0", "1", "1", "1", "0", "0", "NULL")},
		{"date '2016-12-31' = n", F("0", "0", "1", "0", "0", "0", "1", "0", "NULL")},
		{"n < date '2016-12-31'", F("1", "1", "0", "1", "1", "1", "0", "0", "NULL")},
		{"date '2016-12-31' in (n, '1999-01-01')", F("0", "0", "1", "0", "0", "0", "1", "0", "NULL")},
		{"timestamp '2016-12-30 10:00:00' = n", F("1", "0", "0", "0", "0", "0", "0", "0", "NULL")},
	})
}

// TestNumberAsDate: numbers met as dates; a fraction counts only in the
// forms with a time (MariaDB 10.11).
func TestNumberAsDate(t *testing.T) {
	fields := []*querypb.Field{{Name: "d", Type: sqltypes.Date, Charset: 63}}
	layout := NewLayout([]string{"d"}, fields)
	values := strs("2016-12-31", "NULL")
	F := func(s ...string) []string { return s }
	checkCases(t, layout, fields, values, []evalCase{
		{"d = 20161231.5", F("1", "NULL")},
		{"d = 2.01612315e7", F("1", "NULL")},
		{"d = 20161231000000.5", F("0", "NULL")},
		{"d = '2016-12-31 00:00:00.5'", F("0", "NULL")},
	})
}
