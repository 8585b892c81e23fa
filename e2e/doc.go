// Package e2e proves Shoal differentially: a local cluster (a MariaDB
// primary and two GTID replicas, started by the tests) is loaded with the
// ontime sample, workers and a coordinator run in-process, and every query
// runs through Shoal and directly on the primary. Rows, column names and
// column types must be equal.
//
// It imports anything (a tool package, see internal/archtest); nothing
// imports it.
package e2e
