// Package arrowexec holds Shoal's execution operators over Arrow record
// batches: the hash-aggregate merge, sorting and top-N, and the conversions
// between Arrow values and MySQL values.
//
// Why Arrow: workers stream fragment results as Arrow record batches over
// Flight, and pinned tables are held as Arrow in memory. Working on columns
// lets an operator switch on a column's type once per batch instead of once
// per value, keeps the per-row cost of a merge to a map probe and a few
// typed additions, and avoids turning every partial result into text.
// Operators copy what they keep, so a batch can be released as soon as the
// operator returns.
//
// What the operators guarantee, relative to MySQL on the same data:
//
//   - Grouping is MySQL's: NULL is a group of its own; strings group under
//     the column's collation (case- and accent-folding per the collation,
//     trailing spaces ignored under PAD SPACE collations), the displayed key
//     being the first spelling seen; numbers, dates and datetimes group by
//     value (0 and -0 are one group).
//   - COUNT merges to an exact BIGINT, 0 over no rows; SUM over DECIMAL or
//     integer partials is exact (256-bit accumulation, ample for 65 digits),
//     NULL when every partial is NULL; MIN and MAX compare numbers by value,
//     strings under the collation (the first of equal values is kept) and
//     binary strings byte by byte.
//   - An aggregate with no GROUP BY over no input yields one row (COUNT 0,
//     everything else NULL); with GROUP BY it yields none.
//   - Sorting puts NULLs first ascending and last descending, compares
//     numbers by value across integer, decimal and float types, strings under
//     the collation, and is stable.
//
// Values leave the package as vitess sqltypes.Value with the MySQL type that
// matches the Arrow type (and the field's "mysql.type" metadata where an
// Arrow type is shared by several MySQL types); formatting a value to the
// query's declared column metadata (DATETIME precision, DECIMAL scale of an
// expression) is the result writer's job.
//
// Unless a type says otherwise, operators are not safe for concurrent use:
// one goroutine drives each operator.
package arrowexec
