package arrowexec

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"

	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/mysql/decimal"
	"vitess.io/vitess/go/sqltypes"
)

// Ordering is one ORDER BY item over a row of values.
type Ordering struct {
	Col  int
	Desc bool
	// Collation for string values; 0 compares bytes.
	Collation collations.ID
}

// rowComparer compares rows under a list of orderings.
type rowComparer struct {
	order []Ordering
	colls []collator
	err   error // first comparison error; sticky
}

func newRowComparer(order []Ordering, env *collations.Environment) (*rowComparer, error) {
	rc := &rowComparer{order: order, colls: make([]collator, len(order))}
	for i, o := range order {
		c, err := newCollator(env, o.Collation)
		if err != nil {
			return nil, err
		}
		rc.colls[i] = c
	}
	return rc, nil
}

func (rc *rowComparer) compare(a, b []sqltypes.Value) int {
	for i, o := range rc.order {
		c, err := compareValues(a[o.Col], b[o.Col], &rc.colls[i])
		if err != nil && rc.err == nil {
			rc.err = err
		}
		if c != 0 {
			if o.Desc {
				return -c
			}
			return c
		}
	}
	return 0
}

// SortRows sorts rows in place, stably, as MySQL's ORDER BY does: NULL
// before every value ascending and after every value descending, numbers by
// value across integer, DECIMAL and DOUBLE values, strings under the
// ordering's collation (PAD SPACE aware), binary strings bytewise, dates and
// datetimes chronologically, TIME by value.
func SortRows(rows [][]sqltypes.Value, order []Ordering, env *collations.Environment) error {
	rc, err := newRowComparer(order, env)
	if err != nil {
		return err
	}
	slices.SortStableFunc(rows, rc.compare)
	return rc.err
}

// compareValues orders two values, NULL first.
func compareValues(a, b sqltypes.Value, coll *collator) (int, error) {
	an, bn := a.IsNull(), b.IsNull()
	switch {
	case an && bn:
		return 0, nil
	case an:
		return -1, nil
	case bn:
		return 1, nil
	}
	at, bt := a.Type(), b.Type()
	switch {
	case sqltypes.IsNumber(at) && sqltypes.IsNumber(bt):
		return compareNumbers(a, b)
	case at == sqltypes.Time && bt == sqltypes.Time:
		x, ok1 := parseTime(a.Raw())
		y, ok2 := parseTime(b.Raw())
		if !ok1 || !ok2 {
			return 0, fmt.Errorf("arrowexec: cannot compare TIME values %q and %q", a.Raw(), b.Raw())
		}
		return cmp.Compare(x, y), nil
	case sqltypes.IsText(at) && sqltypes.IsText(bt):
		return coll.compare(a.Raw(), b.Raw()), nil
	case sqltypes.IsBinary(at) && sqltypes.IsBinary(bt) && coll.coll != nil:
		// Text vitess types VARBINARY (a utf8mb4_bin or latin1_bin
		// column) under its collation: PAD SPACE, 'a' = 'a '. Binary
		// strings have no collation and compare bytes below.
		return coll.compare(a.Raw(), b.Raw()), nil
	}
	// Binary strings, and DATE/DATETIME/TIMESTAMP whose fixed layout
	// orders chronologically as bytes.
	return bytes.Compare(a.Raw(), b.Raw()), nil
}

// compareNumbers compares numbers by value. As in MySQL, a DOUBLE on either
// side makes it a floating-point comparison; otherwise it is exact.
func compareNumbers(a, b sqltypes.Value) (int, error) {
	at, bt := a.Type(), b.Type()
	switch {
	case sqltypes.IsFloat(at) || sqltypes.IsFloat(bt):
		x, err1 := a.ToFloat64()
		y, err2 := b.ToFloat64()
		if err1 != nil || err2 != nil {
			break
		}
		return cmp.Compare(x, y), nil
	case sqltypes.IsSigned(at) && sqltypes.IsSigned(bt):
		x, err1 := a.ToInt64()
		y, err2 := b.ToInt64()
		if err1 != nil || err2 != nil {
			break
		}
		return cmp.Compare(x, y), nil
	case sqltypes.IsUnsigned(at) && sqltypes.IsUnsigned(bt):
		x, err1 := a.ToUint64()
		y, err2 := b.ToUint64()
		if err1 != nil || err2 != nil {
			break
		}
		return cmp.Compare(x, y), nil
	default:
		x, err1 := decimal.NewFromMySQL(a.Raw())
		y, err2 := decimal.NewFromMySQL(b.Raw())
		if err1 != nil || err2 != nil {
			break
		}
		return x.Cmp(y), nil
	}
	return 0, fmt.Errorf("arrowexec: cannot compare %s %q with %s %q", at, a.Raw(), bt, b.Raw())
}

// parseTime reads a MySQL TIME text ([-]H+:MM:SS[.ffffff]) as microseconds.
func parseTime(b []byte) (int64, bool) {
	negative := len(b) > 0 && b[0] == '-'
	if negative {
		b = b[1:]
	}
	var parts [3]int64
	p := 0
	i := 0
	digits := 0
	for ; i < len(b) && b[i] != '.'; i++ {
		switch c := b[i]; {
		case c == ':' && p < 2 && digits > 0:
			p++
			digits = 0
		case c >= '0' && c <= '9':
			parts[p] = parts[p]*10 + int64(c-'0')
			digits++
		default:
			return 0, false
		}
	}
	if p != 2 || digits == 0 {
		return 0, false
	}
	us := ((parts[0]*60+parts[1])*60 + parts[2]) * 1e6
	if i < len(b) {
		frac, scale := int64(0), int64(1e5)
		for _, c := range b[i+1:] {
			if c < '0' || c > '9' {
				return 0, false
			}
			frac += int64(c-'0') * scale
			scale /= 10
		}
		us += frac
	}
	if negative {
		us = -us
	}
	return us, true
}

// TopN keeps the first n rows of an ordering over a stream of rows, in
// O(n) memory: a heap whose root is the worst row kept. Ties keep arrival
// order, so Rows equals a stable sort of everything pushed, cut to n.
// Pushed rows are retained, not copied. One goroutine drives a TopN.
type TopN struct {
	rc    *rowComparer
	limit int
	heap  []topEntry
	seq   uint64
	err   error
}

type topEntry struct {
	row []sqltypes.Value
	seq uint64
}

// NewTopN keeps the first n rows under order; for LIMIT o, c pass n = o+c.
func NewTopN(order []Ordering, env *collations.Environment, n int) *TopN {
	rc, err := newRowComparer(order, env)
	return &TopN{rc: rc, limit: max(n, 0), err: err}
}

// before reports whether entry x sorts before entry y.
func (t *TopN) before(x, y topEntry) bool {
	c := t.rc.compare(x.row, y.row)
	return c < 0 || (c == 0 && x.seq < y.seq)
}

// Push offers a row.
func (t *TopN) Push(row []sqltypes.Value) {
	if t.err != nil || t.limit == 0 {
		return
	}
	e := topEntry{row: row, seq: t.seq}
	t.seq++
	if len(t.heap) < t.limit {
		t.heap = append(t.heap, e)
		t.up(len(t.heap) - 1)
		return
	}
	if t.before(e, t.heap[0]) {
		t.heap[0] = e
		t.down(0)
	}
}

// Admits reports whether Push(row) would keep row: fewer than n rows are
// kept, or row sorts before the last-sorting one kept (a tie does not:
// it arrived later). A caller that must copy a row to push it asks first.
func (t *TopN) Admits(row []sqltypes.Value) bool {
	if t.err != nil || t.limit == 0 {
		return false
	}
	return len(t.heap) < t.limit || t.rc.compare(row, t.heap[0].row) < 0
}

// Worst returns the last-sorting row kept once n rows are kept (the
// bound a new row must beat), else nil.
func (t *TopN) Worst() []sqltypes.Value {
	if t.limit == 0 || len(t.heap) < t.limit {
		return nil
	}
	return t.heap[0].row
}

// up and down keep the heap ordered with the last-sorting entry at the root.
func (t *TopN) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !t.before(t.heap[p], t.heap[i]) {
			return
		}
		t.heap[p], t.heap[i] = t.heap[i], t.heap[p]
		i = p
	}
}

func (t *TopN) down(i int) {
	n := len(t.heap)
	for {
		worst, l, r := i, 2*i+1, 2*i+2
		if l < n && t.before(t.heap[worst], t.heap[l]) {
			worst = l
		}
		if r < n && t.before(t.heap[worst], t.heap[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		t.heap[i], t.heap[worst] = t.heap[worst], t.heap[i]
		i = worst
	}
}

// Rows returns the kept rows in order. The TopN stays usable.
func (t *TopN) Rows() ([][]sqltypes.Value, error) {
	if t.err != nil {
		return nil, t.err
	}
	entries := slices.Clone(t.heap)
	slices.SortFunc(entries, func(x, y topEntry) int {
		if c := t.rc.compare(x.row, y.row); c != 0 {
			return c
		}
		return cmp.Compare(x.seq, y.seq)
	})
	if t.rc.err != nil {
		return nil, t.rc.err
	}
	rows := make([][]sqltypes.Value, len(entries))
	for i, e := range entries {
		rows[i] = e.row
	}
	return rows, nil
}

// Comparer compares rows under a list of orderings, as SortRows does.
type Comparer struct{ rc *rowComparer }

// NewComparer returns a comparer for order.
func NewComparer(order []Ordering, env *collations.Environment) (*Comparer, error) {
	rc, err := newRowComparer(order, env)
	if err != nil {
		return nil, err
	}
	return &Comparer{rc: rc}, nil
}

// Compare returns -1, 0 or 1; Err reports the first comparison error.
func (c *Comparer) Compare(a, b []sqltypes.Value) int { return c.rc.compare(a, b) }

// Err returns the first error a comparison met.
func (c *Comparer) Err() error { return c.rc.err }
