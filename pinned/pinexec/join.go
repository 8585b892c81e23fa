package pinexec

import (
	"context"
	"fmt"
	"math"
	"strings"

	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shoaldb/shoal/arrowexec"
	"github.com/shoaldb/shoal/evalexpr"
	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/sqlerr"
)

// Joins between pinned tables.
//
// A fragment whose FROM joins pinned tables (inner, comma/CROSS and LEFT
// joins; left-deep, as the planner renders them) runs as a hash join: the
// split table is scanned by the partitions as a single table is, and every
// other table is built once per run into a hash table keyed by its
// equi-join columns. Each split row then probes the tables in turn:
//
//	split batch ─▶ row ─▶ pre-filter ─▶ probe level 1 ─▶ … ─▶ probe level n ─▶ WHERE leftovers ─▶ output / partial aggregate
//	                                        ▲                     ▲
//	                              hash table of table 1 … hash table of table n   (built before the partitions start, read-only)
//
// Keys are built so that values MySQL calls equal always share one:
// strings by their weight under the column's collation (PAD SPACE trimmed,
// as arrowexec's Collator keys them for grouping), temporal values of one
// type and precision and binary strings by their bytes, numbers of any
// types by their value as a float64. For strings, temporals and bytes the
// key is exact, so the lookup is the equality test (evalengine would get
// PAD SPACE wrong). A float64 only narrows the candidates: numeric
// equalities are still evaluated by evalengine on the joined row, exact
// for BIGINT and DECIMAL values a double cannot tell apart. NULL never
// matches: a NULL key component makes the row unmatchable. Equalities
// between columns of other type pairs stay conditions, not keys.
//
// The joined row is every table's columns side by side, the split table's
// first; expressions are bound to its slots by rewriting each column
// reference to a generated name (bind).

// joinTable is one table of a join, in the order the partitions bind them.
type joinTable struct {
	t     *pinned.Table
	alias string
	off   int  // first slot of its columns in the joined row
	left  bool // LEFT JOIN: a split row with no match gets NULLs
	on    []sqlparser.Expr

	match []*expr // every candidate must satisfy these to match
	post  []*expr // after matching (or NULL-extending): WHERE conjuncts over a LEFT-joined table
	keys  []joinKey
	used  []int // columns of t any expression reads
}

// joinKey is one component of a table's hash key: column build of the
// table equals slot probe of the joined row (a table bound earlier).
type joinKey struct {
	build, probe int // column of t; slot of the joined row
	mode         keyMode
	coll         *arrowexec.Collator
}

type keyMode uint8

const (
	keyNum   keyMode = iota + 1 // any numeric types: by value
	keyText                     // text of one collation: by weight string
	keyBytes                    // one binary or temporal type: by bytes
)

// joinPlan is the compiled FROM of a join.
type joinPlan struct {
	tabs    []*joinTable     // binding order; tabs[0] is the split table
	seq     []*joinTable     // FROM order, for SELECT *
	cols    []*pinned.Column // the joined row's columns
	fields  []*querypb.Field
	innerOn []sqlparser.Expr // inner joins' ON conjuncts, placed like WHERE
	pre     []*expr          // conjuncts over the split table alone
}

// planJoin resolves the tables of from. The split table is t's first
// occurrence that is not LEFT-joined (the planner chose it on the preserved
// side); the others follow in FROM order, which keeps every LEFT JOIN's ON
// after the tables it reads.
func planJoin(t *pinned.Table, tables Resolver, from sqlparser.TableExprs) (*joinPlan, error) {
	jp := &joinPlan{}
	add := func(ate *sqlparser.AliasedTableExpr, left bool, on sqlparser.Expr) error {
		tn, ok := ate.Expr.(sqlparser.TableName)
		if !ok {
			return unsupported("derived table in a join over pinned tables")
		}
		if len(ate.Partitions) > 0 || ate.Hints != nil {
			return unsupported("PARTITION or index hints")
		}
		db := t.DB
		if tn.Qualifier.NotEmpty() {
			db = tn.Qualifier.String()
		}
		jt := &joinTable{alias: ate.As.String(), left: left}
		if jt.alias == "" {
			jt.alias = tn.Name.String()
		}
		if db == t.DB && tn.Name.String() == t.Name {
			jt.t = t
		} else if jt.t = tables(db, tn.Name.String()); jt.t == nil {
			return unsupported("%s.%s is not pinned; a join runs in memory only when every table is", db, tn.Name.String())
		}
		for _, o := range jp.seq {
			if strings.EqualFold(o.alias, jt.alias) {
				return unsupported("table alias %s used twice", jt.alias)
			}
		}
		if on != nil {
			jt.on = sqlparser.SplitAndExpression(nil, on)
		}
		jp.seq = append(jp.seq, jt)
		return nil
	}
	var walk func(te sqlparser.TableExpr) error
	walk = func(te sqlparser.TableExpr) error {
		switch x := te.(type) {
		case *sqlparser.AliasedTableExpr:
			return add(x, false, nil)
		case *sqlparser.ParenTableExpr:
			for _, e := range x.Exprs {
				if err := walk(e); err != nil {
					return err
				}
			}
			return nil
		case *sqlparser.JoinTableExpr:
			if err := walk(x.LeftExpr); err != nil {
				return err
			}
			right := x.RightExpr
			if p, ok := right.(*sqlparser.ParenTableExpr); ok && len(p.Exprs) == 1 {
				right = p.Exprs[0]
			}
			ate, ok := right.(*sqlparser.AliasedTableExpr)
			if !ok {
				return unsupported("a nested join on the right of a join over pinned tables")
			}
			var on sqlparser.Expr
			if x.Condition != nil {
				if len(x.Condition.Using) > 0 {
					return unsupported("USING in a join over pinned tables")
				}
				on = x.Condition.On
			}
			switch x.Join {
			case sqlparser.NormalJoinType, sqlparser.StraightJoinType:
				if on != nil {
					jp.innerOn = append(jp.innerOn, sqlparser.SplitAndExpression(nil, on)...)
				}
				return add(ate, false, nil)
			case sqlparser.LeftJoinType:
				if on == nil {
					return unsupported("LEFT JOIN without ON")
				}
				return add(ate, true, on)
			}
			return unsupported("%s over pinned tables", x.Join.ToString())
		}
		return unsupported("FROM item %T over pinned tables", te)
	}
	for _, te := range from {
		if err := walk(te); err != nil {
			return nil, err
		}
	}
	split := -1
	for i, jt := range jp.seq {
		if jt.t == t && !jt.left {
			split = i
			break
		}
	}
	if split < 0 {
		return nil, unsupported("the split table %s.%s is not on the preserved side of the join", t.DB, t.Name)
	}
	jp.tabs = append(jp.tabs, jp.seq[split])
	for i, jt := range jp.seq {
		if i != split {
			jp.tabs = append(jp.tabs, jt)
		}
	}
	for _, jt := range jp.tabs {
		jt.off = len(jp.cols)
		jp.cols = append(jp.cols, jt.t.Cols...)
		jp.fields = append(jp.fields, jt.t.Fields...)
	}
	return jp, nil
}

// slotName is the generated name of slot i of the joined row.
func slotName(i int) string { return fmt.Sprintf("__shoal_j%d", i) }

func (jp *joinPlan) layout() *evalexpr.Layout {
	names := make([]string, len(jp.cols))
	for i := range names {
		names[i] = slotName(i)
	}
	return evalexpr.NewLayout(names, jp.fields)
}

// resolve finds the slot a column reference names: by its qualifier (a
// table's alias), or, unqualified, in the one table that has the column.
func (jp *joinPlan) resolve(c *sqlparser.ColName) (int, error) {
	q := c.Qualifier.Name.String()
	found := -1
	for _, jt := range jp.tabs {
		if q != "" && !strings.EqualFold(jt.alias, q) {
			continue
		}
		for i, col := range jt.t.Cols {
			if strings.EqualFold(col.Name, c.Name.String()) {
				if found >= 0 {
					return 0, unsupported("column %s is ambiguous", sqlparser.String(c))
				}
				found = jt.off + i
				break
			}
		}
	}
	if found < 0 {
		return 0, fmt.Errorf("pinned: unknown column %s in a join over pinned tables", sqlparser.String(c))
	}
	return found, nil
}

// bind rewrites every column reference of e to its slot's name.
func (jp *joinPlan) bind(e sqlparser.Expr) sqlparser.Expr {
	out := sqlparser.Rewrite(sqlparser.Clone(e), nil, func(cur *sqlparser.Cursor) bool {
		if c, ok := cur.Node().(*sqlparser.ColName); ok {
			if i, err := jp.resolve(c); err == nil {
				cur.Replace(sqlparser.NewColName(slotName(i)))
			}
		}
		return true
	})
	return out.(sqlparser.Expr)
}

// star expands * or alias.* in FROM order, as MySQL does.
func (jp *joinPlan) star(s *sqlparser.StarExpr) ([]sqlparser.Expr, error) {
	var out []sqlparser.Expr
	q := s.TableName.Name.String()
	for _, jt := range jp.seq {
		if q != "" && !strings.EqualFold(jt.alias, q) {
			continue
		}
		for _, c := range jt.t.Cols {
			out = append(out, sqlparser.NewColNameWithQualifier(c.Name, sqlparser.NewTableName(jt.alias)))
		}
	}
	if len(out) == 0 {
		return nil, unsupported("%s names no table of the join", sqlparser.String(s))
	}
	return out, nil
}

// level is the binding position of the table holding slot.
func (jp *joinPlan) level(slot int) int {
	for i := len(jp.tabs) - 1; i > 0; i-- {
		if slot >= jp.tabs[i].off {
			return i
		}
	}
	return 0
}

// place compiles the WHERE and inner ON conjuncts and each LEFT JOIN's ON,
// and puts each conjunct at the first level binding every table it reads:
// as a match condition of an inner-joined table, after the NULL extension
// of a LEFT-joined one (a WHERE over it filters the extended row), before
// any probe when it reads the split table alone.
func (jp *joinPlan) place(where []sqlparser.Expr, compile func(sqlparser.Expr) (*expr, error)) error {
	lvlOf := func(x *expr) int {
		l := 0
		for _, c := range x.cols {
			l = max(l, jp.level(c))
		}
		return l
	}
	for _, c := range append(where, jp.innerOn...) {
		x, err := compile(c)
		if err != nil {
			return err
		}
		switch l := lvlOf(x); {
		case l == 0:
			jp.pre = append(jp.pre, x)
		case jp.tabs[l].left:
			jp.tabs[l].post = append(jp.tabs[l].post, x)
		default:
			jp.tabs[l].match = append(jp.tabs[l].match, x)
		}
	}
	for l, jt := range jp.tabs {
		for _, c := range jt.on {
			x, err := compile(c)
			if err != nil {
				return err
			}
			if lvlOf(x) > l {
				return unsupported("ON %s reads a table joined after %s", x.src, jt.alias)
			}
			jt.match = append(jt.match, x)
		}
	}
	for l, jt := range jp.tabs[1:] {
		if err := jp.keys(l+1, jt); err != nil {
			return err
		}
	}
	return nil
}

// keys picks jt's hash key from its equalities between one of its columns
// and a column bound earlier.
func (jp *joinPlan) keys(l int, jt *joinTable) error {
	covered := map[*expr]bool{}
	for _, m := range jt.match {
		cmp, ok := m.ast.(*sqlparser.ComparisonExpr)
		if !ok || cmp.Operator != sqlparser.EqualOp {
			continue
		}
		a, ok1 := cmp.Left.(*sqlparser.ColName)
		b, ok2 := cmp.Right.(*sqlparser.ColName)
		if !ok1 || !ok2 {
			continue
		}
		sa, err1 := jp.resolve(a)
		sb, err2 := jp.resolve(b)
		if err1 != nil || err2 != nil {
			continue
		}
		if jp.level(sa) != l {
			sa, sb = sb, sa
		}
		if jp.level(sa) != l || jp.level(sb) >= l {
			continue
		}
		mode, coll := keyModeOf(jp.fields[sa], jp.fields[sb])
		if mode == 0 {
			continue
		}
		k := joinKey{build: sa - jt.off, probe: sb, mode: mode}
		if mode == keyText {
			c, err := arrowexec.NewCollator(nil, coll)
			if err != nil {
				continue // no weight strings: the equality still filters
			}
			k.coll = c
		}
		jt.keys = append(jt.keys, k)
		if mode != keyNum {
			// Equal keys are equal values here, so the lookup decides
			// the equality. For strings it must: evalengine compares
			// without PAD SPACE ('BA' = 'ba ' is true in MySQL).
			covered[m] = true
		}
	}
	kept := jt.match[:0]
	for _, m := range jt.match {
		if !covered[m] {
			kept = append(kept, m)
		}
	}
	jt.match = kept
	return nil
}

// keyModeOf is how values of columns a and b are keyed so that values
// MySQL calls equal share a key; 0 means they are not keyed.
func keyModeOf(a, b *querypb.Field) (keyMode, collations.ID) {
	switch {
	case sqltypes.IsNumber(a.Type) && sqltypes.IsNumber(b.Type):
		return keyNum, 0
	case sqltypes.IsText(a.Type) && sqltypes.IsText(b.Type) && a.Charset == b.Charset && a.Charset != 63 && a.Type != sqltypes.Enum && a.Type != sqltypes.Set && b.Type != sqltypes.Enum && b.Type != sqltypes.Set:
		return keyText, collations.ID(a.Charset)
	case a.Type == b.Type && a.Decimals == b.Decimals && (sqltypes.IsDateOrTime(a.Type) || sqltypes.IsBinary(a.Type) && a.Charset == 63 && b.Charset == 63):
		return keyBytes, 0
	}
	return 0, 0
}

// appendKey appends v's key component; ok is false for NULL.
func (k *joinKey) appendKey(dst []byte, v sqltypes.Value) ([]byte, bool, error) {
	if v.IsNull() {
		return dst, false, nil
	}
	switch k.mode {
	case keyNum:
		f, err := v.ToFloat64()
		if err != nil {
			return dst, false, fmt.Errorf("pinned: join key %v: %w", v, err)
		}
		if f == 0 {
			f = 0 // -0 equals 0
		}
		b := math.Float64bits(f)
		return append(dst, byte(b), byte(b>>8), byte(b>>16), byte(b>>24), byte(b>>32), byte(b>>40), byte(b>>48), byte(b>>56)), true, nil
	case keyText:
		start := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		dst = k.coll.Key(dst, v.Raw())
		n := len(dst) - start - 4
		dst[start], dst[start+1], dst[start+2], dst[start+3] = byte(n), byte(n>>8), byte(n>>16), byte(n>>24)
		return dst, true, nil
	default:
		raw := v.Raw()
		n := len(raw)
		dst = append(dst, byte(n), byte(n>>8), byte(n>>16), byte(n>>24))
		return append(dst, raw...), true, nil
	}
}

// finish records the columns each joined table's rows must carry.
func (jp *joinPlan) finish(used map[int]bool) {
	for _, jt := range jp.tabs[1:] {
		for c := range jt.t.Cols {
			if used[jt.off+c] {
				jt.used = append(jt.used, c)
			}
		}
	}
}

// Joined lists the tables the program joins to its split table, in probe
// order (nil for a single table).
func (p *Program) Joined() []*pinned.Table {
	if p.join == nil {
		return nil
	}
	out := make([]*pinned.Table, 0, len(p.join.tabs)-1)
	for _, jt := range p.join.tabs[1:] {
		out = append(out, jt.t)
	}
	return out
}

// JoinDescribe says how a join runs (empty for a single table): which
// table each partition scans and which hash tables it probes on which keys.
func (p *Program) JoinDescribe() string {
	if p.join == nil {
		return ""
	}
	var parts []string
	for _, jt := range p.join.tabs[1:] {
		kind := "inner"
		if jt.left {
			kind = "left"
		}
		var keys []string
		for _, k := range jt.keys {
			keys = append(keys, jt.alias+"."+jt.t.Cols[k.build].Name+"="+p.join.cols[k.probe].Name)
		}
		on := "no key: every row is a candidate"
		if len(keys) > 0 {
			on = "key " + strings.Join(keys, ", ")
		}
		parts = append(parts, fmt.Sprintf("%s %s.%s AS %s (%d rows; %s)", kind, jt.t.DB, jt.t.Name, jt.alias, jt.t.Rows, on))
	}
	s := p.join.tabs[0]
	return fmt.Sprintf("hash join in memory: partitions scan %s.%s AS %s and probe %s", s.t.DB, s.t.Name, s.alias, strings.Join(parts, "; "))
}

// builtTable is one joined table's hash table for one run. It is read-only
// once built and shared by every partition.
type builtTable struct {
	rows    [][]sqltypes.Value // the used columns (joinTable.used) of each row
	buckets map[string][]int32 // key → rows; nil when the table has no key
}

// build makes the hash tables of every joined table. memLimit (> 0)
// bounds their approximate size.
func (jp *joinPlan) build(ctx context.Context, memLimit int64) ([]*builtTable, error) {
	out := make([]*builtTable, len(jp.tabs))
	var size int64
	var key []byte
	for l, jt := range jp.tabs[1:] {
		bt := &builtTable{}
		if len(jt.keys) > 0 {
			bt.buckets = map[string][]int32{}
		}
		for _, b := range jt.t.Batches {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			for r := 0; r < int(b.NumRows()); r++ {
				vals := make([]sqltypes.Value, len(jt.used))
				size += int64(24 * (len(vals) + 1))
				for i, c := range jt.used {
					vals[i], _ = jt.t.Cols[c].Value(b.Column(c), r, nil)
					size += int64(len(vals[i].Raw()))
				}
				if memLimit > 0 && size > memLimit {
					return nil, sqlerr.New(sqlerr.ErrOutOfResources, "HY000",
						"Out of resources joining pinned tables: the hash tables of the joined tables need over %d bytes (merge_memory_limit); join the largest table to smaller ones, or add a more selective WHERE", memLimit)
				}
				if bt.buckets == nil {
					bt.rows = append(bt.rows, vals)
					continue
				}
				key = key[:0]
				ok := true
				for _, k := range jt.keys {
					var err error
					if key, ok, err = k.appendKey(key, valueOfColumn(jt, vals, k.build)); err != nil {
						return nil, err
					}
					if !ok {
						break // NULL never matches
					}
				}
				if ok {
					bt.buckets[string(key)] = append(bt.buckets[string(key)], int32(len(bt.rows)))
					bt.rows = append(bt.rows, vals)
				}
			}
		}
		out[l+1] = bt
	}
	return out, nil
}

// valueOfColumn is column c of jt in a built row.
func valueOfColumn(jt *joinTable, vals []sqltypes.Value, c int) sqltypes.Value {
	for i, u := range jt.used {
		if u == c {
			return vals[i]
		}
	}
	return sqltypes.NULL
}

// joinRow runs the joined rows of the split row in part.row through the
// levels; stop reports that the pushed LIMIT was reached.
func (part *partition) joinRow(sink Sink) (stop bool, err error) {
	ok, err := part.all(part.p.join.pre)
	if err != nil || !ok {
		return false, err
	}
	return part.probe(1, sink)
}

// all reports whether every conjunct is true on the joined row.
func (part *partition) all(xs []*expr) (bool, error) {
	for _, x := range xs {
		t, err := part.ev.True(x.x, part.row)
		if err != nil {
			return false, evalErr(x, err)
		}
		if !t {
			return false, nil
		}
	}
	return true, nil
}

func (part *partition) probe(l int, sink Sink) (bool, error) {
	jp := part.p.join
	if l == len(jp.tabs) {
		return part.joinLeaf(sink)
	}
	jt, bt := jp.tabs[l], part.built[l]
	var cand []int32
	all := bt.buckets == nil
	if !all {
		key := part.key[:0]
		ok := true
		for _, k := range jt.keys {
			var err error
			if key, ok, err = k.appendKey(key, part.row[k.probe]); err != nil {
				return false, err
			}
			if !ok {
				break
			}
		}
		part.key = key
		if ok {
			cand = bt.buckets[string(key)]
		}
	}
	n := len(cand)
	if all {
		n = len(bt.rows)
	}
	matched := false
	for i := 0; i < n; i++ {
		if i&4095 == 4095 {
			// A keyless join can pair one row with a whole table.
			if err := part.ctx.Err(); err != nil {
				return false, err
			}
		}
		r := i
		if !all {
			r = int(cand[i])
		}
		for k, c := range jt.used {
			part.row[jt.off+c] = bt.rows[r][k]
		}
		ok, err := part.all(jt.match)
		if err != nil {
			return false, err
		}
		if !ok {
			continue
		}
		matched = true
		if ok, err = part.all(jt.post); err != nil || !ok {
			if err != nil {
				return false, err
			}
			continue
		}
		if stop, err := part.probe(l+1, sink); err != nil || stop {
			return stop, err
		}
	}
	if jt.left && !matched {
		for _, c := range jt.used {
			part.row[jt.off+c] = sqltypes.NULL
		}
		ok, err := part.all(jt.post)
		if err != nil || !ok {
			return false, err
		}
		return part.probe(l+1, sink)
	}
	return false, nil
}

// joinLeaf hands one joined row on: to the partial aggregate, or as an
// output row.
func (part *partition) joinLeaf(sink Sink) (bool, error) {
	p := part.p
	if p.aggregate {
		return false, part.preAggregate()
	}
	for i, o := range p.outs {
		v, _, err := part.ev.Eval(o.x, part.row)
		if err != nil {
			return false, evalErr(o, err)
		}
		part.vals[i] = v
	}
	if err := part.rb.Append(part.vals); err != nil {
		return false, err
	}
	part.joined++
	part.pending++
	if p.limit >= 0 && part.joined >= p.limit {
		return true, nil
	}
	if part.pending >= rowBatch {
		return false, part.flushRows(sink)
	}
	return false, nil
}
