package worker

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/shoaldb/shoal/gtid"
)

// statusTimeout bounds the replica queries behind one status report.
const statusTimeout = 2 * time.Second

// Status is what a worker reports about itself and its replica, the body of
// the "status" action (JSON). The scheduler sizes its queue from Slots and
// skips unhealthy or lagging replicas.
type Status struct {
	// CPUs is runtime.NumCPU() of the worker's host.
	CPUs int `json:"cpus"`
	// Slots is how many fragments run at once; Running how many do now.
	Slots   int `json:"slots"`
	Running int `json:"running"`
	// Served counts fragments completed since start.
	Served uint64 `json:"served"`
	// ReplicaLagSeconds is Seconds_Behind_Master; nil when the server is not
	// a replica or the lag is unknown (replication stopped).
	ReplicaLagSeconds *float64 `json:"replica_lag_seconds"`
	// IsReplica is true when the server has a replication source
	// configured (SHOW SLAVE STATUS has a row).
	IsReplica  bool `json:"is_replica"`
	IORunning  bool `json:"io_running"`
	SQLRunning bool `json:"sql_running"`
	// GTIDExecuted is @@gtid_slave_pos/@@gtid_current_pos on MariaDB and
	// @@gtid_executed on MySQL.
	GTIDExecuted string `json:"gtid_executed"`
	ReadOnly     bool   `json:"read_only"`
	// Version is the replica's @@version.
	Version string `json:"version"`
	// Healthy is true when the replica answered and, if it is a replica,
	// both replication threads run.
	Healthy bool `json:"healthy"`
	// Error says why the worker is not healthy.
	Error string `json:"error,omitempty"`
}

// status gathers a Status; replica errors are reported in it, not returned.
func (s *Server) status(ctx context.Context) Status {
	st := Status{
		CPUs:    runtime.NumCPU(),
		Slots:   s.slots,
		Running: int(s.running.Load()),
		Served:  s.served.Load(),
	}
	ctx, cancel := context.WithTimeout(ctx, statusTimeout)
	defer cancel()
	if err := s.replicaStatus(ctx, &st); err != nil {
		st.Healthy = false
		st.Error = err.Error()
	}
	return st
}

func (s *Server) replicaStatus(ctx context.Context, st *Status) error {
	var readOnly int
	if err := s.db.QueryRowContext(ctx, "SELECT @@version, @@read_only").Scan(&st.Version, &readOnly); err != nil {
		return fmt.Errorf("replica unreachable: %w", err)
	}
	st.ReadOnly = readOnly != 0
	mariadb := gtid.IsMariaDB(st.Version)

	var repl map[string]string
	var err error
	if mariadb {
		repl, err = showStatus(ctx, s.db, "SHOW ALL SLAVES STATUS")
	} else {
		repl, err = showStatus(ctx, s.db, "SHOW REPLICA STATUS")
		if err != nil {
			repl, err = showStatus(ctx, s.db, "SHOW SLAVE STATUS")
		}
	}
	if err != nil {
		return fmt.Errorf("reading replication status: %w", err)
	}
	isReplica := repl != nil
	st.IsReplica = isReplica
	if isReplica {
		st.IORunning = pick(repl, "Slave_IO_Running", "Replica_IO_Running") == "Yes"
		st.SQLRunning = pick(repl, "Slave_SQL_Running", "Replica_SQL_Running") == "Yes"
		if lag := pick(repl, "Seconds_Behind_Master", "Seconds_Behind_Source"); lag != "" {
			if f, err := strconv.ParseFloat(lag, 64); err == nil {
				st.ReplicaLagSeconds = &f
			}
		}
	}

	gtidVar := "@@gtid_executed"
	if mariadb {
		gtidVar = "@@gtid_current_pos"
		if isReplica {
			gtidVar = "@@gtid_slave_pos"
		}
	}
	var gtid sql.NullString
	if err := s.db.QueryRowContext(ctx, "SELECT "+gtidVar).Scan(&gtid); err != nil {
		return fmt.Errorf("reading %s: %w", gtidVar, err)
	}
	st.GTIDExecuted = strings.ReplaceAll(gtid.String, "\n", "")

	switch {
	case isReplica && !st.IORunning:
		return fmt.Errorf("replication IO thread is not running: %s", pick(repl, "Last_IO_Error"))
	case isReplica && !st.SQLRunning:
		return fmt.Errorf("replication SQL thread is not running: %s", pick(repl, "Last_SQL_Error"))
	}
	st.Healthy = true
	return nil
}

// showStatus runs a SHOW ... STATUS and returns the first row by column
// name, or nil when it has no rows (not a replica). With several
// replication sources, the default (unnamed) connection wins.
func showStatus(ctx context.Context, db *sql.DB, query string) (map[string]string, error) {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var first map[string]string
	vals := make([]sql.NullString, len(cols))
	dest := make([]any, len(cols))
	for i := range vals {
		dest[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		m := make(map[string]string, len(cols))
		for i, c := range cols {
			m[c] = vals[i].String
		}
		if first == nil || m["Connection_name"] == "" {
			first = m
		}
	}
	return first, rows.Err()
}

func pick(m map[string]string, keys ...string) string {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			return v
		}
	}
	return ""
}
