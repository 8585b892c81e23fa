package aggloop

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// A case is one batch: n rows, validity at a bit offset (nil: no
// bitmap), a selection and the rows' groups.
type loopCase struct {
	name  string
	n     int
	valid Valid
	sel   []int32
	gs    Groups
}

// validAt is the reference reading of v.
func validAt(v Valid, r int32) bool {
	if v.Bits == nil {
		return true
	}
	j := int(r) + v.Off
	return v.Bits[j/8]&(1<<(j%8)) != 0
}

const groups = 5

// cases covers batch sizes around word edges, NULL densities (none
// without and with a bitmap, rare, half, all, whole words of NULLs),
// bit offsets (aligned and not), selections (every row, a run, a
// sparse subset) and groups (one, given or not 0, and per row).
func cases(rng *rand.Rand) []loopCase {
	var out []loopCase
	for _, n := range []int{0, 1, 7, 63, 64, 65, 127, 128, 130, 1000, 4103} {
		for _, density := range []string{"nobitmap", "allvalid", "rare", "half", "allnull", "nullwords"} {
			for _, off := range []int{0, 3, 8, 13} {
				var v Valid
				if density != "nobitmap" {
					// Exactly as long as the rows need: reads past it fail.
					v = Valid{Bits: make([]byte, (off+n+7)/8), Off: off}
					for r := range n {
						ok := true
						switch density {
						case "rare":
							ok = rng.IntN(50) != 0
						case "half":
							ok = rng.IntN(2) == 0
						case "allnull":
							ok = false
						case "nullwords":
							ok = (r/64)%3 != 1 && rng.IntN(40) != 0
						}
						if ok {
							j := off + r
							v.Bits[j/8] |= 1 << (j % 8)
						}
					}
				}
				sels := map[string][]int32{"all": identity(n)}
				if n > 2 {
					lo, hi := 1+rng.IntN(n/2), n-rng.IntN(n/2)
					sels["run"] = identity(n)[lo:hi]
					var sparse []int32
					for r := range n {
						if rng.IntN(3) != 0 {
							sparse = append(sparse, int32(r))
						}
					}
					sels["sparse"] = sparse
				}
				for sname, sel := range sels {
					gid := make([]int32, len(sel))
					for i := range gid {
						gid[i] = int32(rng.IntN(groups))
					}
					for gname, gs := range map[string]Groups{"one0": {}, "one3": {One: 3}, "gid": {Gid: gid}} {
						out = append(out, loopCase{
							name: fmt.Sprintf("n%d/%s/off%d/%s/%s", n, density, off, sname, gname),
							n:    n, valid: v, sel: sel, gs: gs,
						})
					}
				}
			}
		}
	}
	return out
}

func identity(n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(i)
	}
	return out
}

func groupOf(gs Groups, i int) int32 {
	if gs.Gid != nil {
		return gs.Gid[i]
	}
	return gs.One
}

// TestLoops checks every loop against a row-at-a-time reference, over
// accumulators that already hold values (as after earlier batches).
func TestLoops(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range cases(rng) {
		i8 := make([]int8, c.n)
		i16 := make([]int16, c.n)
		i64 := make([]int64, c.n)
		f64 := make([]float64, c.n)
		for r := range c.n {
			i8[r] = int8(rng.IntN(256) - 128)
			i16[r] = int16(rng.IntN(65536) - 32768)
			// Near the ends of int64: sums overflow and carry.
			i64[r] = math.MaxInt64 - int64(rng.IntN(1000))
			if rng.IntN(2) == 0 {
				i64[r] = math.MinInt64 + int64(rng.IntN(1000))
			}
			f64[r] = rng.NormFloat64() * 1e6
			if !validAt(c.valid, int32(r)) {
				// Whatever a NULL slot holds must not matter.
				i8[r], i16[r], i64[r], f64[r] = 99, 999, math.MaxInt64, math.NaN()
			}
		}
		checkInts(t, c, i8)
		checkInts(t, c, i16)
		checkInts(t, c, i64)
		checkFloats(t, c, f64)
		checkCount(t, c)
	}
}

// seed is accumulators as earlier batches left them: group 1 empty,
// the others holding a count and a value.
func seed() (cnt, acc []int64) {
	cnt, acc = make([]int64, groups), make([]int64, groups)
	for g := range groups {
		if g != 1 {
			cnt[g], acc[g] = int64(g+1), int64(g*10-15)
		}
	}
	return cnt, acc
}

func checkCount(t *testing.T, c loopCase) {
	cnt, _ := seed()
	want := append([]int64(nil), cnt...)
	for i, r := range c.sel {
		if validAt(c.valid, r) {
			want[groupOf(c.gs, i)]++
		}
	}
	Count(c.sel, c.gs, c.valid, cnt)
	if fmt.Sprint(cnt) != fmt.Sprint(want) {
		t.Errorf("%s: Count %v, want %v", c.name, cnt, want)
	}
}

func checkInts[T Int](t *testing.T, c loopCase, vals []T) {
	t.Helper()
	name := fmt.Sprintf("%s/%T", c.name, vals[:0])
	// SUM: exact, through carries.
	cnt, sum := seed()
	wantCnt := append([]int64(nil), cnt...)
	wantSum := make([]*big.Int, groups)
	for g := range groups {
		wantSum[g] = big.NewInt(sum[g])
	}
	for i, r := range c.sel {
		if validAt(c.valid, r) {
			g := groupOf(c.gs, i)
			wantCnt[g]++
			wantSum[g].Add(wantSum[g], big.NewInt(int64(vals[r])))
		}
	}
	carried := make([]*big.Int, groups)
	for g := range groups {
		carried[g] = new(big.Int)
	}
	Sum(vals, c.sel, c.gs, c.valid, cnt, sum, func(g int32, a int64) { carried[g].Add(carried[g], big.NewInt(a)) })
	for g := range groups {
		got := new(big.Int).Add(carried[g], big.NewInt(sum[g]))
		if got.Cmp(wantSum[g]) != 0 || cnt[g] != wantCnt[g] {
			t.Errorf("%s: Sum group %d: %v (count %d), want %v (count %d)", name, g, got, cnt[g], wantSum[g], wantCnt[g])
		}
	}
	// MIN and MAX.
	for _, isMin := range []bool{true, false} {
		cnt, mm := seed()
		wantCnt, wantMM := append([]int64(nil), cnt...), append([]int64(nil), mm...)
		for i, r := range c.sel {
			if !validAt(c.valid, r) {
				continue
			}
			g, x := groupOf(c.gs, i), int64(vals[r])
			if wantCnt[g] == 0 || (isMin && x < wantMM[g]) || (!isMin && x > wantMM[g]) {
				wantMM[g] = x
			}
			wantCnt[g]++
		}
		MinMax(vals, c.sel, c.gs, c.valid, cnt, mm, isMin)
		if fmt.Sprint(cnt, mm) != fmt.Sprint(wantCnt, wantMM) {
			t.Errorf("%s: MinMax(min %v) %v %v, want %v %v", name, isMin, cnt, mm, wantCnt, wantMM)
		}
	}
}

// checkFloats wants sums bit for bit: each group's values added one at
// a time in row order.
func checkFloats(t *testing.T, c loopCase, vals []float64) {
	t.Helper()
	seedF := func() ([]int64, []float64) {
		cnt, acc := seed()
		f := make([]float64, groups)
		for g := range f {
			f[g] = float64(acc[g]) + 0.1
		}
		return cnt, f
	}
	cnt, sum := seedF()
	wantCnt, wantSum := append([]int64(nil), cnt...), append([]float64(nil), sum...)
	for i, r := range c.sel {
		if validAt(c.valid, r) {
			g := groupOf(c.gs, i)
			wantCnt[g]++
			wantSum[g] += vals[r]
		}
	}
	SumFloat(vals, c.sel, c.gs, c.valid, cnt, sum)
	for g := range groups {
		if math.Float64bits(sum[g]) != math.Float64bits(wantSum[g]) || cnt[g] != wantCnt[g] {
			t.Errorf("%s: SumFloat group %d: %v (count %d), want %v (count %d)", c.name, g, sum[g], cnt[g], wantSum[g], wantCnt[g])
		}
	}
	for _, isMin := range []bool{true, false} {
		cnt, mm := seedF()
		wantCnt, wantMM := append([]int64(nil), cnt...), append([]float64(nil), mm...)
		for i, r := range c.sel {
			if !validAt(c.valid, r) {
				continue
			}
			g, x := groupOf(c.gs, i), vals[r]
			if wantCnt[g] == 0 || (isMin && x < wantMM[g]) || (!isMin && x > wantMM[g]) {
				wantMM[g] = x
			}
			wantCnt[g]++
		}
		MinMaxFloat(vals, c.sel, c.gs, c.valid, cnt, mm, isMin)
		if fmt.Sprint(cnt, mm) != fmt.Sprint(wantCnt, wantMM) {
			t.Errorf("%s: MinMaxFloat(min %v) %v %v, want %v %v", c.name, isMin, cnt, mm, wantCnt, wantMM)
		}
	}
}

// TestSumFloatNegativeZero: a NULL row adds nothing, not +0 (which
// would turn a sum of -0 into 0).
func TestSumFloatNegativeZero(t *testing.T) {
	vals := make([]float64, 200)
	v := Valid{Bits: make([]byte, 25)}
	for r := range vals {
		vals[r] = math.Copysign(0, -1)
		if r%5 != 0 {
			v.Bits[r/8] |= 1 << (r % 8)
		}
	}
	cnt, sum := []int64{0}, []float64{0}
	sum[0] = math.Copysign(0, -1)
	SumFloat(vals, identity(200), Groups{}, v, cnt, sum)
	if !math.Signbit(sum[0]) || cnt[0] != 160 {
		t.Errorf("sum %v (sign %v), count %d", sum[0], math.Signbit(sum[0]), cnt[0])
	}
}

// TestRuns checks Runs against the runs of a row-at-a-time scan, for
// keys that change together, apart, often and never, under whole and
// sparse selections.
func TestRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 5000
	for _, every := range []int{1, 3, 300, 700, n} {
		for _, nkeys := range []int{1, 2, 3} {
			keys := make([][]int32, nkeys)
			for j := range keys {
				keys[j] = make([]int32, n)
				for r := range n {
					keys[j][r] = int32(r / (every * (j + 1)))
					if every == 3 {
						keys[j][r] = int32(rng.IntN(4)) // apart, at random
					}
				}
			}
			sparse := []int32{}
			for r := range n {
				if rng.IntN(4) != 0 {
					sparse = append(sparse, int32(r))
				}
			}
			for _, sel := range [][]int32{identity(n), identity(n)[100:4000], sparse} {
				var want []int32
				for i := range sel {
					changed := i == 0
					for _, k := range keys {
						changed = changed || k[sel[i]] != k[sel[i-1]]
					}
					if changed {
						want = append(want, int32(i))
					}
				}
				long := len(want) <= max(len(sel)/64, 1)
				want = append(want, int32(len(sel)))
				got := Runs(keys, sel, 64, nil)
				switch {
				case !long && got != nil:
					t.Errorf("every %d, %d keys, %d rows: %d runs, want none (short)", every, nkeys, len(sel), len(got)-1)
				case long && fmt.Sprint(got) != fmt.Sprint(want):
					t.Errorf("every %d, %d keys, %d rows: runs %v, want %v", every, nkeys, len(sel), got, want)
				}
			}
		}
	}
}
