package gen

import (
	"bytes"
	"crypto/sha256"
	"strconv"
	"strings"
	"testing"

	"github.com/shoaldb/shoal/deploy/schema"
)

func tsv(t *testing.T, rows int64, seed uint64) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteTSV(&b, rows, seed); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestDeterministic(t *testing.T) {
	a := sha256.Sum256(tsv(t, 1000, 42))
	b := sha256.Sum256(tsv(t, 1000, 42))
	if a != b {
		t.Fatal("same rows and seed gave different data")
	}
	c := sha256.Sum256(tsv(t, 1000, 43))
	if a == c {
		t.Fatal("different seeds gave the same data")
	}
	// Chunking must not change the stream.
	g := newGenerator(1000, 42)
	var chunked bytes.Buffer
	for _, n := range []int64{1, 333, 666} {
		if _, err := chunked.ReadFrom(&chunkReader{g: g, left: n}); err != nil {
			t.Fatal(err)
		}
	}
	if sha256.Sum256(chunked.Bytes()) != a {
		t.Fatal("chunked generation differs from one stream")
	}
}

func TestShape(t *testing.T) {
	const n = 20000
	lines := strings.Split(strings.TrimSuffix(string(tsv(t, n, 7)), "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("got %d lines, want %d", len(lines), n)
	}
	col := map[string]int{}
	for i, c := range Columns {
		col[c] = i
	}
	var (
		prevID, prevDate    = int64(0), ""
		gaps, bigGaps       int
		nulls               = map[string]int{}
		states              = map[string]int{}
		carrierCount        = map[string]int{}
		maxDelay, zeroDelay int64
	)
	for _, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) != len(Columns) {
			t.Fatalf("line has %d fields: %q", len(f), l)
		}
		id, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || id <= prevID {
			t.Fatalf("id %q not increasing after %d", f[0], prevID)
		}
		if id > prevID+1 {
			gaps++
		}
		if id > prevID+1000 {
			bigGaps++
		}
		prevID = id
		if d := f[col["FlightDate"]]; d < prevDate {
			t.Fatalf("FlightDate %s before %s", d, prevDate)
		} else {
			prevDate = d
		}
		for _, c := range []string{"TailNum", "DepDelayMinutes", "ArrDelayMinutes"} {
			if f[col[c]] == `\N` {
				nulls[c]++
			}
		}
		states[f[col["OriginState"]]]++
		states[f[col["DestState"]]]++
		carrierCount[f[col["Carrier"]]]++
		if f[col["Origin"]] == f[col["Dest"]] {
			t.Fatalf("origin equals dest: %q", l)
		}
		if v := f[col["ArrDelayMinutes"]]; v != `\N` {
			d, _ := strconv.ParseInt(v, 10, 64)
			maxDelay = max(maxDelay, d)
			if d == 0 {
				zeroDelay++
			}
		}
		if dow, _ := strconv.Atoi(f[col["DayOfWeek"]]); dow < 1 || dow > 7 {
			t.Fatalf("DayOfWeek %d", dow)
		}
	}
	if gaps < n/10 || bigGaps == 0 {
		t.Errorf("ids have %d gaps, %d big ones; want many and some", gaps, bigGaps)
	}
	for _, c := range []string{"TailNum", "DepDelayMinutes", "ArrDelayMinutes"} {
		if nulls[c] == 0 {
			t.Errorf("no NULL %s", c)
		}
	}
	if p := float64(nulls["ArrDelayMinutes"]) / n; p < 0.01 || p > 0.04 {
		t.Errorf("ArrDelayMinutes NULL share %.3f, want about 2%%", p)
	}
	for _, s := range []string{"AK", "HI", "PR", "VI"} {
		if states[s] == 0 {
			t.Errorf("no flight touches %s", s)
		}
	}
	if carrierCount["WN"] < 4*carrierCount["TW"] {
		t.Errorf("carriers not skewed: WN %d, TW %d", carrierCount["WN"], carrierCount["TW"])
	}
	if carrierCount["ZZ"] != 0 {
		t.Errorf("ZZ should never fly")
	}
	if zeroDelay < n/2 || maxDelay < 300 {
		t.Errorf("delays: %d zero, max %d; want mostly zero with a long tail", zeroDelay, maxDelay)
	}
}

func TestSchemaStatements(t *testing.T) {
	stmts := Schema()
	if len(stmts) != len(schema.Tables) {
		t.Fatalf("got %d statements, want %d", len(stmts), len(schema.Tables))
	}
	for i, s := range stmts {
		if !strings.HasPrefix(s, "CREATE TABLE "+schema.Tables[i]+" (") || strings.Contains(s, ";") {
			t.Errorf("statement %d: %q", i, s)
		}
	}
	for _, c := range Columns {
		if !strings.Contains(stmts[2], "\n  "+c+" ") {
			t.Errorf("column %s missing from the DDL", c)
		}
	}
}

func TestDims(t *testing.T) {
	used := map[string]bool{}
	for _, a := range Airports() {
		if len(a.Code) != 3 || len(a.State) != 2 || used[a.Code] {
			t.Errorf("bad or duplicate airport %+v", a)
		}
		used[a.Code] = true
	}
	nonASCII := false
	for _, c := range Carriers() {
		for _, r := range c.Name {
			if r > 127 {
				nonASCII = true
			}
		}
	}
	if !nonASCII || len(used) < 100 {
		t.Errorf("want a non-ASCII carrier name and 100 airports, got %v and %d", nonASCII, len(used))
	}
}

func BenchmarkGenerate(b *testing.B) {
	g := newGenerator(MaxRows, 1)
	var buf []byte
	for b.Loop() {
		buf = g.appendRow(buf[:0])
	}
	b.SetBytes(int64(len(buf)))
}
