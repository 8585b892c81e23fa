package catalog

import (
	"maps"
)

// Per-table versions let a cached plan outlive changes to tables it does
// not read. Gen changes with any table: a new table, a dropped one, one
// whose size doubled. Keyed by Gen alone, every cached plan, shape and
// routing decision in the coordinator was dropped whenever an ETL job
// created a staging table or any table grew past a doubling, and each
// statement was described on a replica again. An entry that records the
// versions of the tables it names (Deps) is dropped only when one of them
// changes (Current), or when Base does.

// Dep is one table a cached entry depends on and its version when the
// entry was made; Ver 0 means the table did not exist.
type Dep struct {
	Key string // "db.name", as the planner looks tables up
	Ver uint64
}

// Follow makes s the successor of old (nil for the first snapshot): it
// takes old's generations, moves Gen when any table was added, dropped or
// changed (sameTable) and Base when the server version or the databases did,
// keeps each unchanged table's version and gives a changed or new table a
// new one.
func (s *Snapshot) Follow(old *Snapshot) {
	s.vers = make(map[string]uint64, len(s.Tables))
	if old != nil {
		s.verSeq = old.verSeq
	}
	changed := false // a table new or changed
	for key, t := range s.Tables {
		if old != nil {
			if ot, ok := old.Tables[key]; ok && sameTable(ot, t) {
				s.vers[key] = old.vers[key]
				continue
			}
		}
		changed = true
		s.verSeq++
		s.vers[key] = s.verSeq
	}
	if old == nil {
		return
	}
	s.Gen, s.Base = old.Gen, old.Base
	if old.Version != s.Version || !maps.Equal(old.Schemas, s.Schemas) {
		s.Base++
		changed = true
	}
	if changed || len(old.Tables) != len(s.Tables) { // or a table dropped
		s.Gen++
	}
}

// Deps returns the versions of the tables named by refs ("db.name", from
// planner.TableRefs); a table the snapshot lacks gets version 0, so the
// entry goes stale when it appears.
func (s *Snapshot) Deps(refs []string) []Dep {
	if len(refs) == 0 {
		return nil
	}
	out := make([]Dep, len(refs))
	for i, r := range refs {
		out[i] = Dep{Key: r, Ver: s.vers[r]}
	}
	return out
}

// Current reports whether every table in deps still has its version.
func (s *Snapshot) Current(deps []Dep) bool {
	for _, d := range deps {
		if s.vers[d.Key] != d.Ver {
			return false
		}
	}
	return true
}
