// Package dashboard is the BI load of `shoal bench`: closed-loop virtual
// users at rising concurrency, through Shoal and directly, with
// throughput and exact latency percentiles per step.
//
//   - dashboard (cli.go, dashboard.go): 15 chart queries (charts.go) over
//     a recent slice, verified against the replica, then timed per step
//     (load.go); written as a table, CSV (csv.go) and SVG (svg.go).
//   - dashboard --vary (vary.go, vary_run.go): every query with literals
//     of its own so no cache answers, per-chart latency beside a peer
//     engine (DuckDB, from the module bench/duckdb through PeerOpener),
//     and the coordinator's memory under statement churn.
//   - mix (mix.go): a BI-like mix of statement classes, class by class.
//
// It may import bench/measure, deploy/localcluster and internal/cli; no
// other bench package. bench/duckdb and e2e import it (Command,
// PeerOpener, Dashboard, Slice).
package dashboard
