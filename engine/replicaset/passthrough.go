package replicaset

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/shoaldb/shoal/replica"
	"github.com/shoaldb/shoal/sqlerr"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// SessionBackend returns the session's replica connection, opening it on a
// healthy replica (and replaying the session's SETs) if needed. A new
// connection goes to the healthy replica with the fewest open session
// connections (ties to the first configured): the sessions' passthrough
// statements spread over the replicas instead of all landing on the first.
func (s *Set) SessionBackend(ctx context.Context, ss *Session) (*replica.Conn, error) {
	if ss.backend != nil {
		if s.ServesReads(ss.backend.Addr) {
			return ss.backend, nil
		}
		ss.CloseBackend() // its replica turned unhealthy: move the session
	}
	last := ErrNoReplica()
	for _, i := range s.bySessions() {
		b, err := s.metas[i].Dial(ctx, "")
		if err != nil {
			last = err
			continue
		}
		// Passthrough never writes: the session is read-only on the replica
		// too, belt and braces with the classifier.
		if _, err := b.Fetch("SET SESSION TRANSACTION READ ONLY", 0); err != nil {
			b.Close()
			last = err
			continue
		}
		for _, set := range ss.sets.statements() {
			if _, err := b.Fetch(set, 0); err != nil {
				b.Close()
				return nil, err
			}
		}
		ss.backend = b
		ss.open = &s.sessions[i]
		ss.open.Add(1)
		return b, nil
	}
	return nil, last
}

// bySessions lists the healthy replicas (indexes into metas) by their
// open session connections, fewest first; equal counts keep the
// configured order.
func (s *Set) bySessions() []int {
	out := make([]int, 0, len(s.workers))
	for i, w := range s.workers {
		if w.Healthy() {
			out = append(out, i)
		}
	}
	slices.SortStableFunc(out, func(a, b int) int {
		return cmp.Compare(s.sessions[a].Load(), s.sessions[b].Load())
	})
	return out
}

// SessionCounts is the number of open session connections per replica,
// in configuration order.
func (s *Set) SessionCounts() []int64 {
	out := make([]int64, len(s.sessions))
	for i := range s.sessions {
		out[i] = s.sessions[i].Load()
	}
	return out
}

// killOnCancel sends KILL QUERY for the replica connection b, through a
// side connection, if ctx ends before stop is called: a passthrough
// statement blocked on its replica stops there too. stop waits for a KILL
// in flight and reports whether one was sent (b must then be discarded).
func (s *Set) killOnCancel(ctx context.Context, b *replica.Conn) (stop func() bool) {
	var wg sync.WaitGroup
	wg.Add(1)
	fired := false
	stopFn := context.AfterFunc(ctx, func() {
		defer wg.Done()
		fired = true
		kctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		k, err := replica.Dial(kctx, b.Addr, s.cfg.ReplicaUser, s.cfg.ReplicaPassword, "")
		if err != nil {
			s.log.Warn("KILL QUERY on the replica failed; the statement may keep running there", "replica", b.Addr, "err", err)
			return
		}
		defer k.Close()
		if _, err := k.Fetch("KILL QUERY "+strconv.FormatUint(uint64(b.MySQL.ID()), 10), 0); err != nil {
			s.log.Warn("KILL QUERY on the replica failed", "replica", b.Addr, "err", err)
		}
	})
	return func() bool {
		if stopFn() {
			wg.Done()
			return false
		}
		wg.Wait()
		return fired
	}
}

// StartPassthrough sends query on the session's replica connection and
// returns it with the result pending (its column definitions read), and the stop function of its
// killOnCancel watcher, which the caller must call when done. A
// connection found broken before anything reached the client (its replica
// restarted since it was opened, say) is replaced and the statement sent
// once more: passthrough statements are reads (and SETs, replayed anyway),
// so that is safe. Under a consistency mode the statement first waits for
// the replica to reach its floor (consistency.go); a replica that does not
// is taken out of service and the session moves to another healthy one.
func (s *Set) StartPassthrough(ctx context.Context, ss *Session, query string) (*replica.Stream, func() bool, error) {
	fl, err := s.QueryFloor(ctx)
	if err != nil {
		return nil, nil, err
	}
	var behind error // the last replica found behind the floor
	tries := 0       // replicas found behind
	for attempt := 0; ; attempt++ {
		b, err := s.SessionBackend(ctx, ss)
		if err != nil {
			if behind != nil {
				return nil, nil, behind
			}
			return nil, nil, err
		}
		if err = b.Use(ss.DB); err == nil {
			stop := s.killOnCancel(ctx, b)
			if err = s.WaitFloorOn(ctx, b, fl); err == nil {
				var st *replica.Stream
				if st, err = b.StartStream(query); err == nil {
					return st, stop, nil
				}
			}
			if stop() {
				ss.CloseBackend() // KILLed: the connection's state is unknown
				return nil, nil, err
			}
			if sqlerr.IsReplicaBehind(err) && tries < len(s.workers) {
				// sessionBackend skips the replica until its next poll.
				tries++
				behind = err
				s.MarkBehind(b.Addr, err)
				ss.CloseBackend()
				attempt--
				continue
			}
		}
		if !replica.Broken(err) {
			return nil, nil, err
		}
		ss.CloseBackend()
		if attempt > 0 || ctx.Err() != nil {
			return nil, nil, err
		}
		s.log.Info("passthrough connection broken; reconnecting once", "replica", b.Addr, "err", err)
	}
}

// StartBinary runs query as StartPassthrough does (the session's replica,
// after its floor), but as a prepared statement on a connection of its
// own (replica.QueryBinary) that replays the session's SETs, and hands
// its rows to emit as values of fields' types: for a client reading the binary
// protocol, where a DOUBLE with fixed decimals keeps every bit that the
// text protocol's decimals drop.
func (s *Set) StartBinary(ctx context.Context, ss *Session, query string, fields []*querypb.Field, chunk int, emit func([][]sqltypes.Value) error) error {
	fl, err := s.QueryFloor(ctx)
	if err != nil {
		return err
	}
	b, err := s.SessionBackend(ctx, ss)
	if err != nil {
		return err
	}
	if err := s.WaitFloorOn(ctx, b, fl); err != nil {
		return err
	}
	setup := append([]string{"SET SESSION TRANSACTION READ ONLY"}, ss.sets.statements()...)
	return replica.QueryBinary(ctx, b.Addr, s.cfg.ReplicaUser, s.cfg.ReplicaPassword, ss.DB, setup, query, fields, chunk, emit)
}
