package engine

import (
	"fmt"

	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/pinned/pinexec"
)

// compilePinned compiles a fragment whose split table t is in memory. A
// join's other tables are pinned tables too (the planner refuses joins with
// replica tables); they are resolved now, so the plan keeps the versions it
// was compiled against until a pin changes, and the plan cache's
// generation with it. others resolves the other tables of a join; nil:
// the pin registry (a statement's ephemeral tables are not registered).
func (s *preparer) compilePinned(t *pinned.Table, others func(db, name string) *pinned.Table, fragment string, fields []*querypb.Field) (*pinexec.Program, error) {
	if others == nil {
		others = s.pins.Get
	}
	tables := func(db, name string) *pinned.Table {
		if db == t.DB && name == t.Name {
			return t
		}
		return others(db, name)
	}
	return pinexec.CompileJoin(s.env, t, tables, fragment, fields)
}

// pinnedRange counts a hit on every table a pinned plan reads and names
// them for the query's statistics.
func pinnedRange(pr *prepared) string {
	pr.pin.Hit()
	what := fmt.Sprintf("pinned %s.%s v%d (%d rows)", pr.pin.DB, pr.pin.Name, pr.pin.Version, pr.pin.Rows)
	for _, j := range pr.prog.Joined() {
		j.Hit()
		what += fmt.Sprintf(" ⋈ %s.%s v%d (%d rows)", j.DB, j.Name, j.Version, j.Rows)
	}
	return what
}
