package engine

import (
	"context"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/engine/schedule"
	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/sqlerr"
)

// Freshness floors over live pins.
//
// A live pin's versions carry the GTID position they reflect
// (pinned.Table.Position). Under a consistency mode (engine/replicaset/consistency.go) a
// statement over live pins takes its floor the way a distributed one
// does — the primary's position under `primary`, the replicas' lowest
// under `replica-min` — and runs only on versions at that position or
// later: a client that committed on the primary and then reads a live
// pin sees its commit. When the plan's versions are older, the statement
// waits until each pin has published a version that covers the floor,
// at most consistency_wait (never past its own deadline), and is planned
// again over the registry's versions; a pin that does not get there fails
// it with 3781, as a replica behind the floor fails a fragment. Snapshot
// pins have no position: they are as old as their last load by
// definition, and no floor applies to them.

// maxFloorReplans bounds the plan → wait → plan rounds of one statement:
// after a wait the registry holds versions at the floor, so the second
// plan normally runs; more rounds mean the pins keep being replaced.
const maxFloorReplans = 4

// liveFloor is a statement's floor for its live pins, taken once, when
// the first plan over a live pin needs it.
type liveFloor struct {
	taken bool
	fl    schedule.Floor
}

// awaitLivePins reports whether pr may run under the statement's floor:
// behind is false when pr reads no live pin, when no consistency mode is
// set, or when every live pin version pr reads covers the floor. When
// one does not, it waits (consistency_wait at most) until every such pin
// shows a version that does, and returns behind = true: the caller plans
// again and the new plan reads those versions.
func (s *Engine) awaitLivePins(ctx context.Context, pr *prepared, lf *liveFloor) (behind bool, err error) {
	if pr == nil || pr.prog == nil || s.cfg.Consistency == "" || s.cfg.Consistency == config.ConsistencyNone {
		return false, nil
	}
	var live []*pinned.Table
	for _, t := range append([]*pinned.Table{pr.pin}, pr.prog.Joined()...) {
		if t.Position != "" {
			live = append(live, t)
		}
	}
	if len(live) == 0 {
		return false, nil
	}
	if !lf.taken {
		if lf.fl, err = s.rep.QueryFloor(ctx); err != nil {
			return false, err
		}
		lf.taken = true
	}
	if lf.fl.GTID == "" {
		return false, nil
	}
	return s.pinStore.AwaitFloor(ctx, live, lf.fl.GTID, lf.fl.Wait)
}

// errFloorReplans is the answer when a statement's live pins keep being
// replaced under it while it waits for their floor.
func errFloorReplans(lf *liveFloor) error {
	return sqlerr.New(sqlerr.ErrReplicaBehind, "HY000",
		"Shoal: the live pins of this statement were replaced %d times while it waited for GTID position %s (its consistency floor); run it again", maxFloorReplans, lf.fl.GTID)
}
