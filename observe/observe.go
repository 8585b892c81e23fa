// Package observe is what an operator sees of a running coordinator: the
// statements' activity and traces (SHOW PROCESSLIST's counters, the status
// page's plans and fragment timelines), the slow query log, Prometheus
// metrics, and the HTTP listener that serves /metrics, /healthz, /status
// and pprof.
//
// It is fed, never imports upward: the engine and the router record into
// an Activity carried in the statement's context and into the Log and
// Metrics they are handed; what the pages list (workers, catalog, pins,
// sessions) comes through the Source interface, which the coordinator's
// wiring implements. observe imports only leaf packages (config, sqlerr,
// pinned, worker for its status type).
package observe

import (
	"time"

	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/worker"
)

// Worker is one replica and its worker as the pages and metrics show it.
type Worker struct {
	Name      string
	MySQL     string // the replica's address
	Addr      string // the worker's Flight address
	Healthy   bool
	LastError string
	Checked   time.Time      // the last status poll; zero: never
	Status    *worker.Status // the last poll's answer; nil when unknown
}

// Source is the running coordinator as observe reads it.
type Source interface {
	// Workers lists the replicas in configuration order.
	Workers() []Worker
	// Catalog describes the current catalog snapshot (loaded false before
	// the first one).
	Catalog() (version string, tables int, loaded bool)
	// Pins lists the pinned tables.
	Pins() []*pinned.Table
	// ProcessList lists every client session, as root sees them.
	ProcessList() []ProcRow
	// MySQLAddr is the MySQL listener's address ("" before it listens).
	MySQLAddr() string
}
