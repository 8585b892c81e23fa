package pushdown

import (
	"fmt"
	"strings"

	"github.com/shoaldb/shoal/planner"
)

// Split keys that are not integers.
//
// DATE and DATETIME columns are cut as integers: a DATE as days and a
// DATETIME as whole seconds since 1970-01-01 (DateKey), so Split, the key
// sampler and affinity serve them unchanged, and the bounds are rendered
// back as string literals ('2024-01-05', '2024-01-05 12:00:00'), which
// MariaDB compares with the column as dates and can use an index for. A
// DATETIME(6) value with a fraction of a second lies between two whole
// seconds, so it falls into exactly one half-open range.
//
// Any other primary key — a VARCHAR, or a composite key — is cut at keys
// read from the index itself (engine/catalog/sample.go): the boundaries are
// real keys in index order, so they are strictly increasing in the
// column's own collation whatever it is, which boundaries computed in Go
// (byte order) would not be. A composite key's ranges are row comparisons,
// `(a, b) >= (x, y)`, the order of the index, followed by the same bound
// spelled out column by column so that MariaDB reads the range from the
// index rather than scan (keyBound). Primary key columns are NOT NULL: the first and
// last ranges are open and no NULL range is needed.

// DateKey converts a DATE or DATETIME value as MariaDB returns it
// ("2024-01-05", "2024-01-05 12:30:00.250") to its integer key: days
// (SplitDate) or whole seconds, rounded down (SplitDatetime), since
// 1970-01-01. ok is false for text that is not a valid date (such as the
// zero date): its table is then cut as if it had no bounds.
func DateKey(kind planner.SplitKind, text string) (key int64, ok bool) {
	// YYYY-MM-DD[ hh:mm:ss[.ffffff]]
	if len(text) < 10 || text[4] != '-' || text[7] != '-' {
		return 0, false
	}
	y, ok1 := digits(text[0:4])
	mo, ok2 := digits(text[5:7])
	d, ok3 := digits(text[8:10])
	if !ok1 || !ok2 || !ok3 || y < 1 || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) {
		return 0, false
	}
	days := DaysFromCivil(y, mo, d)
	if kind == planner.SplitDate {
		return days, true
	}
	var h, mi, s int
	if len(text) > 10 {
		if len(text) < 19 || text[10] != ' ' || text[13] != ':' || text[16] != ':' {
			return 0, false
		}
		h, ok1 = digits(text[11:13])
		mi, ok2 = digits(text[14:16])
		s, ok3 = digits(text[17:19])
		if !ok1 || !ok2 || !ok3 || h > 23 || mi > 59 || s > 59 {
			return 0, false
		}
	}
	return days*86400 + int64(h*3600+mi*60+s), true
}

// digits reads a fixed-width unsigned decimal field.
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// DateLiteral renders key (DateKey's units for kind) as a quoted SQL
// literal.
func DateLiteral(kind planner.SplitKind, key int64) string {
	if kind == planner.SplitDate {
		y, m, d := civilFromDays(key)
		return fmt.Sprintf("'%04d-%02d-%02d'", y, m, d)
	}
	days, secs := key/86400, key%86400
	if secs < 0 {
		days, secs = days-1, secs+86400
	}
	y, m, d := civilFromDays(days)
	return fmt.Sprintf("'%04d-%02d-%02d %02d:%02d:%02d'", y, m, d, secs/3600, secs/60%60, secs%60)
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// DaysFromCivil returns days since 1970-01-01 of the proleptic Gregorian
// date y-m-d (Howard Hinnant's algorithm). The worker encodes DATE split keys
// with it, so fragments and their ranges agree on the encoding.
func DaysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// civilFromDays is the inverse of daysFromCivil.
func civilFromDays(z int64) (y, m, d int) {
	z += 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	m = int(mp + 3)
	if m > 12 {
		m -= 12
	}
	y = int(yoe + era*400)
	if m <= 2 {
		y++
	}
	return y, m, d
}

// SplitKeys cuts a key space at up to n-1 of the sampled keys, which must
// be strictly increasing in index order (each one SQL literal per key
// column): n ranges of about equal rows when the sample's keys are evenly
// spaced in rows. The first range is open below and the last open above,
// so keys added since the sample are still read exactly once. With no
// sample, or n < 2, it returns one range: the whole table.
func SplitKeys(sample [][]string, n int) []Range {
	if n < 2 || len(sample) == 0 {
		return []Range{{}}
	}
	n = min(n, len(sample)+1)
	out := make([]Range, 0, n)
	var prev []string
	for j := 1; j < n; j++ {
		// The j-th of n equal shares of the len(sample)+1 gaps.
		c := sample[j*(len(sample)+1)/n-1]
		out = append(out, Range{LoKey: prev, HiKey: c})
		prev = c
	}
	return append(out, Range{LoKey: prev})
}

// KeyPredicate renders r as a predicate on the key columns cols (quoted).
func KeyPredicate(cols []string, r Range) string {
	var parts []string
	if r.LoKey != nil {
		parts = append(parts, keyBound(cols, r.LoKey, ">="))
	}
	if r.HiKey != nil {
		parts = append(parts, keyBound(cols, r.HiKey, "<"))
	}
	if len(parts) == 0 {
		return "TRUE" // primary key columns are NOT NULL
	}
	return "(" + strings.Join(parts, " AND ") + ")"
}

// keyBound renders `cols op key` (op ">=" or "<"): a plain comparison for
// one column; for several, the row comparison and the same bound spelled
// out column by column, `(a, b) >= (x, y) AND (a > x OR a = x AND b >= y)`.
// They are equal for NOT NULL columns; the second is there for MariaDB's
// range optimizer, which reads exactly the range from the index for it but
// scans the whole table for a row comparison (measured: EXPLAIN type ALL;
// with the expanded form type range, 1,012 rows estimated for a range of
// 1,011 where repeating only the leading column's bound estimated 30,174).
func keyBound(cols, key []string, op string) string {
	if len(cols) == 1 {
		return cols[0] + " " + op + " " + key[0]
	}
	strict := ">"
	if op == "<" {
		strict = "<"
	}
	last := len(cols) - 1
	expanded := cols[last] + " " + op + " " + key[last]
	for i := last - 1; i >= 0; i-- {
		expanded = "(" + cols[i] + " " + strict + " " + key[i] + " OR " + cols[i] + " = " + key[i] + " AND " + expanded + ")"
	}
	return "(" + strings.Join(cols, ", ") + ") " + op + " (" + strings.Join(key, ", ") + ") AND " + expanded
}
