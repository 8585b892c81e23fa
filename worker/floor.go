package worker

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/shoaldb/shoal/gtid"
	"github.com/shoaldb/shoal/sqlerr"
)

// Freshness floor.
//
// A ticket may carry a GTID position (the coordinator's consistency mode
// picks it: the primary's position at statement start, or the lowest one
// the healthy replicas reported). Before the fragment's transaction starts,
// the worker waits on its replica until that position is applied —
// MASTER_GTID_WAIT on MariaDB, WAIT_FOR_EXECUTED_GTID_SET on MySQL — for
// at most the ticket's wait (and never past the fragment's deadline). The
// transaction's snapshot is taken after the wait, so the fragment sees at
// least the floor. A replica that does not get there in time fails the
// fragment with sqlerr.ErrReplicaBehind (gRPC Unavailable), which the
// coordinator retries on another replica.

// floor is the freshness floor of one fragment.
type floor struct {
	gtid string        // "" when there is none
	wait time.Duration // 0: until the deadline
}

// waitFloor blocks until conn's server has applied f.gtid, f.wait passes
// or ctx ends. The watcher of the fragment KILLs the wait if ctx ends.
func waitFloor(ctx context.Context, conn *sql.Conn, mariadb bool, f floor, replica string) error {
	wait := f.wait
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl); wait <= 0 || left < wait {
			wait = left
		}
	}
	if wait <= 0 {
		return context.DeadlineExceeded
	}
	// Both functions take fractional seconds; both answer 0 when the
	// position is reached. On timeout MariaDB answers -1, MySQL 1.
	q := "SELECT " + gtid.WaitFunction(mariadb) + "(?, ?)"
	secs := float64(wait.Milliseconds()) / 1000
	var res sql.NullInt64
	if err := conn.QueryRowContext(ctx, q, f.gtid, secs).Scan(&res); err != nil {
		return fromReplica(fmt.Errorf("waiting for GTID position %s: %w", f.gtid, err))
	}
	if !res.Valid {
		return sqlerr.New(sqlerr.ErrUnknown, "HY000", "waiting for GTID position %s: the replica answered NULL (is GTID replication configured?)", f.gtid)
	}
	if res.Int64 != 0 {
		return sqlerr.ReplicaBehind(replica, f.gtid, wait.Round(time.Millisecond))
	}
	return nil
}
