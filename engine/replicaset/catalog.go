package replicaset

import (
	"context"
	"fmt"
	"time"

	"github.com/shoaldb/shoal/engine/catalog"
	"github.com/shoaldb/shoal/evalexpr"
	"github.com/shoaldb/shoal/replica"
	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/sqltypes"
)

// ReadCatalog reads the catalog from the first replica that answers,
// healthy ones first, reusing old's split-key samples where they still
// hold.
func (s *Set) ReadCatalog(ctx context.Context, old *catalog.Snapshot) (*catalog.Snapshot, error) {
	var last error
	for _, p := range s.OrderedMetas() {
		b, err := p.Get(ctx)
		if err != nil {
			last = err
			continue
		}
		snap, err := catalog.Read(ctx, b, s.CatalogOptions(), old, s.log) // tables, then split-key samples
		p.Put(b, err)
		if err != nil {
			last = err
			continue
		}
		return snap, nil
	}
	return nil, last
}

// OrderedMetas lists the replicas' metadata pools, healthy ones first.
func (s *Set) OrderedMetas() []*replica.Pool {
	out := make([]*replica.Pool, 0, len(s.metas))
	for i, w := range s.workers {
		if w.Healthy() {
			out = append(out, s.metas[i])
		}
	}
	for i, w := range s.workers {
		if !w.Healthy() {
			out = append(out, s.metas[i])
		}
	}
	return out
}

// OnMeta runs fn on a pooled metadata connection, trying the replicas
// healthy ones first, and returns each connection to its own pool. An
// error of fn that says the connection is gone (replica.Broken: a replica
// killed since the last status poll) moves on to the next replica; any
// other error — the replica's answer to the statement — is returned. fn
// returns only errors of the connection's statements; what it makes of
// their answers it keeps itself.
func (s *Set) OnMeta(ctx context.Context, fn func(*replica.Conn) error) error {
	last := ErrNoReplica()
	for _, p := range s.OrderedMetas() {
		b, err := p.Get(ctx)
		if err == nil {
			err = fn(b)
			p.Put(b, err)
			if err == nil || !replica.Broken(err) {
				return err
			}
		}
		if ctx.Err() != nil {
			return err
		}
		last = err
	}
	return last
}

// CatalogOptions sizes the split-key samples for today's workers.
func (s *Set) CatalogOptions() catalog.Options {
	slots := 0
	for _, w := range s.workers {
		slots += w.Slots()
	}
	return catalog.Options{SplitColumns: s.cfg.SplitColumns, MinRowsPerFragment: s.cfg.MinRowsPerFragment,
		Fragments: slots * s.cfg.FragmentsPerSlot}
}

// CaseMap reads a collation's case mapping from a replica (for LOWER and
// UPPER in the final stage, evalexpr/casemap.go).
func (s *Set) CaseMap(ctx context.Context, coll collations.ID) (*evalexpr.CaseMap, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var names, mapped *sqltypes.Result
	var runes []rune
	var qerr error
	err := s.OnMeta(ctx, func(b *replica.Conn) error {
		var err error
		names, err = b.Fetch(fmt.Sprintf("SELECT CHARACTER_SET_NAME, COLLATION_NAME FROM information_schema.COLLATIONS WHERE ID = %d", coll), 2)
		if err != nil || len(names.Rows) != 1 {
			return err
		}
		var q string
		if q, runes, qerr = evalexpr.CaseMapQuery(names.Rows[0][0].ToString(), names.Rows[0][1].ToString()); qerr != nil {
			return nil
		}
		mapped, err = b.Fetch(q, 1)
		return err
	})
	switch {
	case err != nil:
		return nil, err
	case len(names.Rows) != 1:
		return nil, fmt.Errorf("the replica has no collation %d", coll)
	case qerr != nil:
		return nil, qerr
	case len(mapped.Rows) != 1 || len(mapped.Rows[0]) != 2:
		return nil, fmt.Errorf("case mapping of collation %d: no answer", coll)
	}
	return evalexpr.ParseCaseMap(runes, mapped.Rows[0][0].Raw(), mapped.Rows[0][1].Raw())
}
