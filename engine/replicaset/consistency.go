package replicaset

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/engine/schedule"
	"github.com/shoaldb/shoal/gtid"
	"github.com/shoaldb/shoal/replica"
	"github.com/shoaldb/shoal/sqlerr"
)

// Freshness floor (config consistency).
//
// Replicas lag. Under consistency none a statement reads whatever its
// replicas have applied (bounded only by max_replica_lag). The other modes
// give every statement a floor, a GTID position read when it starts:
//
//   - primary: the primary's position (@@gtid_current_pos on MariaDB,
//     @@gtid_executed on MySQL), one round trip to the `primary:` server
//     per statement. Every fragment sees at least every transaction
//     committed on the primary before the statement started: a client that
//     wrote through the primary and then reads through Shoal sees its
//     write.
//   - replica-min: the lowest position among the healthy replicas at their
//     last status poll (per MariaDB domain the lowest sequence, for MySQL
//     the intersection of the GTID sets). It costs nothing on the query
//     path and keeps a replica that fell behind that point — restored from
//     an older backup, re-pointed — from answering, but it is no
//     read-your-writes guarantee.
//
// The floor travels in each fragment's ticket; the worker waits on its
// replica until the position is applied, at most consistency_wait, before
// the fragment's transaction starts (worker/floor.go). A replica that does
// not get there fails the fragment with 3781 (ER_GR_HOLD_WAIT_TIMEOUT,
// MySQL's error for a read held waiting for a group member to apply
// preceding transactions); the fragment is retried on another replica and
// the late one gets no fragments until its next status poll. A passthrough
// statement waits the same way on the session's replica connection and
// moves to another healthy replica when it times out. When no replica
// reaches the floor the statement fails: never an answer from stale data.
//
// Every server under replicas: must be a GTID replica of the primary: a
// server without replication never advances its replicated position, so it
// never reaches a floor.

// QueryFloor returns the floor of a statement starting now.
func (s *Set) QueryFloor(ctx context.Context) (schedule.Floor, error) {
	var pos string
	switch s.cfg.Consistency {
	case config.ConsistencyPrimary:
		var err error
		if pos, err = s.primaryPosition(ctx); err != nil {
			return schedule.Floor{}, err
		}
	case config.ConsistencyReplicaMin:
		pos = s.replicaMinPosition()
	}
	if pos == "" {
		return schedule.Floor{}, nil
	}
	return schedule.Floor{GTID: pos, Wait: s.cfg.ConsistencyWait.D()}, nil
}

// primaryPosition reads the primary's GTID position.
func (s *Set) primaryPosition(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ConsistencyWait.D())
	defer cancel()
	fail := func(err error) error {
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			return err // the statement was cancelled
		}
		return sqlerr.Unavailable("consistency primary: cannot read the GTID position of the primary %s: %v", s.cfg.Primary, err)
	}
	b, err := s.primary.Get(ctx)
	if err != nil {
		return "", fail(err)
	}
	q := "SELECT @@GLOBAL.gtid_current_pos"
	if !gtid.IsMariaDB(b.MySQL.ServerVersion) {
		q = "SELECT @@GLOBAL.gtid_executed"
	}
	res, err := replica.FetchCtx(ctx, b, q)
	s.primary.Put(b, err)
	if err != nil {
		return "", fail(err)
	}
	if len(res.Rows) != 1 || len(res.Rows[0]) != 1 {
		return "", fail(fmt.Errorf("%s answered %d rows", q, len(res.Rows)))
	}
	return strings.ReplaceAll(res.Rows[0][0].ToString(), "\n", ""), nil
}

// replicaMinPosition is the lowest GTID position the healthy replicas
// reported at their last poll ("" when there is none).
func (s *Set) replicaMinPosition() string {
	var positions []string
	mariadb := true
	for _, w := range s.workers {
		st := w.Status()
		if !w.Healthy() || st == nil || !st.IsReplica {
			continue
		}
		positions = append(positions, st.GTIDExecuted)
		mariadb = gtid.IsMariaDB(st.Version)
	}
	pos, err := gtid.MinPosition(mariadb, positions)
	if err != nil {
		s.log.Warn("consistency replica-min: cannot compare the replicas' GTID positions; no floor for this statement", "err", err)
		return ""
	}
	return pos
}

// WaitFloorOn waits on the passthrough connection b until its replica has
// applied fl, at most fl.Wait and never past ctx's deadline. The caller's
// killOnCancel watcher interrupts it when ctx ends.
func (s *Set) WaitFloorOn(ctx context.Context, b *replica.Conn, fl schedule.Floor) error {
	if fl.GTID == "" {
		return nil
	}
	wait := fl.Wait
	if dl, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(dl))
	}
	if wait <= 0 {
		return context.DeadlineExceeded
	}
	fn := "MASTER_GTID_WAIT"
	if !gtid.IsMariaDB(b.MySQL.ServerVersion) {
		fn = "WAIT_FOR_EXECUTED_GTID_SET"
	}
	q := fmt.Sprintf("SELECT %s(%s, %.3f)", fn, sqltypes.EncodeStringSQL(fl.GTID), wait.Seconds())
	res, err := b.Fetch(q, 1)
	if err != nil {
		return err
	}
	if len(res.Rows) != 1 || res.Rows[0][0].IsNull() {
		return sqlerr.New(sqlerr.ErrUnknown, "HY000", "waiting for GTID position %s on %s: no answer (is GTID replication configured?)", fl.GTID, b.Addr)
	}
	if n, _ := res.Rows[0][0].ToInt64(); n != 0 {
		return sqlerr.ReplicaBehind(s.ReplicaName(b.Addr), fl.GTID, wait.Round(time.Millisecond))
	}
	return nil
}

// ReplicaName is the configured name of the replica at MySQL address addr.
func (s *Set) ReplicaName(addr string) string {
	for _, w := range s.workers {
		if w.Config().MySQL == addr {
			return w.Name()
		}
	}
	return addr
}

// MarkBehind takes the replica at addr out of service until its next
// poll: it did not reach a statement's floor in time.
func (s *Set) MarkBehind(addr string, err error) {
	for _, w := range s.workers {
		if w.Config().MySQL == addr && w.MarkDown(err.Error()) {
			s.log.Warn("replica behind the consistency floor; not used until its next status poll", "replica", w.Name(), "err", err)
		}
	}
}
