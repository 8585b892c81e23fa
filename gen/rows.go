package gen

import (
	"errors"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"time"
)

// Columns are the ontime columns the generator writes, in TSV order.
var Columns = []string{
	"id", "YearD", "Quarter", "MonthD", "DayofMonth", "DayOfWeek", "FlightDate",
	"UniqueCarrier", "Carrier", "TailNum", "FlightNum",
	"Origin", "OriginState", "Dest", "DestState",
	"DepDelayMinutes", "ArrDelayMinutes", "Cancelled", "Diverted", "Distance",
}

var (
	firstDay = time.Date(1988, 1, 1, 0, 0, 0, 0, time.UTC)
	lastDay  = time.Date(2016, 12, 31, 0, 0, 0, 0, time.UTC)
)

// MaxRows bounds Options.Rows: ids are INT and keep gaps.
const MaxRows = 1 << 30

// generator produces the ontime rows of one (rows, seed) pair as TSV in
// the LOAD DATA default format (tab separated, \N for NULL). All randomness
// comes from one PCG stream consumed in row order, so the output is a pure
// function of (rows, seed) however it is cut into chunks.
type generator struct {
	rng  *rand.Rand
	rows int64
	next int64 // index of the next row
	id   int64 // id of the previous row

	runLeft int // rows left in the current id run
	runStep int // max step inside the run (1: dense)

	days     [][]byte // per day: "YearD\tQuarter\tMonthD\tDayofMonth\tDayOfWeek\tFlightDate\t"
	carCum   []float64
	aptCum   []float64
	home     [][]int // per carrier: indexes of its home airports
	distance [][]int32
	tails    [][]byte // 26*26 two-letter tail suffixes
}

func newGenerator(rows int64, seed uint64) *generator {
	g := &generator{
		rng:  rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		rows: rows,
	}
	for d := firstDay; !d.After(lastDay); d = d.AddDate(0, 0, 1) {
		var b []byte
		b = strconv.AppendInt(b, int64(d.Year()), 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, int64(d.Month()-1)/3+1, 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, int64(d.Month()), 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, int64(d.Day()), 10)
		b = append(b, '\t')
		dow := int64(d.Weekday()) // BTS: 1 = Monday ... 7 = Sunday
		if dow == 0 {
			dow = 7
		}
		b = strconv.AppendInt(b, dow, 10)
		b = append(b, '\t')
		b = d.AppendFormat(b, "2006-01-02")
		b = append(b, '\t')
		g.days = append(g.days, b)
	}
	sum := 0.0
	for i, c := range carriers {
		w := c.weight
		if w == 0 {
			w = 1 / math.Pow(float64(i+1), 1.1)
			if c.Code == "NQ" {
				w = 0.002
			}
		}
		if w < 0 {
			w = 0
		}
		sum += w
		g.carCum = append(g.carCum, sum)
		var home []int
		for j, a := range airports {
			for _, s := range c.home {
				if a.State == s {
					home = append(home, j)
				}
			}
		}
		g.home = append(g.home, home)
	}
	sum = 0
	for i := range airports {
		sum += 1 / math.Pow(float64(i+1), 0.9)
		g.aptCum = append(g.aptCum, sum)
	}
	g.distance = make([][]int32, len(airports))
	for i := range airports {
		g.distance[i] = make([]int32, len(airports))
		for j := range airports {
			g.distance[i][j] = pairDistance(airports[i], airports[j])
		}
	}
	for a := byte('A'); a <= 'Z'; a++ {
		for b := byte('A'); b <= 'Z'; b++ {
			g.tails = append(g.tails, []byte{a, b})
		}
	}
	return g
}

// pairDistance is a stable, symmetric made-up distance in miles: short
// hops on the mainland, long legs to the islands and Alaska.
func pairDistance(a, b Airport) int32 {
	if a.Code > b.Code {
		a, b = b, a
	}
	h := fnv.New32a()
	h.Write([]byte(a.Code + b.Code))
	r := int32(h.Sum32() % 100000)
	region := func(s string) int {
		switch s {
		case "HI":
			return 1
		case "AK":
			return 2
		case "PR", "VI":
			return 3
		case "TT":
			return 4
		}
		return 0
	}
	ra, rb := region(a.State), region(b.State)
	switch {
	case ra == rb && ra != 0:
		return 40 + r%250
	case ra == 4 || rb == 4:
		return 3300 + r%4000
	case ra == 1 || rb == 1:
		return 2300 + r%2700
	case ra == 2 || rb == 2:
		return 1100 + r%2300
	case ra == 3 || rb == 3:
		return 950 + r%1800
	}
	return 67 + r%2600
}

func pick(cum []float64, u float64) int {
	i := sort.SearchFloat64s(cum, u*cum[len(cum)-1])
	if i >= len(cum) {
		i = len(cum) - 1
	}
	return i
}

// nextID advances the id with runs of consecutive ids, runs with small
// skips and, between runs, now and then a big hole.
func (g *generator) nextID() int64 {
	left := g.rows - g.next
	tight := g.id+left*64+300_000 >= math.MaxInt32
	if g.runLeft == 0 {
		g.runLeft = 1 + g.rng.IntN(2000)
		switch r := g.rng.IntN(100); {
		case r < 55:
			g.runStep = 1
		case r < 90:
			g.runStep = 6
		default:
			g.runStep = 50
		}
		if g.rng.IntN(8) == 0 && !tight {
			g.id += 1000 + g.rng.Int64N(50_000)
		}
	}
	g.runLeft--
	step := 1
	if g.runStep > 1 {
		step = 1 + g.rng.IntN(g.runStep)
	}
	if tight {
		step = 1
	}
	g.id += int64(step)
	return g.id
}

func (g *generator) delay() int64 {
	u := g.rng.Float64()
	switch {
	case u < 0.62:
		return 0
	case u < 0.95:
		return 1 + int64(g.rng.ExpFloat64()*18)
	case u < 0.9995:
		return min(1500, 1+int64(g.rng.ExpFloat64()*95))
	default:
		return 300 + g.rng.Int64N(1200)
	}
}

// appendRow appends the next row and its newline to b.
func (g *generator) appendRow(b []byte) []byte {
	rng := g.rng
	b = strconv.AppendInt(b, g.nextID(), 10)
	b = append(b, '\t')
	day := g.next * int64(len(g.days)) / g.rows
	b = append(b, g.days[day]...)
	g.next++

	ci := pick(g.carCum, rng.Float64())
	code := carriers[ci].Code
	b = append(b, code...)
	b = append(b, '\t')
	b = append(b, code...)
	b = append(b, '\t')
	if rng.IntN(100) == 0 {
		b = append(b, `\N`...)
	} else {
		// Each carrier flies its own fleet of 300 aircraft, as in the BTS
		// data (a few thousand tail numbers in all, each with one carrier).
		plane := ci*300 + rng.IntN(300)
		b = append(b, 'N')
		b = strconv.AppendInt(b, int64(100+plane%900), 10)
		b = append(b, g.tails[(plane/900)%len(g.tails)]...)
	}
	b = append(b, '\t')
	b = strconv.AppendInt(b, 1+rng.Int64N(1+rng.Int64N(7500)), 10)
	b = append(b, '\t')

	home := g.home[ci]
	airport := func() int {
		if len(home) > 0 && rng.IntN(10) < 6 {
			return home[rng.IntN(len(home))]
		}
		return pick(g.aptCum, rng.Float64())
	}
	o := airport()
	d := airport()
	for d == o {
		d = pick(g.aptCum, rng.Float64())
	}
	b = append(b, airports[o].Code...)
	b = append(b, '\t')
	b = append(b, airports[o].State...)
	b = append(b, '\t')
	b = append(b, airports[d].Code...)
	b = append(b, '\t')
	b = append(b, airports[d].State...)
	b = append(b, '\t')

	cancelled := rng.IntN(1000) < 17
	diverted := !cancelled && rng.IntN(1000) < 3
	dep := g.delay()
	switch {
	case cancelled && rng.IntN(10) != 0:
		b = append(b, `\N`...)
	default:
		b = strconv.AppendInt(b, dep, 10)
	}
	b = append(b, '\t')
	switch {
	case cancelled || diverted || rng.IntN(2000) == 0:
		b = append(b, `\N`...)
	default:
		arr := dep + int64(rng.IntN(31)) - 15
		if dep == 0 {
			arr = 0
			if rng.IntN(4) == 0 {
				arr = 1 + int64(rng.ExpFloat64()*12)
			}
		}
		b = strconv.AppendInt(b, max(0, min(1500, arr)), 10)
	}
	b = append(b, '\t')
	b = append(b, b2i(cancelled), '\t', b2i(diverted), '\t')
	b = strconv.AppendInt(b, int64(g.distance[o][d]), 10)
	b = append(b, '\n')
	return b
}

func b2i(v bool) byte {
	if v {
		return '1'
	}
	return '0'
}

// chunkReader streams the next n rows of g as TSV. It generates on demand,
// so a chunk of any size costs only a small buffer.
type chunkReader struct {
	g      *generator
	left   int64
	buf    []byte
	off    int
	onRows func(n int64) // called after rows are generated
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if r.off == len(r.buf) {
		if r.left == 0 {
			return 0, io.EOF
		}
		r.buf, r.off = r.buf[:0], 0
		n := int64(0)
		for r.left > 0 && len(r.buf) < 64<<10 {
			r.buf = r.g.appendRow(r.buf)
			r.left--
			n++
		}
		if r.onRows != nil {
			r.onRows(n)
		}
	}
	n := copy(p, r.buf[r.off:])
	r.off += n
	return n, nil
}

// WriteTSV writes the rows of (rows, seed) to w in the format Load sends
// to the server: the Columns in order, tab separated, \N for NULL.
func WriteTSV(w io.Writer, rows int64, seed uint64) error {
	if rows <= 0 || rows > MaxRows {
		return errors.New("gen: rows must be between 1 and 2^30")
	}
	_, err := io.Copy(w, &chunkReader{g: newGenerator(rows, seed), left: rows})
	return err
}
