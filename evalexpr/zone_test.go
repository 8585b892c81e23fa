package evalexpr

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// TestTimeZone: zone-dependent calls evaluate in the replicas' time zone
// (SetTimeZone), not the coordinator process's: FROM_UNIXTIME(MIN(x))
// after the merge was 09:00 hours off under TZ=Asia/Tokyo against a UTC
// MariaDB. Constants are not folded in the process's zone either.
// UNIX_TIMESTAMP on MariaDB is NULL out of its range (TestUnixTimestamp).
func TestTimeZone(t *testing.T) {
	plus5 := time.FixedZone("+05:00", 5*3600)
	for _, c := range []struct {
		version, src, want string
	}{
		{"10.11.19-MariaDB", "FROM_UNIXTIME(`__a0`)", "1970-01-01 05:01:40"},
		{"10.11.19-MariaDB", "FROM_UNIXTIME(100)", "1970-01-01 05:01:40"},
		{"10.11.19-MariaDB", "DATE_FORMAT(FROM_UNIXTIME(`__a0` * 1000), '%Y-%m-%d %H')", "1970-01-02 08"},
		{"8.0.40", "UNIX_TIMESTAMP('1970-01-02 05:00:00')", "86400"},
		{"8.0.40", "UNIX_TIMESTAMP(FROM_UNIXTIME(`__a0`))", "100"},
		{"10.11.19-MariaDB", "UNIX_TIMESTAMP(FROM_UNIXTIME(`__a0`))", "100"},
	} {
		env, err := NewEnv(c.version)
		if err != nil {
			t.Fatal(err)
		}
		env.SetTimeZone(func() *time.Location { return plus5 })
		layout := NewLayout([]string{"__a0"}, nil)
		x, err := env.Compile(c.src, layout)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if why := x.Inexact(); why != "" || strings.HasPrefix(c.want, "inexact: ") {
			if !strings.HasPrefix(c.want, "inexact: ") || !strings.Contains(why, strings.TrimPrefix(c.want, "inexact: ")) {
				t.Errorf("%s: inexact %q, want %s", c.src, why, c.want)
			}
			continue
		}
		v, _, err := env.NewEvaluator().Eval(x, []sqltypes.Value{sqltypes.NewInt64(100)})
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if got := v.ToString(); got != c.want {
			t.Errorf("%s = %s, want %s", c.src, got, c.want)
		}
	}
}

// TestConvertTZ: CONVERT_TZ after the merge is evaluated only between
// offsets MariaDB takes; a named zone, SYSTEM or an offset past +13:00
// is refused (MariaDB: NULL without time zone tables, its own zone, NULL;
// the evaluator gave a value, NULL, a value).
func TestConvertTZ(t *testing.T) {
	env, err := NewEnv("10.11.19-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	layout := NewLayout([]string{"__a0"}, nil)
	for src, exact := range map[string]bool{
		"CONVERT_TZ(`__a0`, '+00:00', '-08:00')":                    true,
		"CONVERT_TZ(`__a0`, _UTF8MB4'+10:00', _UTF8MB4'-12:59')":    true,
		"CONVERT_TZ(`__a0`, '+00:00', '+14:00')":                    false,
		"CONVERT_TZ(`__a0`, 'UTC', 'America/Los_Angeles')":          false,
		"CONVERT_TZ(`__a0`, 'SYSTEM', '+00:00')":                    false,
		"CONVERT_TZ(`__a0`, `__a0`, '+00:00')":                      false,
		"DATE(CONVERT_TZ(`__a0`, '+1:00', '+00:00'))":               false,
		"DATE_FORMAT(CONVERT_TZ(`__a0`, '-03:30', '+13:00'), '%Y')": true,
	} {
		x, err := env.Compile(src, layout)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if got := x.Inexact() == ""; got != exact {
			t.Errorf("%s: exact %v (%q), want %v", src, got, x.Inexact(), exact)
		}
	}
}

// TestUnixTimestamp: UNIX_TIMESTAMP after the merge or over a pin, in
// the replicas' zone, as MariaDB 10.11 answers (SET time_zone = '+05:00'):
// NULL before the epoch, past 2038-01-19 03:14:07 UTC and for a zero
// date, 0 at the epoch itself.
func TestUnixTimestamp(t *testing.T) {
	env, err := NewEnv("10.11.19-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	env.SetTimeZone(func() *time.Location { return time.FixedZone("+05:00", 5*3600) })
	for _, c := range []struct {
		typ  querypb.Type
		v    string
		want string
	}{
		{sqltypes.Datetime, "1970-01-01 05:00:00", "0"},
		{sqltypes.Datetime, "1970-01-01 04:59:59", "NULL"},
		{sqltypes.Datetime, "1960-06-01 00:00:00", "NULL"},
		{sqltypes.Datetime, "1970-01-01 05:00:01", "1"},
		{sqltypes.Datetime, "2038-01-19 08:14:07", "2147483647"},
		{sqltypes.Datetime, "2038-01-19 08:14:08", "NULL"},
		{sqltypes.Datetime, "2100-01-01 00:00:00", "NULL"},
		{sqltypes.Datetime, "0000-00-00 00:00:00", "NULL"},
		{sqltypes.Datetime, "2016-12-30 10:00:00", "1483074000"},
		{sqltypes.Timestamp, "2016-12-30 10:00:00", "1483074000"},
		{sqltypes.Date, "1970-01-01", "NULL"},
		{sqltypes.Date, "1970-01-02", "68400"},
		{sqltypes.Date, "0000-00-00", "NULL"},
	} {
		layout := NewLayout([]string{"x"}, []*querypb.Field{{Name: "x", Type: c.typ, Charset: 63}})
		for _, src := range []string{"unix_timestamp(x)", "unix_timestamp(x) div 300 * 300"} {
			x, err := env.Compile(src, layout)
			if err != nil || x.Inexact() != "" {
				t.Fatalf("%s: %v %s", src, err, x.Inexact())
			}
			v, _, err := env.NewEvaluator().Eval(x, []sqltypes.Value{sqltypes.MakeTrusted(c.typ, []byte(c.v))})
			if err != nil {
				t.Fatalf("%s over %s: %v", src, c.v, err)
			}
			got := v.ToString()
			if v.IsNull() {
				got = "NULL"
			}
			want := c.want
			if n, err := strconv.Atoi(want); err == nil && src != "unix_timestamp(x)" {
				want = strconv.Itoa(n / 300 * 300)
			}
			if got != want {
				t.Errorf("%s over %s %s = %s, MariaDB %s", src, c.typ, c.v, got, want)
			}
		}
	}
}
