package livepin

import (
	"bytes"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/arrowexec"
)

// Aggregated live pins: CACHE TABLE … OPTIONS ('refresh' = 'live') AS
// SELECT keys, COUNT(*), SUM(x), AVG(y), MIN(z), MAX(z) FROM t [WHERE …]
// GROUP BY keys. The pin keeps the rows that pass the WHERE (projected to
// the columns the keys and aggregates read) by primary key, and per group
// the running state of each aggregate: row and non-NULL counts, exact
// sums (big integers at the column's scale) and the current MIN/MAX. A
// row change subtracts the old row from its group and adds the new one,
// so COUNT, SUM and AVG follow every insert, update and delete in
// constant time. MIN/MAX cannot be inverted: deleting the row that holds
// a group's extreme marks the group, and the group alone is recomputed
// from its own rows when the next version is built. A group whose row
// count reaches zero disappears; a key column updated moves the row from
// one group to the other.
//
// The pin's rows are the groups' output rows, kept in the same chunked
// row slots as a plain pin's (state.rows, keyed by the group's key), so a
// version rebuilds only the chunks holding groups that changed.
//
// Exactness. The pin's column definitions are those of a static pin of
// the same query (Config.Describe), and each value is written as
// MariaDB sends it: COUNT as an integer, SUM as the exact sum at the
// column's DECIMAL scale, AVG as the exact quotient rounded half away
// from zero at the declared scale (MariaDB divides with
// div_precision_increment more digits, truncated at a nine-digit group
// and rounded when sent, which is the same value), MIN/MAX the row value
// itself. Text group keys are grouped by their collation's keys (the
// same package arrowexec.Collator the in-memory engine groups with:
// 'AA', 'aa' and 'AA ' are one group under utf8mb4_general_ci); a group
// with several such spellings shows that of its row with the smallest
// primary key, the row a MariaDB scan meets first in primary key or
// group-index order. What cannot be exact is refused before loading
// (aggCheck): SUM/AVG of FLOAT/DOUBLE (the sum depends on the order rows
// are added in), MIN/MAX of text (collation ties), TEXT/BLOB, FLOAT,
// TIMESTAMP keys, and every other aggregate.

// AggSpec is the aggregation of an aggregated live pin.
type AggSpec struct {
	// Keys are the GROUP BY columns of the source table.
	Keys []string
	// Outs are the select list, in order.
	Outs []AggOut
}

// AggOut is one output column of an aggregated pin.
type AggOut struct {
	// Func is "" for a group key (Keys[Key]), or count, sum, avg, min,
	// max of Col; count with Col "" is COUNT(*).
	Func string
	Col  string
	Key  int
}

// columns are the source columns the pin reads: the keys, then the
// aggregates' arguments, each once.
func (a *AggSpec) columns() []string {
	var out []string
	add := func(c string) {
		if c != "" && !slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, c) }) {
			out = append(out, c)
		}
	}
	for _, k := range a.Keys {
		add(k)
	}
	for _, o := range a.Outs {
		add(o.Col)
	}
	return out
}

// aggState is the groups of an aggregated pin and the source rows they
// are made of. It is owned by the pin's mutex, like state.
type aggState struct {
	outs    []aggOut
	keyCols []int                   // each key's index in a stored row
	keyColl []*arrowexec.Collator   // per key: non-nil for a text key
	pkCmp   []func(a, b []byte) int // per primary key column
	ncols   int                     // a stored row is ncols values, then the primary key's
	anyText bool
	// scalar: no GROUP BY, one group always, also of no rows (COUNT 0,
	// the others NULL), as MariaDB answers.
	scalar bool

	rows   map[string]*srcRow // by primary key
	groups map[string]*group  // by group key
	dirty  map[string]struct{}
}

type aggOut struct {
	fn       string
	col      int // in a stored row; -1: COUNT(*) or a key
	key      int
	scale    int32 // the argument column's decimals (SUM, AVG)
	outScale int32 // the output column's decimals
	cmp      func(a, b []byte) int
}

type srcRow struct {
	vals []sqltypes.Value
	g    *group
	pk   string
}

type group struct {
	key  string
	n    int64
	cnt  []int64          // per output: non-NULL arguments
	sum  []*big.Int       // per output (SUM, AVG): at the argument's scale
	ext  []sqltypes.Value // per output (MIN, MAX)
	bad  []bool           // per output: ext may be stale (its row left)
	rows map[string]*srcRow
	// spell counts the rows per spelling of the keys (text keys only);
	// rep is the keys' values shown.
	spell map[string]int
	rep   []sqltypes.Value
}

// newAggState compiles spec over the stored rows' columns cols (named
// names; fields from the load's SELECT), the primary key's fields pk and
// the pin's output fields out. It refuses, as *ErrNotLive, what it
// cannot keep exact.
func newAggState(spec *AggSpec, names []string, cols, pk, out []*querypb.Field, env *collations.Environment) (*aggState, error) {
	a := &aggState{ncols: len(cols), rows: map[string]*srcRow{}, groups: map[string]*group{}, dirty: map[string]struct{}{},
		scalar: len(spec.Keys) == 0}
	if a.scalar {
		a.dirty[""] = struct{}{}
	}
	idx := func(c string) int {
		return slices.IndexFunc(names, func(n string) bool { return strings.EqualFold(n, c) })
	}
	if len(out) != len(spec.Outs) {
		return nil, fmt.Errorf("livepin: the pin describes %d columns, its query %d", len(out), len(spec.Outs))
	}
	for _, k := range spec.Keys {
		i := idx(k)
		if i < 0 {
			return nil, &ErrNotLive{"the table has no column " + k}
		}
		f := cols[i]
		switch {
		case f.Type == sqltypes.Text || f.Type == sqltypes.Blob:
			return nil, &ErrNotLive{fmt.Sprintf("GROUP BY %s, a %s column: MariaDB compares only max_sort_length bytes of it", k, f.Type)}
		case sqltypes.IsFloat(f.Type) || f.Type == sqltypes.Timestamp || f.Type == sqltypes.Bit || f.Type == sqltypes.TypeJSON:
			return nil, &ErrNotLive{fmt.Sprintf("GROUP BY %s, a %s column, is not kept live (its values' text does not tell which are equal)", k, f.Type)}
		}
		a.keyCols = append(a.keyCols, i)
		var coll *arrowexec.Collator
		if sqltypes.IsText(f.Type) || sqltypes.IsBinary(f.Type) {
			c, err := arrowexec.NewCollator(env, collations.ID(f.Charset))
			if err != nil {
				return nil, &ErrNotLive{fmt.Sprintf("GROUP BY %s: %v", k, err)}
			}
			coll = c
			a.anyText = true
		}
		a.keyColl = append(a.keyColl, coll)
	}
	for _, f := range pk {
		c, err := comparer(f, env)
		if err != nil {
			return nil, &ErrNotLive{fmt.Sprintf("primary key column %s: %v", f.Name, err)}
		}
		a.pkCmp = append(a.pkCmp, c)
	}
	for i, o := range spec.Outs {
		ao := aggOut{fn: o.Func, col: -1, key: o.Key, outScale: int32(out[i].Decimals)}
		name := strings.ToUpper(o.Func) + "(" + o.Col + ")"
		if o.Col != "" {
			ao.col = idx(o.Col)
			if ao.col < 0 {
				return nil, &ErrNotLive{"the table has no column " + o.Col}
			}
		}
		var f *querypb.Field
		if ao.col >= 0 {
			f = cols[ao.col]
			ao.scale = int32(f.Decimals)
		}
		switch o.Func {
		case "":
		case "count":
			if !sqltypes.IsIntegral(out[i].Type) {
				return nil, &ErrNotLive{fmt.Sprintf("%s is %s in a static pin, not an integer", name, out[i].Type)}
			}
		case "sum", "avg":
			switch {
			case sqltypes.IsFloat(f.Type):
				return nil, &ErrNotLive{fmt.Sprintf("%s of %s column %s: a floating-point sum depends on the order rows are added in, so it cannot be kept equal to MariaDB's", name, f.Type, o.Col)}
			case !sqltypes.IsIntegral(f.Type) && f.Type != sqltypes.Decimal || f.Type == sqltypes.Year || f.Type == sqltypes.Bit:
				return nil, &ErrNotLive{fmt.Sprintf("%s of %s column %s is not kept live; SUM and AVG are, of integer and DECIMAL columns", name, f.Type, o.Col)}
			case out[i].Type != sqltypes.Decimal:
				return nil, &ErrNotLive{fmt.Sprintf("%s is %s in a static pin; kept live are DECIMAL sums and averages", name, out[i].Type)}
			}
			// The scale follows the snapshot's own column: a load right
			// after a DDL (ALTER … MODIFY d DECIMAL(8,2)) may be described
			// from plans of the old schema, which the catalog has not
			// re-read yet, and its AVG kept the old 4 decimals.
			if want := sumScale(o.Func, ao.scale); want >= 0 && want != ao.outScale {
				ao.outScale = want
				out[i].Decimals = uint32(want)
			}
		case "min", "max":
			if sqltypes.IsText(f.Type) || sqltypes.IsBinary(f.Type) {
				return nil, &ErrNotLive{fmt.Sprintf("%s of text column %s: which of the values its collation calls equal MariaDB shows depends on its plan", name, o.Col)}
			}
			c, err := comparer(f, env)
			if err != nil {
				return nil, &ErrNotLive{fmt.Sprintf("%s: %v", name, err)}
			}
			ao.cmp = c
		default:
			return nil, &ErrNotLive{fmt.Sprintf("%s cannot be maintained from row changes", strings.ToUpper(o.Func))}
		}
		a.outs = append(a.outs, ao)
	}
	return a, nil
}

// sumScale is the decimals MariaDB gives SUM (the argument's) or AVG (4
// more: div_precision_increment) of a column of the given scale, or -1
// past DECIMAL's 30.
func sumScale(fn string, scale int32) int32 {
	if fn == "avg" {
		scale += 4
	}
	if scale > 30 {
		return -1
	}
	return scale
}

// comparer orders two non-NULL values of column f as MariaDB does.
func comparer(f *querypb.Field, env *collations.Environment) (func(a, b []byte) int, error) {
	switch {
	case sqltypes.IsIntegral(f.Type) && f.Type != sqltypes.Bit || f.Type == sqltypes.Decimal:
		scale := int32(f.Decimals)
		if f.Type != sqltypes.Decimal {
			scale = 0
		}
		return func(a, b []byte) int {
			x, _ := parseScaled(a, scale)
			y, _ := parseScaled(b, scale)
			if x == nil || y == nil {
				return bytes.Compare(a, b)
			}
			return x.Cmp(y)
		}, nil
	case sqltypes.IsFloat(f.Type):
		return func(a, b []byte) int {
			x, _ := strconv.ParseFloat(string(a), 64)
			y, _ := strconv.ParseFloat(string(b), 64)
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		}, nil
	case f.Type == sqltypes.Date || f.Type == sqltypes.Datetime:
		// Fixed-width text: its byte order is the values' order.
		return bytes.Compare, nil
	case sqltypes.IsText(f.Type) || sqltypes.IsBinary(f.Type):
		c, err := arrowexec.NewCollator(env, collations.ID(f.Charset))
		if err != nil {
			return nil, err
		}
		return c.Compare, nil
	}
	return nil, fmt.Errorf("%s values are not ordered here", f.Type)
}

// parseScaled is a number's text as an integer at scale decimals:
// "-12.5" at scale 2 is -1250.
func parseScaled(b []byte, scale int32) (*big.Int, error) {
	s := string(b)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	ip, fp, _ := strings.Cut(s, ".")
	if int32(len(fp)) > scale {
		if strings.TrimRight(fp[scale:], "0") != "" {
			return nil, fmt.Errorf("%q has more than %d decimals", b, scale)
		}
		fp = fp[:scale]
	}
	digits := ip + fp + strings.Repeat("0", int(scale)-len(fp))
	n, ok := new(big.Int).SetString(digits, 10)
	if !ok || digits == "" {
		return nil, fmt.Errorf("%q is not a number", b)
	}
	if neg {
		n.Neg(n)
	}
	return n, nil
}

var ten = big.NewInt(10)

func pow10(n int32) *big.Int { return new(big.Int).Exp(ten, big.NewInt(int64(n)), nil) }

// quotient is num/(den·10^scale) as text at outScale decimals, rounded
// half away from zero (MariaDB's DECIMAL rounding).
func quotient(num *big.Int, den int64, scale, outScale int32) string {
	a := new(big.Int).Mul(num, pow10(outScale))
	b := new(big.Int).Mul(big.NewInt(den), pow10(scale))
	q, r := new(big.Int).QuoRem(a, b, new(big.Int))
	if r.Sign() != 0 {
		r.Abs(r).Lsh(r, 1)
		if r.Cmp(b) >= 0 {
			if a.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			} else {
				q.Add(q, big.NewInt(1))
			}
		}
	}
	return formatScaled(q, outScale)
}

// formatScaled writes n/10^scale with scale decimals.
func formatScaled(n *big.Int, scale int32) string {
	s := new(big.Int).Abs(n).String()
	if scale > 0 {
		if len(s) <= int(scale) {
			s = strings.Repeat("0", int(scale)-len(s)+1) + s
		}
		s = s[:len(s)-int(scale)] + "." + s[len(s)-int(scale):]
	}
	if n.Sign() < 0 {
		s = "-" + s
	}
	return s
}

// groupKey is the key of the group a stored row belongs to, and the
// spelling of its keys (exact bytes; "" when no key is text).
func (a *aggState) groupKey(row []sqltypes.Value) (key, spelling string) {
	var k, sp []byte
	for i, c := range a.keyCols {
		v := row[c]
		if v.IsNull() {
			k = append(k, 'N')
			sp = append(sp, 'N')
			continue
		}
		raw := v.Raw()
		if a.keyColl[i] != nil {
			sp = strconv.AppendInt(sp, int64(len(raw)), 10)
			sp = append(append(sp, ':'), raw...)
			raw = a.keyColl[i].Key(nil, raw)
		}
		k = strconv.AppendInt(k, int64(len(raw)), 10)
		k = append(append(k, ':'), raw...)
	}
	if !a.anyText {
		return string(k), ""
	}
	return string(k), string(sp)
}

// put makes row the source row of primary key pk.
func (a *aggState) put(pk string, row []sqltypes.Value) error {
	if old := a.rows[pk]; old != nil {
		a.remove(old)
	}
	gk, sp := a.groupKey(row)
	g := a.groups[gk]
	if g == nil {
		g = a.newGroup(gk)
		a.groups[gk] = g
	}
	r := &srcRow{vals: row, g: g, pk: pk}
	for i, o := range a.outs {
		if o.col < 0 || row[o.col].IsNull() {
			continue
		}
		v := row[o.col]
		switch o.fn {
		case "sum", "avg":
			n, err := parseScaled(v.Raw(), o.scale)
			if err != nil {
				return &ReloadError{Reason: "a changed row's " + o.fn + " argument: " + err.Error()}
			}
			if g.sum[i] == nil {
				g.sum[i] = new(big.Int)
			}
			g.sum[i].Add(g.sum[i], n)
		case "min", "max":
			if g.ext[i].IsNull() || better(o, v, g.ext[i]) {
				g.ext[i] = v
			}
		}
		g.cnt[i]++
	}
	g.n++
	g.rows[pk] = r
	if sp != "" {
		if g.spell == nil {
			g.spell = map[string]int{}
		}
		g.spell[sp]++
	}
	a.rows[pk] = r
	a.dirty[gk] = struct{}{}
	return nil
}

func (a *aggState) newGroup(gk string) *group {
	return &group{key: gk, cnt: make([]int64, len(a.outs)), sum: make([]*big.Int, len(a.outs)),
		ext: make([]sqltypes.Value, len(a.outs)), bad: make([]bool, len(a.outs)), rows: map[string]*srcRow{}}
}

// better says v goes before the extreme e of o (MIN: smaller).
func better(o aggOut, v, e sqltypes.Value) bool {
	c := o.cmp(v.Raw(), e.Raw())
	if o.fn == "min" {
		return c < 0
	}
	return c > 0
}

// del removes the source row of primary key pk, if the pin holds it.
func (a *aggState) del(pk string) {
	if r := a.rows[pk]; r != nil {
		a.remove(r)
	}
}

func (a *aggState) remove(r *srcRow) {
	g := r.g
	delete(a.rows, r.pk)
	delete(g.rows, r.pk)
	for i, o := range a.outs {
		if o.col < 0 || r.vals[o.col].IsNull() {
			continue
		}
		switch o.fn {
		case "sum", "avg":
			n, _ := parseScaled(r.vals[o.col].Raw(), o.scale) // parsed when added
			g.sum[i].Sub(g.sum[i], n)
		case "min", "max":
			if !g.bad[i] && o.cmp(r.vals[o.col].Raw(), g.ext[i].Raw()) == 0 {
				g.bad[i] = true
			}
		}
		g.cnt[i]--
	}
	g.n--
	if g.spell != nil {
		_, sp := a.groupKey(r.vals)
		if g.spell[sp]--; g.spell[sp] == 0 {
			delete(g.spell, sp)
		}
	}
	if g.n == 0 {
		delete(a.groups, g.key)
	}
	a.dirty[g.key] = struct{}{}
}

// flush writes the output row of every group changed since the last
// flush into st's rows (deleting those of groups that emptied).
func (a *aggState) flush(st *state) {
	for gk := range a.dirty {
		k := groupRowKey(gk)
		g := a.groups[gk]
		if g == nil && a.scalar {
			g = a.newGroup(gk)
		}
		if g == nil {
			st.del(k)
			continue
		}
		st.put(k, a.output(g, gk))
	}
	clear(a.dirty)
}

func groupRowKey(gk string) string {
	return keyOf([]sqltypes.Value{sqltypes.MakeTrusted(sqltypes.VarBinary, []byte(gk))})
}

// output is group g's row: the pin's columns, then its key (see
// state.rowKey).
func (a *aggState) output(g *group, gk string) []sqltypes.Value {
	var keys []sqltypes.Value // none in a scalar pin's row
	for _, r := range g.rows {
		keys = r.vals
		break
	}
	if len(g.spell) > 1 {
		keys = a.first(g).vals
	}
	out := make([]sqltypes.Value, 0, len(a.outs)+1)
	for i, o := range a.outs {
		switch o.fn {
		case "":
			out = append(out, keys[a.keyCols[o.key]])
		case "count":
			n := g.n
			if o.col >= 0 {
				n = g.cnt[i]
			}
			out = append(out, sqltypes.NewInt64(n))
		case "sum", "avg":
			if g.cnt[i] == 0 {
				out = append(out, sqltypes.NULL)
				continue
			}
			den := int64(1)
			if o.fn == "avg" {
				den = g.cnt[i]
			}
			out = append(out, sqltypes.MakeTrusted(sqltypes.Decimal, []byte(quotient(g.sum[i], den, o.scale, o.outScale))))
		case "min", "max":
			if g.bad[i] {
				g.ext[i], g.bad[i] = sqltypes.NULL, false
				for _, r := range g.rows {
					if v := r.vals[o.col]; !v.IsNull() && (g.ext[i].IsNull() || better(o, v, g.ext[i])) {
						g.ext[i] = v
					}
				}
			}
			out = append(out, g.ext[i])
		}
	}
	return append(out, sqltypes.MakeTrusted(sqltypes.VarBinary, []byte(gk)))
}

// first is g's row with the smallest primary key.
func (a *aggState) first(g *group) *srcRow {
	var best *srcRow
	for _, r := range g.rows {
		if best == nil || a.pkLess(r.vals[a.ncols:], best.vals[a.ncols:]) {
			best = r
		}
	}
	return best
}

func (a *aggState) pkLess(x, y []sqltypes.Value) bool {
	for i, c := range a.pkCmp {
		if d := c(x[i].Raw(), y[i].Raw()); d != 0 {
			return d < 0
		}
	}
	return false
}
