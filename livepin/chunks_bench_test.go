package livepin

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/replstream"
)

// BenchmarkVersion is the cost of one version of a 100,000-row pin after
// a burst of changes shaped like `shoal bench live`'s (30% inserts at the
// top of the id window, 40% updates anywhere in it, 30% deletes at its
// bottom): 500 changes, 100 ms at 5,000 changes/s. chunk=all is one
// chunk, every version built from every row as before chunking.
func BenchmarkVersion(b *testing.B) {
	for _, chunk := range []int{64, 128, 256, 512, 1 << 30} {
		name := strconv.Itoa(chunk)
		if chunk == 1<<30 {
			name = "all"
		}
		b.Run("chunk="+name, func(b *testing.B) {
			fields := []*querypb.Field{
				{Name: "id", Type: sqltypes.Int64},
				{Name: "grp", Type: sqltypes.VarChar, Charset: 255},
				{Name: "kind", Type: sqltypes.Int64},
				{Name: "amount", Type: sqltypes.Decimal, ColumnLength: 12, Decimals: 2},
				{Name: "day", Type: sqltypes.Date},
				{Name: "note", Type: sqltypes.VarChar, Charset: 255},
			}
			tbl := &replstream.Table{DB: "d", Name: "t", Columns: fields}
			st := &state{index: map[string]int{}, chunk: chunk, fields: fields, table: tbl,
				keyIdx: []int{0}, projIdx: []int{0, 1, 2, 3, 4, 5}}
			row := func(id int64, v int) []sqltypes.Value {
				return []sqltypes.Value{sqltypes.NewInt64(id), sqltypes.NewVarChar(fmt.Sprintf("g%d", id%8)),
					sqltypes.NewInt64((id + int64(v)) % 10), sqltypes.MakeTrusted(sqltypes.Decimal, fmt.Appendf(nil, "%d.%02d", (id*7+int64(v)*13)%1000, id%100)),
					sqltypes.MakeTrusted(sqltypes.Date, fmt.Appendf(nil, "2024-%02d-%02d", 1+id%12, 1+id%28)),
					sqltypes.NewVarChar(fmt.Sprintf("n%d-%d", id%1000, v%50))}
			}
			low, next := int64(1), int64(1)
			for ; next <= 100_000; next++ {
				r := row(next, 0)
				st.put(keyOf(r[:1]), st.pinRow(r))
			}
			mem := memory.NewGoAllocator()
			st.changed, st.relaid = true, true
			d, _ := st.snapshot()
			ver, err := st.next(mem, Spec{DB: "d", Name: "p"}, d)
			if err != nil {
				b.Fatal(err)
			}
			r := rand.New(rand.NewPCG(1, 2))
			rebuilds := 0
			var cpu time.Duration // the process's, while versions build: its builders' and the collector's
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer()
				tx := replstream.Tx{Position: "0-1-" + strconv.Itoa(i)}
				for range 150 {
					tx.Changes = append(tx.Changes, replstream.Change{Table: tbl, Kind: replstream.Insert, After: row(next, i)})
					next++
				}
				for range 200 {
					id := low + r.Int64N(next-low)
					tx.Changes = append(tx.Changes, replstream.Change{Table: tbl, Kind: replstream.Update, Before: row(id, 0), After: row(id, i)})
				}
				for range 150 {
					tx.Changes = append(tx.Changes, replstream.Change{Table: tbl, Kind: replstream.Delete, Before: row(low, 0)})
					low++
				}
				if _, err := st.apply(&tx); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				cpu0 := cpuTime()
				d, _ := st.snapshot()
				ver, err = st.next(mem, Spec{DB: "d", Name: "p"}, d)
				var rebuild *pinned.RebuildError
				if errors.As(err, &rebuild) {
					// A dictionary reached its limit (the notes take
					// 50,000 values over time): the pin builds the next
					// version from scratch, as the publisher does.
					rebuilds++
					st.rebuildNext()
					d, _ = st.snapshot()
					ver, err = st.next(mem, Spec{DB: "d", Name: "p"}, d)
				}
				if err != nil {
					b.Fatal(err)
				}
				cpu += cpuTime() - cpu0
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(rebuilds), "rebuilds")
			b.ReportMetric(float64(ver.Bytes), "version-B")
		})
	}
}

// cpuTime is the CPU time (user and system) the process used so far: on
// a shared host a version's wall time is the machine's, its CPU time is
// its own (cpu-ns/op).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
