package pinexec

import (
	"errors"
	"strings"
	"testing"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/evalexpr"
)

// TestWarnRisk: a fragment whose implicit conversions MariaDB warns about
// (1292 for each value cut) is not run in memory, which counts no
// warnings; the same forms without a cut value are.
func TestWarnRisk(t *testing.T) {
	env, err := evalexpr.NewEnv("10.11.19-MariaDB")
	if err != nil {
		t.Fatal(err)
	}
	tbl := testTable(t, 50)
	count := []*querypb.Field{field("c", sqltypes.Int64, 63, 21)}
	for _, tc := range []struct {
		where string
		warns bool
	}{
		{"`Carrier`=0", true},
		{"`Carrier` IN (1, 2)", true},
		{"0<>`Carrier`", true},
		{"`Carrier` BETWEEN 1 AND 5", true},
		{"`Carrier`+1 > 2", true},
		{"-`Carrier` < 0", true},
		{"CAST(`Carrier` AS SIGNED) > 0", true},
		{"`Delay`=_UTF8MB4'5x'", true},
		{"`Delay`=_UTF8MB4''", true},
		{"`Delay`=_UTF8MB4'5 '", true},
		{"`Day`>_UTF8MB4'2005-13-01'", true},
		{"`Day`<_UTF8MB4'yesterday'", true},
		{"`Delay`+_UTF8MB4'1x' > 3", true},
		// No value is cut: in memory.
		{"`Carrier`=_UTF8MB4'UA'", false},
		{"`Carrier` LIKE _UTF8MB4'U%'", false},
		{"`Delay`=_UTF8MB4'5'", false},
		{"`Delay`=_UTF8MB4' -1.5e1'", false},
		{"`Delay` IN (1, 2)", false},
		{"`Day`>_UTF8MB4'2005-02-01'", false},
		{"`Day` BETWEEN _UTF8MB4'2005-02-01 00:00:00' AND _UTF8MB4'20050301'", false},
		{"`Day`>=_UTF8MB4'2005/2/1T10:00'", false},
		{"CAST(`Delay` AS SIGNED) > 0", false},
	} {
		t.Run(tc.where, func(t *testing.T) {
			_, err := Compile(env, tbl, "SELECT COUNT(1) FROM `db`.`flights` WHERE "+tc.where, count)
			refused := err != nil && errors.Is(err, ErrUnsupported) && strings.Contains(err.Error(), "warns about")
			if refused != tc.warns {
				t.Errorf("refused for warnings: %v, want %v (%v)", refused, tc.warns, err)
			}
			if err != nil && !refused {
				t.Errorf("refused otherwise: %v", err)
			}
		})
	}
	// SUM (and AVG, which fragments compute as SUM) of text.
	_, err = Compile(env, tbl, "SELECT SUM(`Carrier`) FROM `db`.`flights`", []*querypb.Field{field("s", sqltypes.Float64, 63, 23)})
	if err == nil || !strings.Contains(err.Error(), "warns about") {
		t.Errorf("SUM of text: %v", err)
	}
}
