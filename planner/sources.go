package planner

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// source is one table of the FROM clause.
type source struct {
	ts    *ast.TableSource
	tn    *ast.TableName
	alias string // the name columns qualify it with
	tbl   *Table
	// nullable is true when the table is on the null-supplying side of an
	// outer join: some output rows have no row of it.
	nullable bool
}

// sources collects the tables of a FROM clause made of plain tables joined
// with inner, cross, LEFT and RIGHT joins (ON conditions). Derived tables,
// USING and NATURAL joins are not distributed (yet).
func sources(cat Catalog, db string, j *ast.Join) ([]*source, error) {
	var out []*source
	var walk func(n ast.ResultSetNode, nullable bool) error
	walk = func(n ast.ResultSetNode, nullable bool) error {
		switch x := n.(type) {
		case *ast.Join:
			if x.NaturalJoin || len(x.Using) > 0 {
				return notDist("NATURAL or USING join")
			}
			if x.Right == nil {
				return walk(x.Left, nullable)
			}
			ln, rn := nullable, nullable
			switch x.Tp {
			case ast.LeftJoin:
				rn = true
			case ast.RightJoin:
				ln = true
			}
			if err := walk(x.Left, ln); err != nil {
				return err
			}
			return walk(x.Right, rn)
		case *ast.TableSource:
			tn, ok := x.Source.(*ast.TableName)
			if !ok {
				return notDist("derived table in FROM")
			}
			if tn.AsOf != nil || tn.TableSample != nil {
				return notDist("AS OF / TABLESAMPLE")
			}
			schema := tn.Schema.O
			if schema == "" {
				schema = db
			}
			if schema == "" {
				return notDist("no database selected")
			}
			tbl, ok := cat.Table(schema, tn.Name.O)
			if !ok {
				return notDist("table %s.%s is not in the catalog", schema, tn.Name.O)
			}
			alias := x.AsName.O
			if alias == "" {
				alias = tbl.Name
			}
			for _, s := range out {
				if s.alias == alias {
					return notDist("table name %s used twice", alias)
				}
			}
			out = append(out, &source{ts: x, tn: tn, alias: alias, tbl: tbl, nullable: nullable})
			return nil
		}
		return notDist("unsupported FROM item %T", n)
	}
	if err := walk(j, false); err != nil {
		return nil, err
	}
	return out, nil
}

// chooseSplit picks the table to split: the largest splittable table
// (by the catalog's row estimate) that is on the preserved side of every
// outer join, so that every output row comes from exactly one of its rows.
// When no table has a usable key it returns the largest table, whose
// Split() is SplitNone: the plan is then one fragment.
func chooseSplit(srcs []*source) (*source, string, error) {
	for _, s := range srcs {
		if s.tbl.Pinned {
			return choosePinned(srcs)
		}
	}
	var best, largest *source
	for _, s := range srcs {
		if largest == nil || s.tbl.Rows > largest.tbl.Rows {
			largest = s
		}
		if s.tbl.Split() == SplitNone {
			continue
		}
		if best == nil || s.tbl.Rows > best.tbl.Rows {
			best = s
		}
	}
	if best == nil {
		if len(largest.tbl.Partitions) > 1 {
			// Nothing to cut on but the table's partitions: one fragment
			// per partition (select.go); which table is named does not
			// matter otherwise, as no range is bound.
			return largest, "no integer primary key (nor DATE, DATETIME or other primary key) and no configured split column: one fragment", nil
		}
		// Nothing to cut on at all: one fragment would run the replica's
		// own plan on one core behind an extra hop (and describe its
		// columns less exactly), so the replica answers it.
		if why := largest.tbl.Unsplittable; why != "" {
			return nil, "", notDist("no table to split: %s's primary key cannot be cut into ranges (%s; a split_columns entry can name another column), and one fragment would only add a hop to the replica's own plan", largest.tbl.Name, why)
		}
		return nil, "", notDist("no table to split: %s has no primary key (nor a configured split column), and one fragment would only add a hop to the replica's own plan", largest.tbl.Name)
	}
	if best.nullable {
		return nil, "", notDist("the largest table %s is on the null-supplying side of an outer join", best.tbl.Name)
	}
	why := fmt.Sprintf("largest table (~%d rows)", best.tbl.Rows)
	if len(srcs) > 1 {
		why += fmt.Sprintf(", preserved side of every join; %d other table(s) joined inside each fragment", len(srcs)-1)
	}
	return best, why, nil
}

// choosePinned is chooseSplit when a table of FROM is pinned. One pinned
// table runs in memory alone. A join runs in memory only when every table
// is pinned (the coordinator holds no replica table): the largest table on
// the preserved side of every outer join is split across the cores, and
// each other table becomes a hash table its partitions probe. A join of a
// pinned table with a replica table is refused here, so that a whole-table
// pin falls back to the replicas.
func choosePinned(srcs []*source) (*source, string, error) {
	var best *source
	for _, s := range srcs {
		if !s.tbl.Pinned {
			for _, p := range srcs {
				if p.tbl.Pinned {
					return nil, "", notDist("pinned table %s.%s is joined with replica table %s.%s; a join runs in memory only when every table is pinned", p.tbl.Schema, p.tbl.Name, s.tbl.Schema, s.tbl.Name)
				}
			}
		}
		if best == nil || s.tbl.Rows > best.tbl.Rows {
			best = s
		}
	}
	if len(srcs) == 1 {
		return srcs[0], fmt.Sprintf("pinned in memory (%d rows): runs on the coordinator", srcs[0].tbl.Rows), nil
	}
	if best.nullable {
		// Splitting a smaller table would build the largest into a hash
		// table.
		return nil, "", notDist("the largest pinned table %s.%s is on the null-supplying side of an outer join; in memory it must be the preserved side", best.tbl.Schema, best.tbl.Name)
	}
	var probed []string
	for _, s := range srcs {
		if s != best {
			probed = append(probed, fmt.Sprintf("%s.%s (%d rows)", s.tbl.Schema, s.tbl.Name, s.tbl.Rows))
		}
	}
	return best, fmt.Sprintf("pinned in memory (%d rows): join of %d pinned tables runs on the coordinator; %s.%s is split and probes hash tables of %s",
		best.tbl.Rows, len(srcs), best.tbl.Schema, best.tbl.Name, strings.Join(probed, ", ")), nil
}
