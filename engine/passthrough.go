package engine

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/shoaldb/shoal/observe"
	"github.com/shoaldb/shoal/replica"
	"github.com/shoaldb/shoal/sqlerr"
	"vitess.io/vitess/go/sqltypes"
)

// Passthrough runs query verbatim on the session's replica connection and
// streams the replica's result — column definitions, rows, or error with
// its own code — to the client.
func (s *Engine) Passthrough(ctx context.Context, ss *Session, query string, callback func(*sqltypes.Result) error) error {
	ss.Kind = observe.KindPassthrough
	b, stop, err := s.rep.startPassthrough(ctx, ss, query)
	if err != nil {
		return err
	}
	defer func() {
		if stop() {
			ss.CloseBackend() // KILLed: the connection's state is unknown
		}
	}()
	defer b.MySQL.CloseResult()
	fields, err := b.MySQL.Fields()
	if err != nil {
		ss.CloseBackend()
		return err
	}
	if len(fields) == 0 {
		return callback(&sqltypes.Result{})
	}
	if err := callback(&sqltypes.Result{Fields: fields}); err != nil {
		return err
	}
	// Rows grow by append up to a chunk: most passthrough statements
	// return one row or a few, and a chunk's worth of row headers (6 KB)
	// allocated up front per statement was most of their garbage.
	var rows [][]sqltypes.Value
	for {
		if ctx.Err() != nil {
			ss.CloseBackend()
			return ctx.Err()
		}
		row, err := b.MySQL.FetchNext(nil)
		if err != nil {
			if replica.Broken(err) {
				ss.CloseBackend()
			}
			return err
		}
		if row == nil {
			break
		}
		rows = append(rows, row)
		if len(rows) == chunkRows {
			if err := callback(&sqltypes.Result{Rows: rows}); err != nil {
				return err
			}
			rows = make([][]sqltypes.Value, 0, chunkRows) // a large result: chunks from here on
		}
	}
	if len(rows) > 0 {
		return callback(&sqltypes.Result{Rows: rows})
	}
	return nil
}

// sessionBackend returns the session's replica connection, opening it on a
// healthy replica (and replaying the session's SETs) if needed.
func (s *replicas) sessionBackend(ctx context.Context, ss *Session) (*replica.Conn, error) {
	if ss.backend != nil {
		if s.servesReads(ss.backend.Addr) {
			return ss.backend, nil
		}
		ss.CloseBackend() // its replica turned unhealthy: move the session
	}
	last := errNoReplica()
	for _, p := range s.healthyMetas() {
		b, err := p.Dial(ctx, "")
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
		for _, set := range ss.sets {
			if _, err := b.Fetch(set, 0); err != nil {
				b.Close()
				return nil, err
			}
		}
		ss.backend = b
		return b, nil
	}
	return nil, last
}

// killOnCancel sends KILL QUERY for the replica connection b, through a
// side connection, if ctx ends before stop is called: a passthrough
// statement blocked on its replica stops there too. stop waits for a KILL
// in flight and reports whether one was sent (b must then be discarded).
func (s *replicas) killOnCancel(ctx context.Context, b *replica.Conn) (stop func() bool) {
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

// startPassthrough sends query on the session's replica connection and
// returns it with the result pending, and the stop function of its
// killOnCancel watcher, which the caller must call when done. A
// connection found broken before anything reached the client (its replica
// restarted since it was opened, say) is replaced and the statement sent
// once more: passthrough statements are reads (and SETs, replayed anyway),
// so that is safe. Under a consistency mode the statement first waits for
// the replica to reach its floor (consistency.go); a replica that does not
// is taken out of service and the session moves to another healthy one.
func (s *replicas) startPassthrough(ctx context.Context, ss *Session, query string) (*replica.Conn, func() bool, error) {
	fl, err := s.queryFloor(ctx)
	if err != nil {
		return nil, nil, err
	}
	var behind error // the last replica found behind the floor
	tries := 0       // replicas found behind
	for attempt := 0; ; attempt++ {
		b, err := s.sessionBackend(ctx, ss)
		if err != nil {
			if behind != nil {
				return nil, nil, behind
			}
			return nil, nil, err
		}
		if err = b.Use(ss.DB); err == nil {
			stop := s.killOnCancel(ctx, b)
			if err = s.waitFloorOn(ctx, b, fl); err == nil {
				if err = b.MySQL.ExecuteStreamFetch(query); err == nil {
					return b, stop, nil
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
				s.markBehind(b.Addr, err)
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
