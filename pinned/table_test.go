package pinned

import (
	"slices"
	"testing"
	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/mysql/collations/colldata"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/shoaldb/shoal/pinned/pintest"
	"go.uber.org/goleak"
)

// vitess starts glog's flush daemon at init; everything else must end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreAnyFunction("github.com/golang/glog.(*fileSink).flushDaemon"),
		goleak.IgnoreAnyFunction("github.com/golang/glog.(*loggingT).flushDaemon"))
}

func TestBuildDictionaryAndBytes(t *testing.T) {
	tbl := testTable(t, 1000)
	if tbl.Rows != 1000 {
		t.Fatalf("rows %d", tbl.Rows)
	}
	c := tbl.Cols[1]
	if c.kind != KindDict || len(c.Dict) != 7 {
		t.Fatalf("Carrier: kind %d, %d dictionary values", c.kind, len(c.Dict))
	}
	if d := tbl.Cols[2]; d.kind != KindInt || !d.Nulls || d.Min != -20 || d.Max != 179 {
		t.Fatalf("Delay: kind %d nulls %v range %d..%d", d.kind, d.Nulls, d.Min, d.Max)
	}
	// Narrowed integers (id and delay Int16, dow Int8), an 8-byte ratio,
	// a 4-byte date, 2-byte dictionary codes, plus validity bitmaps: about
	// 20 bytes a row (Int64 integers and plain strings would be ~40).
	if d := tbl.Cols[3]; tbl.Schema.Field(3).Type.ID() != arrow.INT8 || d.kind != KindInt {
		t.Errorf("Dow stored as %s", tbl.Schema.Field(3).Type)
	}
	if per := tbl.Bytes / tbl.Rows; per < 19 || per > 23 {
		t.Errorf("%d bytes per row", per)
	}
}

// field is a column definition (pintest.Field).
var field = pintest.Field

// testTable is pintest.Flights as a pinned table: ids, a carrier
// (utf8mb4_general_ci, 'aa' and 'AA' are one group), a nullable delay, a
// day of week, a date and a double.
func testTable(t *testing.T, rows int) *Table {
	t.Helper()
	batches := pintest.Flights(t, memory.NewGoAllocator(), rows)
	defer pintest.Release(batches)
	tbl, err := Build("db", "flights", pintest.FlightsFields, batches)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// TestSetSplitOrdersBatches: batches that arrived out of key order (the
// fragments that loaded them finish in any order) are read in key order
// once the split column is known.
func TestSetSplitOrdersBatches(t *testing.T) {
	tbl := testTable(t, 1000)
	slices.Reverse(tbl.Batches)
	if !tbl.SetSplit("id") {
		t.Fatal("id is not a split column")
	}
	last := int64(-1)
	for _, b := range tbl.Batches {
		for r := 0; r < int(b.NumRows()); r++ {
			if v := intAt(b.Column(0), r); v <= last {
				t.Fatalf("key %d after %d", v, last)
			} else {
				last = v
			}
		}
	}
}

// TestOrderBatchesText: a text key orders the batches under its
// collation ('aa' and 'AA' tie, 'Ba ' and 'ba' tie, 'DL' before 'ua').
func TestOrderBatchesText(t *testing.T) {
	tbl := testTable(t, 700)
	slices.Reverse(tbl.Batches)
	tbl.OrderBatches("carrier")
	coll := colldata.Lookup(collations.ID(45))
	var last []byte
	for _, b := range tbl.Batches {
		v, _ := tbl.Cols[1].Value(b.Column(1), 0, nil)
		if last != nil && coll.Collate(last, v.Raw(), false) > 0 {
			t.Fatalf("%q after %q", v.Raw(), last)
		}
		last = v.Raw()
	}
}

// TestOrderBatchesComposite: a composite key orders the batches by each
// of its columns in turn: many batches begin with one tenant (here one
// day of week) and are ordered by the next column (id), where the first
// column alone left them in load order (the rows of a LIMIT without
// ORDER BY over a pin of PRIMARY KEY (tenant_id, id) were not the first
// in key order).
func TestOrderBatchesComposite(t *testing.T) {
	tbl := testTable(t, 3000)
	slices.Reverse(tbl.Batches)
	tbl.OrderBatches("dow", "id", "nosuch")
	lastDow, lastID := int64(-1), int64(-1)
	for _, b := range tbl.Batches {
		dow, id := intAt(b.Column(3), 0), intAt(b.Column(0), 0)
		if dow < lastDow || dow == lastDow && id < lastID {
			t.Fatalf("batch (%d, %d) after (%d, %d)", dow, id, lastDow, lastID)
		}
		lastDow, lastID = dow, id
	}
	if len(tbl.Batches) < 3 {
		t.Fatalf("%d batches", len(tbl.Batches))
	}
}
