package pinstore

import (
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/engine/rowformat"
)

// A pin keeps each text column's own collation.
//
// A client on a utf8mb4 connection is told that every text column is
// utf8mb4_general_ci, whatever its own collation, and gets its values
// converted to utf8mb4; the distributed scan that loads a pin reads them
// that way too. But the pin is what the in-memory engine groups, compares
// and sorts, so its columns must say what a replica compares by: the
// column's own collation (utf8mb4_bin keeps 'b' and 'B' apart,
// utf8mb4_unicode_ci makes 'ß' equal 'ss'). A statement over the pin
// still takes its result column definitions from a replica
// (engine/coldefs).
//
// The pin holds every text value as utf8mb4, which is the column's own
// encoding for utf8mb4, utf8mb3 and ascii. A column in another character
// set (latin1) says so too, with utf8mb4 bytes: the in-memory engine
// refuses to read it (pinexec's modeled), and statements that do run on
// the replicas, as over an unpinned table.

// OwnCollations is into with the columns' own collations: the collation
// of each text column as it arrives (converted) is replaced by the one
// own gives (the same columns described with character_set_results =
// NULL); the values are unchanged. A nil own leaves into as it is.
func OwnCollations(into Rows, own []*querypb.Field) Rows {
	if own == nil {
		return into
	}
	return &ownCols{Rows: into, own: own}
}

type ownCols struct {
	Rows
	own []*querypb.Field
	set bool // Fields was called: later calls are the Rows' to ignore
}

func (r *ownCols) Fields(fs []*querypb.Field) error {
	if r.set || len(r.own) != len(fs) {
		r.set = true
		return r.Rows.Fields(fs)
	}
	r.set = true
	return r.Rows.Fields(rowformat.OwnCollations(fs, func(i int) uint32 {
		if g := r.own[i]; rowformat.CharField(g) {
			return g.Charset
		}
		return 0
	}, false))
}
