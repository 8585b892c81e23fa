package pinbench

import "testing"

func TestDuckType(t *testing.T) {
	for _, c := range []struct {
		dataType, colType string
		prec, scale       int
		want              string
	}{
		{"int", "int(11)", 10, 0, "INTEGER"},
		{"smallint", "smallint(6)", 5, 0, "SMALLINT"},
		{"tinyint", "tinyint(4)", 3, 0, "TINYINT"},
		{"int", "int(10) unsigned", 10, 0, "UINTEGER"},
		{"bigint", "bigint(20) UNSIGNED", 20, 0, "UBIGINT"},
		{"char", "char(2)", 0, 0, "VARCHAR"},
		{"varchar", "varchar(10)", 0, 0, "VARCHAR"},
		{"date", "date", 0, 0, "DATE"},
		{"decimal", "decimal(10,2)", 10, 2, "DECIMAL(10,2)"},
	} {
		got, err := duckType(c.dataType, c.colType, c.prec, c.scale)
		if err != nil || got != c.want {
			t.Errorf("duckType(%s) = %q, %v; want %q", c.colType, got, err, c.want)
		}
	}
	for _, bad := range [][2]string{{"geometry", "geometry"}, {"decimal", "decimal(65,2)"}} {
		if got, err := duckType(bad[0], bad[1], 65, 2); err == nil {
			t.Errorf("duckType(%s) = %q, want an error", bad[1], got)
		}
	}
}
