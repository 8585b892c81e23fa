// Package measure holds what every `shoal bench` workload shares: opening
// the local cluster's two sides (a replica directly, the coordinator), a
// statement timed with its answer read as text, answers compared as sorted
// rows, EXPLAIN [ANALYZE] read into an Analysis, exact latency summaries,
// a Prometheus scrape, and the number formats of the report tables.
//
// It is the bottom of the bench packages: it imports no other bench
// package, only the standard library, the MySQL driver and
// deploy/localcluster. Every workload package (scan, pinbench, dashboard,
// live) may import it; e2e reads ParseAnalysis and Summarize from it.
package measure
