package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/shoaldb/shoal/planner/derivedmerge"
	"github.com/shoaldb/shoal/sqlparse"
)

// PlanSelect plans sel for distribution over the split table's key ranges.
// db is the session's current database. It returns *NotDistributed when the
// statement must pass through instead. PlanSelect may modify sel.
func PlanSelect(cat Catalog, db string, sel *ast.SelectStmt) (*Plan, error) {
	if err := checkShape(sel); err != nil {
		return nil, err
	}
	if sel.From.TableRefs == nil {
		return nil, notDist("no FROM clause")
	}
	derivedmerge.Merge(sel) // a derived table of plain rows: its FROM
	srcs, err := sources(cat, db, sel.From.TableRefs)
	if err != nil {
		return nil, err
	}
	split, why, err := chooseSplit(srcs)
	if err != nil {
		return nil, err
	}
	whole, err := sqlparse.Restore(sel)
	if err != nil {
		return nil, notDist("cannot render statement: %v", err)
	}
	if strings.Contains(strings.ToUpper(whole), "__SHOAL_") {
		return nil, notDist("statement uses a name reserved by Shoal")
	}
	clock, err := checkExprs(sel, split, slices.ContainsFunc(srcs, func(s *source) bool { return s.tbl.Pinned }))
	if err != nil {
		return nil, err
	}
	if err := nameFields(sel); err != nil {
		return nil, err
	}
	if err := normalizeColumns(sel, srcs); err != nil {
		return nil, err
	}
	// Fragments run on a worker connection with no current database: name
	// every table's database explicitly, subqueries included.
	qualifyTables(sel, db)

	p := &Plan{
		DB: split.tbl.Schema, Table: split.tbl.Name, Split: split.tbl.Split(),
		Limit: -1, PushedLimit: -1, KeyPoints: -1,
		Notes: []string{"split table: " + why}, Clock: clock,
	}
	if clock {
		p.Notes = append(p.Notes, "the clock (NOW(), CURDATE(), ...) is read once: every fragment runs at the statement's instant")
	}
	switch p.Split {
	case SplitInt, SplitDate, SplitDatetime:
		p.SplitColumn = sqlparse.QuoteID(split.alias) + "." + sqlparse.QuoteID(split.tbl.SplitColumn)
	case SplitKey:
		for _, c := range split.tbl.KeyColumns {
			p.KeyColumns = append(p.KeyColumns, sqlparse.QuoteID(split.alias)+"."+sqlparse.QuoteID(c))
		}
		if c, ok := split.tbl.Column(split.tbl.KeyColumns[0]); ok && intTypes[c.Type] && c.Type != "year" {
			p.KeyFirstLo, p.KeyFirstHi = keyBounds(sel.Where, split.alias, split.tbl.KeyColumns[0])
		}
	}
	for _, s := range srcs {
		if s != split {
			p.Joined = append(p.Joined, JoinedTable{Alias: s.alias, DB: s.tbl.Schema, Name: s.tbl.Name})
		}
	}
	single := sel.From != nil && sel.From.TableRefs != nil && sel.From.TableRefs.Right == nil
	p.WhereKeyOnly = single && sel.Where == nil
	if p.Split == SplitInt && len(split.tbl.Partitions) <= 1 {
		p.KeyLo, p.KeyHi, p.KeyPoints = keyRange(sel.Where, split.alias, split.tbl.SplitColumn)
		p.WhereKeyOnly = single && keyOnly(sel.Where, split.alias, split.tbl.SplitColumn)
		switch {
		case p.KeyLo != nil && p.KeyHi != nil && *p.KeyLo > *p.KeyHi:
			p.Notes = append(p.Notes, "the WHERE clause matches no split key")
		case p.KeyLo != nil || p.KeyHi != nil:
			p.Notes = append(p.Notes, "ranges cut within "+boundsString(p.KeyLo, p.KeyHi)+" (WHERE on the split column)")
		}
	}
	if p.Limit, p.Offset, err = limitOf(sel.Limit); err != nil {
		return nil, err
	}
	// Metadata statement: the original with LIMIT 0.
	origLimit := sel.Limit
	sel.Limit = &ast.Limit{Count: ast.NewValueExpr(0, "", "")}
	p.MetaSQL, err = sqlparse.Restore(sel)
	sel.Limit = origLimit
	if err != nil {
		return nil, notDist("cannot render metadata statement: %v", err)
	}

	// A natively partitioned split table is read one partition per
	// fragment (unless the statement selects partitions itself): the
	// fragment names its partition, so MariaDB opens only that one, even
	// where the range predicate alone would not prune.
	if len(split.tbl.Partitions) > 1 && len(split.tn.PartitionNames) == 0 {
		split.tn.PartitionNames = []ast.CIStr{ast.NewCIStr(partitionMarkerName)}
		p.Partitioned = true
	}
	from, err := sqlparse.Restore(sel.From)
	if p.Partitioned {
		split.tn.PartitionNames = nil
		if p.Split == SplitNone {
			p.Notes[0] += " per partition"
		}
	}
	if err != nil {
		return nil, notDist("cannot render FROM: %v", err)
	}
	where := RangeMarker
	if sel.Where != nil {
		w, err := sqlparse.Restore(sel.Where)
		if err != nil {
			return nil, notDist("cannot render WHERE: %v", err)
		}
		where = "(" + w + ") AND " + RangeMarker
	}

	if isAggregate(sel) || sel.Distinct {
		err = planAggregate(p, sel, srcs, from, where)
	} else {
		keyOrder := single && split.tbl.SplitUnique && p.SplitColumn != "" && len(split.tbl.Partitions) <= 1
		// clustered: MariaDB reads the table alone in its clustered
		// index's order, which a plan over a composite or text key (its
		// fragments in key order), or over a whole-table pin (batches in
		// key order), returns too.
		clustered := keyOrder || single && len(split.tbl.Partitions) <= 1 && (p.Split == SplitKey || split.tbl.Pinned)
		if clustered && sel.Limit != nil && !ordered(sel) && indexCovers(sel, split.tbl) {
			// MariaDB scans the shortest index holding every column read
			// (with the primary key), in its order, not the table's.
			return nil, notDist("LIMIT without ORDER BY over columns a secondary index holds: MariaDB scans the index, in its order")
		}
		if clustered && !keyOrder && sel.Limit != nil && !ordered(sel) && sel.Where != nil && secondaryIndex(split.tbl) {
			// A filter MariaDB may serve through a secondary index (WHERE
			// tenant_id = 1 AND created_at > … over KEY (tenant_id,
			// created_at)): its first matches are in that index's order.
			// (keyOrder tables pass such statements through in planRows.)
			return nil, notDist("LIMIT without ORDER BY over a filter on a table with secondary indexes: the replica may read them through one, in its order")
		}
		err = planRows(p, sel, from, where, keyOrder)
	}
	if err != nil {
		return nil, err
	}
	unsplit := p.Split == SplitNone || p.Split == SplitKey && split.tbl.Rows > MaxKeySampleRows
	if p.Split == SplitKey && unsplit {
		p.Notes = append(p.Notes, fmt.Sprintf("key not sampled (more than %d rows): one fragment", MaxKeySampleRows))
	}
	if rows := fragmentRows(split.tbl, p.Partitioned); unsplit && !p.Aggregate && p.PushedLimit < 0 && rows > MaxOneFragmentRows {
		// A fragment's rows are held until it completes (a failed attempt
		// is never half-sent): one fragment of a large table would hold
		// the table. The replica streams it instead.
		return nil, notDist("table %s.%s has no usable split key and ~%d rows, too many for one fragment", split.tbl.Schema, split.tbl.Name, rows)
	}
	if _, err := sqlparse.ParseOne(strings.ReplaceAll(p.FragmentSQL, RangeMarker, "TRUE")); err != nil {
		return nil, fmt.Errorf("planner: fragment SQL does not parse: %w (%s)", err, p.FragmentSQL)
	}
	p.primaryAt = -1
	if single && p.Split == SplitInt && split.tbl.SplitUnique && !p.Partitioned && len(split.tn.IndexHints) == 0 {
		// One table: its index hints go at the end of FROM.
		if i := strings.Index(p.FragmentSQL, " FROM "+from+" WHERE "); i > 0 && strings.Count(p.FragmentSQL, " FROM "+from+" WHERE ") == 1 {
			p.primaryAt = i + len(" FROM "+from)
		}
	}
	return p, nil
}

// MaxOneFragmentRows is the most rows (by the catalog's estimate) of a
// table without a split key that a row plan without LIMIT reads as one
// fragment; larger ones pass through. It matches the coordinator's bound
// on the rows of one row-plan fragment.
const MaxOneFragmentRows = 100_000

// fragmentRows estimates the most rows one fragment of an unsplit table
// reads: the table's, or its largest partition's when each partition is a
// fragment.
func fragmentRows(t *Table, partitioned bool) int64 {
	if !partitioned {
		return t.Rows
	}
	var most int64
	for _, pt := range t.Partitions {
		most = max(most, pt.Rows)
	}
	return most
}

// MaxKeySampleRows is the most rows of a table with a composite or
// non-integer primary key whose boundary keys the coordinator samples (by
// scanning the key); a larger one is one fragment (per partition).
const MaxKeySampleRows = 5_000_000

// qualifyTables names the database of every table reference that has none.
func qualifyTables(sel *ast.SelectStmt, db string) {
	found := false
	sel.Accept(&finder{found: &found, deep: true, match: func(n ast.Node) bool {
		if tn, ok := n.(*ast.TableName); ok && tn.Schema.O == "" {
			tn.Schema = ast.NewCIStr(db)
		}
		return false
	}})
}

func checkShape(sel *ast.SelectStmt) error {
	switch {
	case sel.Kind != ast.SelectStmtKindSelect:
		return notDist("VALUES/TABLE statement")
	case sel.With != nil:
		return notDist("WITH clause")
	case len(sel.WindowSpecs) > 0:
		return notDist("window specification")
	case sel.From == nil:
		return notDist("no FROM clause")
	case sel.GroupBy != nil && sel.GroupBy.Rollup && sel.OrderBy != nil:
		return notDist("WITH ROLLUP and ORDER BY")
	case sel.SelectStmtOpts != nil && sel.SelectStmtOpts.CalcFoundRows:
		return notDist("SQL_CALC_FOUND_ROWS")
	case sel.SelectIntoOpt != nil || sel.LockInfo != nil && sel.LockInfo.LockType != ast.SelectLockNone:
		return notDist("locking or INTO")
	}
	return nil
}

func isAggregate(sel *ast.SelectStmt) bool {
	if sel.GroupBy != nil || sel.Having != nil {
		return true
	}
	found := false
	v := &finder{match: func(n ast.Node) bool { _, ok := n.(*ast.AggregateFuncExpr); return ok }, found: &found}
	for _, f := range sel.Fields.Fields {
		if f.Expr != nil {
			f.Expr.Accept(v)
		}
	}
	if sel.OrderBy != nil {
		for _, it := range sel.OrderBy.Items {
			it.Expr.Accept(v)
		}
	}
	return found
}

func limitOf(l *ast.Limit) (count, offset int64, err error) {
	if l == nil {
		return -1, 0, nil
	}
	intOf := func(e ast.ExprNode) (int64, error) {
		v, ok := e.(*driver.ValueExpr)
		if !ok {
			return 0, notDist("LIMIT is not a constant")
		}
		switch x := v.GetValue().(type) {
		case int64:
			return x, nil
		case uint64:
			if x > 1<<62 {
				return 1 << 62, nil
			}
			return int64(x), nil
		}
		return 0, notDist("LIMIT is not an integer")
	}
	if count, err = intOf(l.Count); err != nil {
		return 0, 0, err
	}
	if l.Offset != nil {
		if offset, err = intOf(l.Offset); err != nil {
			return 0, 0, err
		}
	}
	return count, offset, nil
}

// planRows plans a SELECT without aggregates: fragments return the select
// list (plus hidden ORDER BY keys) and the coordinator concatenates, sorts
// or takes the top rows. keyOrder says the table is read alone and its
// split column is its primary key: a LIMIT without ORDER BY then takes
// the first rows in key order, the rows MariaDB's scan of an InnoDB
// table meets first (its clustered index), rather than whichever
// fragment answers first.
func planRows(p *Plan, sel *ast.SelectStmt, from, where string, keyOrder bool) error {
	fields := make([]string, 0, len(sel.Fields.Fields))
	wildcard := false
	for _, f := range sel.Fields.Fields {
		s, err := sqlparse.Restore(f)
		if err != nil {
			return notDist("cannot render select field: %v", err)
		}
		if f.WildCard != nil {
			wildcard = true
		}
		fields = append(fields, s)
	}
	var fragOrder []string
	if sel.OrderBy != nil {
		for _, it := range sel.OrderBy.Items {
			if isNullLiteral(it.Expr) {
				continue
			}
			idx, err := outputIndex(sel, it.Expr, !wildcard)
			if err != nil {
				return err
			}
			if idx < 0 {
				s, err := sqlparse.Restore(it.Expr)
				if err != nil {
					return notDist("cannot render ORDER BY: %v", err)
				}
				if containsAggregate(it.Expr) {
					return notDist("aggregate in ORDER BY of a non-aggregate query")
				}
				fields = append(fields, s+" AS `__shoal_h"+fmt.Sprint(p.Hidden)+"`")
				p.OrderBy = append(p.OrderBy, OrderItem{Expr: fmt.Sprintf("__h%d", p.Hidden), Desc: it.Desc})
				fragOrder = append(fragOrder, "`__shoal_h"+fmt.Sprint(p.Hidden)+"`"+desc(it.Desc))
				p.Hidden++
				continue
			}
			p.OrderBy = append(p.OrderBy, OrderItem{Expr: fmt.Sprintf("__c%d", idx), Desc: it.Desc})
			fragOrder = append(fragOrder, fmt.Sprint(idx+1)+desc(it.Desc))
		}
	}
	if keyOrder && p.Limit >= 0 && len(p.OrderBy) == 0 && !p.WhereKeyOnly {
		// A filter on other columns: MariaDB stops at the n-th match in
		// key order, which may come after a few rows (matches clustered
		// low, as by date in a table loaded in date order), while every
		// fragment would read its range to its own n-th match before the
		// first rows in key order are known.
		return notDist("LIMIT without ORDER BY over a filter: the replica stops at the first rows it meets, in key order")
	}
	if keyOrder && p.Limit >= 0 && len(p.OrderBy) == 0 {
		h := "`__shoal_h" + fmt.Sprint(p.Hidden) + "`"
		fields = append(fields, p.SplitColumn+" AS "+h)
		p.OrderBy = append(p.OrderBy, OrderItem{Expr: fmt.Sprintf("__h%d", p.Hidden)})
		fragOrder = append(fragOrder, h)
		p.Hidden++
		p.Notes = append(p.Notes, "LIMIT without ORDER BY: the first rows in primary key order, as a scan of the table meets them")
	}
	sql := "SELECT " + strings.Join(fields, ", ") + " FROM " + from + " WHERE " + where
	if p.Limit >= 0 {
		if len(fragOrder) > 0 {
			sql += " ORDER BY " + strings.Join(fragOrder, ", ")
		}
		p.PushedLimit = p.Limit + p.Offset
		sql += fmt.Sprintf(" LIMIT %d", p.PushedLimit)
	}
	p.FragmentSQL = sql
	return nil
}

// ordered reports whether sel has an ORDER BY other than ORDER BY NULL.
func ordered(sel *ast.SelectStmt) bool {
	if sel.OrderBy == nil {
		return false
	}
	for _, it := range sel.OrderBy.Items {
		if !isNullLiteral(it.Expr) {
			return true
		}
	}
	return false
}

// indexCovers reports whether some secondary index of t may hold every
// column sel names (outside its subqueries): each is a column of an index
// (t.Indexed, the primary key's included) and t has an index on another
// column than the split column. It may say yes for columns of different
// indexes, or a prefix index, which only sends a statement to a replica
// that could have been split; it needs t's indexes known.
func indexCovers(sel *ast.SelectStmt, t *Table) bool {
	if !secondaryIndex(t) {
		return false
	}
	outside := false
	v := &finder{found: &outside, match: func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectField:
			return x.WildCard != nil
		case *ast.ColumnNameExpr:
			return !slices.ContainsFunc(t.Indexed, func(c string) bool { return strings.EqualFold(c, x.Name.Name.O) })
		}
		return false
	}}
	for _, f := range sel.Fields.Fields {
		f.Accept(v)
	}
	if sel.Where != nil {
		sel.Where.Accept(v)
	}
	return !outside
}

// secondaryIndex reports whether t may have an index besides its primary
// key: a column of an index outside the primary key (the split column,
// or the key columns of a composite or text key), or an index led by
// another column than the key's first (KEY (id) beside PRIMARY KEY
// (tenant_id, id), which AUTO_INCREMENT asks for).
func secondaryIndex(t *Table) bool {
	key := t.KeyColumns
	if len(key) == 0 {
		key = []string{t.SplitColumn}
	}
	inKey := func(c string) bool {
		return slices.ContainsFunc(key, func(k string) bool { return strings.EqualFold(k, c) })
	}
	for _, c := range t.Indexed {
		if !inKey(c) {
			return true
		}
	}
	for _, c := range t.IndexLeads {
		if !strings.EqualFold(c, key[0]) {
			return true
		}
	}
	return false
}

func desc(d bool) string {
	if d {
		return " DESC"
	}
	return ""
}

// outputIndex resolves an ORDER BY item to a select-list position when it
// is an ordinal, an alias, or a bare column selected as such; -1 otherwise.
func outputIndex(sel *ast.SelectStmt, e ast.ExprNode, positional bool) (int, error) {
	switch x := e.(type) {
	case *ast.PositionExpr:
		if x.P != nil {
			return 0, notDist("parameterised ORDER BY position")
		}
		if !positional || x.N < 1 || x.N > len(sel.Fields.Fields) {
			return 0, notDist("ORDER BY position %d", x.N)
		}
		return x.N - 1, nil
	case *ast.ColumnNameExpr:
		if x.Name.Table.O != "" {
			return -1, nil
		}
		if !positional {
			return -1, nil
		}
		for i, f := range sel.Fields.Fields {
			if f.AsName.O != "" && strings.EqualFold(f.AsName.O, x.Name.Name.O) {
				return i, nil
			}
		}
		for i, f := range sel.Fields.Fields {
			if c, ok := f.Expr.(*ast.ColumnNameExpr); ok && f.AsName.O == "" && strings.EqualFold(c.Name.Name.O, x.Name.Name.O) {
				return i, nil
			}
		}
	}
	return -1, nil
}

// colExpr builds an unqualified column reference used by the final stage.
func colExpr(name string) *ast.ColumnNameExpr {
	return &ast.ColumnNameExpr{Name: &ast.ColumnName{Name: ast.NewCIStr(name)}}
}

func paren(e ast.ExprNode) ast.ExprNode { return &ast.ParenthesesExpr{Expr: e} }

func div(l, r ast.ExprNode) ast.ExprNode {
	return &ast.BinaryOperationExpr{Op: opcode.Div, L: paren(l), R: paren(r)}
}

// nameFields gives every unaliased select field the name MySQL gives its
// result column — the column name for a column reference, the expression's
// text as the client wrote it otherwise — so that the metadata statement,
// once restored, reports the same column names as the original.
func nameFields(sel *ast.SelectStmt) error {
	for _, f := range sel.Fields.Fields {
		if f.WildCard != nil || f.AsName.O != "" {
			continue
		}
		if c, ok := f.Expr.(*ast.ColumnNameExpr); ok {
			f.AsName = ast.NewCIStr(c.Name.Name.O)
			continue
		}
		name := strings.TrimSpace(f.Text())
		if name == "" || len(name) > 256 {
			return notDist("select expression without a usable name")
		}
		f.AsName = ast.NewCIStr(name)
	}
	return nil
}
