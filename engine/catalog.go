package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/shoaldb/shoal/engine/catalog"
	"github.com/shoaldb/shoal/evalexpr"
	"github.com/shoaldb/shoal/replica"
	"vitess.io/vitess/go/mysql/collations"
)

func (s *Engine) refreshCatalog(ctx context.Context) error {
	var last error
	for _, p := range s.rep.orderedMetas() {
		b, err := p.Get(ctx)
		if err != nil {
			last = err
			continue
		}
		snap, err := catalog.Read(ctx, b, s.catalogOptions(), s.snap.Load(), s.log) // tables, then split-key samples
		p.Put(b, err)
		if err != nil {
			last = err
			continue
		}
		if old := s.snap.Load(); old != nil {
			// Plans depend on the schema, not on row counts or key bounds
			// (fragments read those at execution): keep the cached plans
			// unless the schema changed.
			snap.Gen = old.Gen
			if !catalog.SameSchema(old, snap) {
				snap.Gen++
			}
		}
		s.snap.Store(snap)
		return nil
	}
	return last
}

// orderedMetas lists the replicas' metadata pools, healthy ones first.
func (s *replicas) orderedMetas() []*replica.Pool {
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

// metaPool picks a replica for a metadata read.
func (s *replicas) metaPool() *replica.Pool { return s.orderedMetas()[0] }

// catalogOptions sizes the split-key samples for today's workers.
func (s *Engine) catalogOptions() catalog.Options {
	slots := 0
	for _, w := range s.workers {
		slots += w.Slots()
	}
	return catalog.Options{SplitColumns: s.cfg.SplitColumns, MinRowsPerFragment: s.cfg.MinRowsPerFragment,
		Fragments: slots * s.cfg.FragmentsPerSlot}
}

// caseMap reads a collation's case mapping from a replica (for LOWER and
// UPPER in the final stage, evalexpr/casemap.go).
func (s *Engine) caseMap(coll collations.ID) (*evalexpr.CaseMap, error) {
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
	defer cancel()
	b, err := s.rep.metaPool().Get(ctx)
	if err != nil {
		return nil, err
	}
	var ferr error
	defer func() { s.rep.metaPool().Put(b, ferr) }()
	r, err := b.Fetch(fmt.Sprintf("SELECT CHARACTER_SET_NAME, COLLATION_NAME FROM information_schema.COLLATIONS WHERE ID = %d", coll), 2)
	if err != nil {
		ferr = err
		return nil, err
	}
	if len(r.Rows) != 1 {
		return nil, fmt.Errorf("the replica has no collation %d", coll)
	}
	q, runes, err := evalexpr.CaseMapQuery(r.Rows[0][0].ToString(), r.Rows[0][1].ToString())
	if err != nil {
		return nil, err
	}
	r, err = b.Fetch(q, 1)
	if err != nil {
		ferr = err
		return nil, err
	}
	if len(r.Rows) != 1 || len(r.Rows[0]) != 2 {
		return nil, fmt.Errorf("case mapping of collation %d: no answer", coll)
	}
	return evalexpr.ParseCaseMap(runes, r.Rows[0][0].Raw(), r.Rows[0][1].Raw())
}
