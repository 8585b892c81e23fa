package arrowexec

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/mysql/collations"

	"github.com/shoaldb/shoal/sqlerr"
)

// TestPartialConcat merges partial GROUP_CONCAT / JSON aggregate strings of
// key 1 (three fragments), key 2 (all NULL) and key 3 (one fragment).
func TestPartialConcat(t *testing.T) {
	cases := []struct {
		name  string
		spec  AggSpec
		parts []string // key 1's partials then key 3's
		want  map[string]string
		errno int
	}{
		{"joined in byte order", AggSpec{Kind: AggConcatPartial, Collation: 45, Sep: ","},
			[]string{"c,d", "a", "b,b", "x"}, map[string]string{"1": "a,b,b,c,d", "2": "NULL", "3": "x"}, 0},
		{"empty separator", AggSpec{Kind: AggConcatPartial, Collation: 45, Sep: ""},
			[]string{"cd", "a", "bb", "x"}, map[string]string{"1": "abbcd", "2": "NULL", "3": "x"}, 0},
		{"cut at max length", AggSpec{Kind: AggConcatPartial, Collation: 45, Sep: "|", MaxLen: 4},
			[]string{"ccc", "aa", "b", "xyzzy"}, map[string]string{"1": "aa|b", "2": "NULL", "3": "xyzz"}, 0},
		// "é" is two bytes in UTF-8: a cut inside it drops it whole.
		{"cut at a character boundary", AggSpec{Kind: AggConcatPartial, Collation: 45, Sep: ",", MaxLen: 3},
			[]string{"aé", "b", "c", "x€"}, map[string]string{"1": "aé", "2": "NULL", "3": "x"}, 0},
		{"binary cut at the byte", AggSpec{Kind: AggConcatPartial, Sep: ",", MaxLen: 2},
			[]string{"aé", "b", "c", "€x"}, map[string]string{"1": "a\xc3", "2": "NULL", "3": "\xe2\x82"}, 0},
		{"json array", AggSpec{Kind: AggJSONArray, Collation: 45, MaxLen: 100},
			[]string{`[3,null]`, `["a","b"]`, `[1]`, `[{"k":1}]`}, map[string]string{"1": `["a","b",1,3,null]`, "2": "NULL", "3": `[{"k":1}]`}, 0},
		{"json object", AggSpec{Kind: AggJSONObject, Collation: 45, MaxLen: 5},
			[]string{`{"b":2}`, `{"a":1, "c":null}`, `{"z":[]}`, `{"x":1}`}, map[string]string{"1": `{"a":1, "c":null, "b":2, "z":[]}`, "2": "NULL", "3": `{"x":1}`}, 0},
		{"json array over max length", AggSpec{Kind: AggJSONArray, Collation: 45, MaxLen: 8},
			[]string{`[1,2,3]`, `[4]`, `[5]`, `[6]`}, nil, sqlerr.ErrNotSupported},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			rec := partialBatch(mem, c.parts)
			defer rec.Release()
			h := NewHashAgg(mem, collations.MySQL8(), []KeySpec{{}}, []AggSpec{c.spec}, 1<<20)
			defer h.Release()
			if err := h.Add(rec); err != nil {
				t.Fatal(err)
			}
			if h.HasUnknown() != (c.errno != 0) {
				t.Errorf("HasUnknown %v", h.HasUnknown())
			}
			rows, err := h.Rows()
			if c.errno != 0 {
				if se, ok := sqlerr.As(err); !ok || int(se.Number()) != c.errno {
					t.Fatalf("got error %v, want errno %d", err, c.errno)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != len(c.want) {
				t.Fatalf("%d groups, want %d", len(rows), len(c.want))
			}
			for _, r := range rows {
				got := r[1].ToString()
				if r[1].IsNull() {
					got = "NULL"
				}
				if w := c.want[r[0].ToString()]; got != w {
					t.Errorf("key %s: got %q want %q", r[0].ToString(), got, w)
				}
			}
		})
	}
}

// TestPartialConcatUnknown: a JSON array over group_concat_max_len makes its
// group's value unknown, not the whole merge: the other groups stay whole
// and exact, and the unknown one is a NULL placeholder that names its
// column and the 1235 a reader of it must get.
func TestPartialConcatUnknown(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := partialBatch(mem, []string{`[1,2,3]`, `[4]`, `[5]`, `[6]`})
	defer rec.Release()
	h := NewHashAgg(mem, collations.MySQL8(), []KeySpec{{}}, []AggSpec{{Kind: AggJSONArray, Collation: 45, MaxLen: 8}}, 1<<20)
	defer h.Release()
	if err := h.Add(rec); err != nil {
		t.Fatal(err)
	}
	if !h.HasUnknown() {
		t.Fatal("HasUnknown is false with key 1's array over max length")
	}
	// More input for the unknown group is dropped, not accumulated.
	rec2 := partialBatch(mem, []string{`[7]`, `[8]`, `[9]`, `[10]`})
	defer rec2.Release()
	if err := h.Add(rec2); err != nil {
		t.Fatal(err)
	}
	rows, err := h.RowsWithUnknown()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for g, r := range rows {
		cols, err := h.Unknown(g)
		v := r[1].ToString()
		if r[1].IsNull() {
			v = "NULL"
		}
		if err != nil {
			se, ok := sqlerr.As(err)
			if !ok || se.Number() != sqlerr.ErrNotSupported || len(cols) != 1 || cols[0] != 1 || !r[1].IsNull() {
				t.Fatalf("key %s: unknown %v %v, value %s", r[0].ToString(), cols, err, v)
			}
			v = "unknown"
		}
		got[r[0].ToString()] = v
	}
	want := map[string]string{"1": "unknown", "2": "NULL", "3": "[10,6]"}
	if len(got) != len(want) {
		t.Fatalf("got %v want %v", got, want)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("key %s: got %s want %s (all %v)", k, got[k], w, got)
		}
	}
}

// partialBatch builds (key, partial) rows: parts[:3] for key 1, two NULL
// partials for key 2, parts[3] for key 3. Binary specs read strings too.
func partialBatch(mem memory.Allocator, parts []string) arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "p", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 1, 2, 1, 3}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{parts[0], "", parts[1], "", parts[2], parts[3]},
		[]bool{true, false, true, false, true, true})
	return b.NewRecordBatch()
}

func TestCutConcat(t *testing.T) {
	cases := []struct {
		in   string
		max  int
		utf8 bool
		want string
	}{
		{"abc", 0, true, "abc"},
		{"abc", 3, true, "abc"},
		{"abc", 2, true, "ab"},
		{"a€", 3, true, "a"},
		{"a€", 4, true, "a€"},
		{"a😀", 4, true, "a"},
		{"a😀", 4, false, "a\xf0\x9f\x98"},
	}
	for _, c := range cases {
		if got := string(cutConcat([]byte(c.in), c.max, c.utf8)); got != c.want {
			t.Errorf("cutConcat(%q, %d, %v) = %q, want %q", c.in, c.max, c.utf8, got, c.want)
		}
	}
}
