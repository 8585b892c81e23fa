package catalog

import (
	"testing"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/planner"
)

// TestPartitionRanges checks every key of every partition is in exactly
// one range of its own partition, that partitions get fragments by their
// rows, and that a table without a key gets one range per partition.
func TestPartitionRanges(t *testing.T) {
	tbl := &planner.Table{Partitions: []planner.Partition{
		{Name: "p0", Rows: 15000, Min: 1, Max: 14999},
		{Name: "p1", Rows: 45000, Min: 15000, Max: 59999},
		{Name: "empty", Rows: 0, Min: 0, Max: -1},
	}}
	rs := PartitionRanges(tbl, planner.SplitInt, nil, 16, false)
	per := map[string]int{}
	for _, r := range rs {
		per[r.Partition]++
	}
	if per["p0"] < 3 || per["p1"] < 3*per["p0"]-2 || per["empty"] != 1 || len(per) != 3 {
		t.Errorf("ranges per partition %v: want about 4, 12 and 1", per)
	}
	for _, p := range tbl.Partitions {
		for _, k := range []int64{p.Min - 1, p.Min, p.Min + 1, (p.Min + p.Max) / 2, p.Max, p.Max + 1, -1 << 40, 1 << 40} {
			hits := 0
			for _, r := range rs {
				if r.Partition == p.Name && (r.Lo == nil || k >= *r.Lo) && (r.Hi == nil || k < *r.Hi) {
					hits++
				}
			}
			if hits != 1 {
				t.Errorf("partition %s key %d in %d of its ranges", p.Name, k, hits)
			}
		}
	}
	none := PartitionRanges(tbl, planner.SplitNone, nil, 16, false)
	if len(none) != 3 || none[0].Partition != "p0" || none[2].Partition != "empty" || none[1].Lo != nil {
		t.Errorf("no key: %v, want one whole range per partition", none)
	}
	keys := PartitionRanges(tbl, planner.SplitKey, [][]string{{"'a'"}, {"'m'"}, {"'t'"}}, 8, false)
	if len(keys) < 4 || keys[0].LoKey != nil || keys[0].Partition != "p0" {
		t.Errorf("sampled key: %v", keys)
	}
}

// TestRowCount reads information_schema estimates of the types MariaDB
// returns them in: IFNULL of BIGINT UNSIGNED is a DECIMAL, which
// sqltypes' ToInt64 refuses (every estimate read as 0).
func TestRowCount(t *testing.T) {
	cases := []struct {
		v    sqltypes.Value
		want int64
	}{
		{sqltypes.MakeTrusted(sqltypes.Decimal, []byte("60738")), 60738},
		{sqltypes.MakeTrusted(sqltypes.Uint64, []byte("18446744073709551615")), 1 << 62},
		{sqltypes.NewInt64(42), 42},
		{sqltypes.NULL, 0},
		{sqltypes.MakeTrusted(sqltypes.Decimal, []byte("-3")), 0},
	}
	for _, c := range cases {
		if got := rowCount(c.v); got != c.want {
			t.Errorf("rowCount(%v) = %d, want %d", c.v, got, c.want)
		}
	}
}

// TestKeyLiterals renders sampled keys as literals MariaDB compares in
// index order: strings quoted and escaped, binary strings in hex, numbers
// bare.
func TestKeyLiterals(t *testing.T) {
	r := &sqltypes.Result{
		Fields: []*querypb.Field{{Name: "a", Type: sqltypes.VarChar, Charset: 45}, {Name: "b", Type: sqltypes.VarBinary, Charset: 63},
			{Name: "c", Type: sqltypes.Int32, Charset: 63}, {Name: "d", Type: sqltypes.Date, Charset: 63}, {Name: "e", Type: sqltypes.Decimal, Charset: 63}},
		Rows: [][]sqltypes.Value{{sqltypes.NewVarChar("it's\\"), sqltypes.MakeTrusted(sqltypes.VarBinary, []byte{0, 0xff}),
			sqltypes.NewInt32(-7), sqltypes.MakeTrusted(sqltypes.Date, []byte("2024-01-05")), sqltypes.MakeTrusted(sqltypes.Decimal, []byte("1.50"))}},
	}
	got, err := keyLiterals(r, 5)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`'it\'s\\'`, "X'00ff'", "-7", "'2024-01-05'", "1.50"}
	for i := range want {
		if got[0][i] != want[i] {
			t.Errorf("column %d: %s, want %s", i, got[0][i], want[i])
		}
	}
	if _, err := keyLiterals(r, 2); err == nil {
		t.Error("a sample with more columns than the key was accepted")
	}
}
