package replstream

import (
	"strconv"
	"testing"
	"time"

	"vitess.io/vitess/go/mysql/replication"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// TestTextValue: values as a SELECT shows them (BINARY padded to its
// length) or as MariaDB compares them (FLOAT exactly; ShowFloat rounds).
func TestTextValue(t *testing.T) {
	for _, c := range []struct {
		f       *querypb.Field
		in, out string
		show    string
	}{
		{f: &querypb.Field{Type: sqltypes.Binary, ColumnLength: 4, Charset: 63}, in: "ab", out: "ab\x00\x00"},
		{f: &querypb.Field{Type: sqltypes.Binary, ColumnLength: 4, Charset: 63}, in: "abcd", out: "abcd"},
		{f: &querypb.Field{Type: sqltypes.VarBinary, ColumnLength: 4, Charset: 63}, in: "ab", out: "ab"},
		{f: &querypb.Field{Type: sqltypes.Float32}, in: "1E-01", out: "0.10000000149011612", show: "0.1"},
		{f: &querypb.Field{Type: sqltypes.Float32}, in: "1.2345679E+08", out: "1.23456792e+08", show: "1.23457e+08"},
		{f: &querypb.Field{Type: sqltypes.Float64}, in: "1E+20", out: "1e+20", show: "1e+20"},
	} {
		got, err := textValue(c.f, sqltypes.MakeTrusted(sqltypes.VarBinary, []byte(c.in)), time.UTC)
		if err != nil || got.ToString() != c.out || got.Type() != c.f.Type {
			t.Errorf("%s %q: %v %q (%s), want %q", c.f.Type, c.in, err, got.ToString(), got.Type(), c.out)
		}
		if c.show != "" {
			if s := ShowFloat(got).ToString(); s != c.show {
				t.Errorf("ShowFloat(%q) = %q, want %q", got.ToString(), s, c.show)
			}
		}
	}
}

// TestXAVerbs: a prepared transaction's rows are never delivered; its
// XA COMMIT asks the consumer to read afresh when they changed a
// followed table (or the PREPARE was not seen), not otherwise.
func TestXAVerbs(t *testing.T) {
	d := &decoder{pos: replication.Position{}}
	begin := func(seq uint64, changes int) {
		d.gtid = replication.MariadbGTID{Domain: 0, Server: 1, Sequence: seq}
		d.cur, d.inTx = &Tx{GTID: d.gtid.String()}, true
		for range changes {
			d.cur.Changes = append(d.cur.Changes, Change{Kind: Insert})
		}
	}
	must := func(tx *Tx, done bool) *Tx {
		t.Helper()
		if !done || tx == nil {
			t.Fatalf("not handled: %v %v", tx, done)
		}
		return tx
	}
	// Prepared with changes, then committed: reread.
	begin(1, 2)
	if tx, done := d.xaVerb("XA END X'61',X'',1"); tx != nil || !done {
		t.Fatal("XA END delivered a transaction")
	}
	if tx := d.xaPrepared(); len(tx.Changes) != 0 || tx.Reread != "" {
		t.Fatalf("the PREPARE delivered %v", tx)
	}
	begin(2, 0)
	if tx := must(d.xaVerb("XA COMMIT X'61',X'',1")); tx.Reread == "" {
		t.Fatal("the XA COMMIT of a transaction that changed the table does not ask for a reread")
	}
	// Prepared without changes of a followed table: nothing to reread.
	begin(3, 0)
	d.xaVerb("XA END X'62',X'',1")
	d.xaPrepared()
	begin(4, 0)
	if tx := must(d.xaVerb("XA COMMIT X'62',X'',1")); tx.Reread != "" {
		t.Fatalf("reread for an XA transaction that changed no followed table: %s", tx.Reread)
	}
	// A PREPARE the stream did not see: reread.
	begin(5, 0)
	if tx := must(d.xaVerb("XA COMMIT X'63',X'',1")); tx.Reread == "" {
		t.Fatal("the XA COMMIT of an unseen PREPARE does not ask for a reread")
	}
	// Rolled back: nothing.
	begin(6, 0)
	if tx := must(d.xaVerb("XA ROLLBACK X'61',X'',1")); tx.Reread != "" || len(tx.Changes) != 0 {
		t.Fatalf("XA ROLLBACK delivered %v", tx)
	}
	// One phase: the rows are in the group.
	begin(7, 3)
	if tx := must(d.xaVerb("XA COMMIT X'64',X'',1 ONE PHASE")); tx.Reread != "" || len(tx.Changes) != 3 {
		t.Fatalf("XA COMMIT ONE PHASE delivered %v", tx)
	}
	if d.pos.String() != "0-1-7" {
		t.Fatalf("position %s after the XA transactions, want 0-1-7", d.pos)
	}
}

// TestLabelValue: an ENUM's index and a SET's bit mask as their labels.
func TestLabelValue(t *testing.T) {
	labels := []string{"a", "it's", ""}
	for _, c := range []struct {
		typ     querypb.Type
		in, out string
	}{
		{sqltypes.Enum, "0", ""}, {sqltypes.Enum, "1", "a"}, {sqltypes.Enum, "2", "it's"}, {sqltypes.Enum, "3", ""},
		{sqltypes.Set, "0", ""}, {sqltypes.Set, "3", "a,it's"}, {sqltypes.Set, "5", "a,"},
	} {
		got, err := labelValue(&querypb.Field{Type: c.typ}, sqltypes.NewUint64(mustUint(t, c.in)), labels)
		if err != nil || got.ToString() != c.out || got.Type() != c.typ {
			t.Errorf("%s %s: %q %v, want %q", c.typ, c.in, got.ToString(), err, c.out)
		}
	}
	for _, c := range []struct {
		typ querypb.Type
		in  string
	}{{sqltypes.Enum, "4"}, {sqltypes.Set, "8"}} {
		if _, err := labelValue(&querypb.Field{Type: c.typ}, sqltypes.NewUint64(mustUint(t, c.in)), labels); err == nil {
			t.Errorf("%s %s beyond the labels: no error", c.typ, c.in)
		}
	}
}

func mustUint(t *testing.T, s string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
