// Package pinned holds tables (or query results) pinned in the
// coordinator's memory: their storage, their versions and the registry
// that names them. Package pinexec runs fragment statements over them.
//
// Dashboards ask the same few questions of a recent slice of data again and
// again; going back to MySQL for each costs a full scan. A pinned table is
// loaded once through the distributed scan into immutable Arrow record
// batches, encoded for the in-memory engine to read fast: strings with few
// distinct values are dictionary-encoded (a Column's codes index its
// Dict), and integer columns are stored at the narrowest width their
// values need (narrow.go). A Column's Value reads one row as a MySQL value
// typed as the column, the way queries see it.
//
// A Table is immutable once built and shared by every reader; REFRESH
// builds a new one and swaps it in the Registry. Its buffers come from the
// Go allocator and are reclaimed by the garbage collector when the last
// reader drops the table, so readers never block and never take locks.
// An incremental refresh (Append, append.go) builds the new version over
// the old one's record batches, which both versions then share; a live
// pin composes each version from the previous one's (Compose, compose.go),
// a batch with a few changed rows spliced: its other rows' encoded values
// copied, the changed ones alone encoded (splice.go). Composed versions
// share each dictionary column's index of values, append-only (dictIndex).
// Structures the query engine derives from one version alone (dictionary
// orders, code values, group-key tables) are kept on the version and built
// once (Table.Shared, derived.go).
//
// What it owns: Table, Column and their encoding, building, appending and
// composing versions, their size accounting, and the Registry. What it may
// import: Arrow, vitess' value and field types, and the leaf arrowexec
// (field types of a load). It knows nothing of SQL statements: package
// pinexec imports it, never the reverse.
package pinned
