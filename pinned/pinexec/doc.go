// Package pinexec runs fragment statements over pinned tables (package
// pinned): the in-memory, vectorized engine behind CACHE TABLE.
//
// A query over a pinned table is planned exactly as a distributed query
// is, and its fragment statement (filter, group keys, partial aggregates,
// or a projection) runs here over the table's batches instead of on
// replicas, one partition per core. Its output has the schema a worker
// would send, so the merge, final projection, HAVING, ORDER BY and LIMIT
// are the coordinator's shared operators: one merge path, two sources.
//
// Exactness comes from the same place as everywhere else in Shoal: every
// scalar expression is evaluated by vitess' evalengine (MySQL's rules for
// types, NULLs, collations and DECIMAL arithmetic). Speed comes from
// evaluating it once per distinct input instead of once per row where the
// input is small: an expression over one dictionary column or one integer
// column with a narrow range becomes a lookup table indexed by the row's
// code (fast.go, fastfilter.go). Comparisons of numeric and DATETIME
// columns that have no codes (DECIMAL amounts, DOUBLE measures, wide ids)
// with a literal are intervals over the column's own values
// (valfilter.go, package valrange), and a constant expression on a
// comparison's other side is folded to a literal first (package fold).
// Group keys built that way are dense small integers, so grouping is
// array indexing rather than hashing. Statements the fast path does not
// cover run row at a time through evalengine and the hash aggregate
// (exec.go): slower, never different. Joins whose tables are all pinned
// are hash joins (join.go).
//
// What it owns: compiling a fragment into a Program (compile.go), running
// it (exec.go), the vectorized path and its filters, joins, and the
// code-indexed tables a Program shares with every other over the same
// table version (shared.go, kept on the version by pinned.Table.Shared).
// Its subpackages are the parts that know nothing of a Program: literal
// (placing literals), valrange (value filters' intervals), fold (constant
// folding, volatility) and bitarg (BIT_ arguments as MariaDB reads them).
// What it may import: pinned, arrowexec, evalexpr, sqlerr, its
// subpackages and vitess' parser and evalengine types; nothing above the
// leaves.
package pinexec
