package engine

import (
	"context"
	"time"

	"github.com/shoaldb/shoal/engine/coldefs"
	"github.com/shoaldb/shoal/replica"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// Metadata of prepared statements (COM_STMT_PREPARE): the result columns a
// statement announces, read from a replica once per catalog generation and
// cached with the plans.

// CachedPrepare returns the cached parameter count and result columns of
// query prepared in database db (shared: clone before handing them out).
func (s *Engine) CachedPrepare(db, query string) (fields []*querypb.Field, params uint16, ok bool) {
	e, ok := s.plans.get(prepareKey(db, query), gen{snap: s.snap.Load()})
	if !ok {
		return nil, 0, false
	}
	return e.fields, e.params, true
}

// CachePrepare remembers the metadata of query prepared in db for the
// current catalog generation.
func (s *Engine) CachePrepare(db, query string, fields []*querypb.Field, params uint16) {
	g := gen{snap: s.snap.Load()}
	s.plans.put(prepareKey(db, query), g.stamp(&cacheEntry{params: params, fields: fields}, nil, false))
}

// Describe runs meta on the session's replica connection and returns its
// columns, or nil if it fails: the columns of COM_STMT_PREPARE are
// advisory, clients read the real ones from each execution. err is the
// statement's own error, which its prepare fails with (coldefs.PrepareError).
func (s *Engine) Describe(ctx context.Context, ss *Session, meta string) ([]*querypb.Field, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	b, err := s.rep.SessionBackend(ctx, ss)
	if err != nil {
		return nil, nil
	}
	if err := b.Use(ss.DB); err != nil {
		if replica.Broken(err) {
			ss.CloseBackend()
		}
		return nil, nil
	}
	res, err := b.Fetch(meta, 0)
	if err != nil {
		if replica.Broken(err) {
			ss.CloseBackend()
		}
		return nil, coldefs.PrepareError(err, len(s.pins.Results()) == 0)
	}
	return res.Fields, nil
}

// OnReplica runs fn on a read-only connection to a healthy replica of its
// own (with the floor and KILL handling of passthrough not needed: fn
// reads metadata), closed afterwards.
func (s *Engine) OnReplica(ctx context.Context, fn func(*replica.Conn) error) error {
	ss := &Session{}
	defer ss.CloseBackend()
	b, err := s.rep.SessionBackend(ctx, ss)
	if err != nil {
		return err
	}
	return fn(b)
}
