package livepin

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/evalexpr"
	"github.com/shoaldb/shoal/pinned"
	"github.com/shoaldb/shoal/replstream"
	"github.com/shoaldb/shoal/sqlparse"
)

// state is a live pin's rows keyed by the source table's primary key,
// and the position they are at. It is owned by the Pin's mutex.
type state struct {
	addr, pos string
	table     *replstream.Table
	fields    []*querypb.Field // the pin's columns
	// collations are the text columns' own, by lower-case name
	// (ownCollations).
	collations map[string]uint32
	keyIdx     []int // primary key columns in the table's row
	projIdx    []int // the pin's columns in the table's row
	// selectCols are the key then the pin's columns: what the load reads.
	selectCols []string
	where      *evalexpr.Expr // over the table's row; nil: every row
	bitCols    []int          // BIT columns, read by the WHERE as integers (whereRow)
	ev         *evalexpr.Evaluator
	mentions   *regexp.Regexp // a statement naming the table

	// reloadedFor holds the GTIDs of the DDLs the pin reloaded for. The
	// load after one reads the table as the DDL left it, but MariaDB's
	// snapshot position counts transactional commits only and may be
	// before the DDL: the stream then brings the DDL again, which the
	// loaded rows already reflect.
	reloadedFor map[string]bool

	// agg holds an aggregated pin's source rows and groups (agg.go);
	// rows then holds its groups' output rows, keyed by group.
	agg *aggState

	rows    [][]sqltypes.Value // the pin's rows; nil: deleted
	index   map[string]int     // key → rows index
	dead    int
	changed bool // since the last snapshot

	// Chunks: rows[k*chunk : (k+1)*chunk] is chunk k, one record batch
	// of the pin's versions. slots holds the row slots changed since the
	// last snapshot; relaid says compaction moved every row (each chunk
	// must be rebuilt); built is how many chunks the last snapshot had.
	chunk  int
	slots  map[int]struct{}
	relaid bool
	// rebuild says the last version could not be composed (its encoding
	// is full, pinned.RebuildError): the next is built from scratch, of
	// every row.
	rebuild bool
	built   int

	// ver is the last version built from this state and batchOf its
	// batch index per chunk (-1: the chunk had no rows). chunkSlots[k] is
	// the slot (within the chunk) of each row of chunk k's batch: a
	// changed chunk is that batch spliced, its unchanged rows' encoded
	// values copied in runs and its changed rows alone encoded (see
	// spliceChunk). Only the goroutine building versions (load, then the
	// publisher) uses them.
	ver        *pinned.Table
	batchOf    []int
	chunkSlots [][]int32
}

// ReloadError says why the pin must be loaded afresh.
type ReloadError struct {
	Reason string
	DDL    string // the GTID of the DDL that made it, if one did
}

func (e *ReloadError) Error() string { return e.Reason }

var unsupportedType = map[string]bool{"geometry": true, "point": true, "linestring": true,
	"polygon": true, "multipoint": true, "multilinestring": true, "multipolygon": true, "geometrycollection": true}

// prepare reads the table's columns and key and compiles the WHERE.
func (st *state) prepare(conn *mysql.Conn, spec Spec, env *evalexpr.Env, loc *time.Location, locErr error) error {
	src := sqlparse.QuoteID(spec.SrcDB) + "." + sqlparse.QuoteID(spec.SrcTable)
	where := " WHERE TABLE_SCHEMA = " + sqlparse.QuoteString([]byte(spec.SrcDB)) + " AND TABLE_NAME = " + sqlparse.QuoteString([]byte(spec.SrcTable))
	cols, err := conn.ExecuteFetch("SELECT COLUMN_NAME, DATA_TYPE, CHARACTER_SET_NAME, EXTRA, COLUMN_TYPE FROM information_schema.COLUMNS"+where+" ORDER BY ORDINAL_POSITION", 10000, false)
	if err != nil {
		return err
	}
	if len(cols.Rows) == 0 {
		return &ErrNotLive{fmt.Sprintf("%s is not a table on the replica", src)}
	}
	var names []string
	labels := make([][]string, len(cols.Rows))
	hasTimestamp := false
	for i, r := range cols.Rows {
		name, typ, cs, extra := r[0].ToString(), strings.ToLower(r[1].ToString()), strings.ToLower(r[2].ToString()), strings.ToLower(r[3].ToString())
		names = append(names, name)
		if typ == "enum" || typ == "set" {
			// The binary log holds an ENUM's index and a SET's bit
			// mask: the row changes are shown by the labels.
			var ok bool
			if labels[i], ok = enumLabels(r[4].ToString()); !ok {
				return &ErrNotLive{fmt.Sprintf("column %s is %s, whose labels could not be read", name, r[4].ToString())}
			}
			switch {
			case spec.Agg != nil && slices.ContainsFunc(spec.Columns, func(c string) bool { return strings.EqualFold(c, name) }):
				return &ErrNotLive{fmt.Sprintf("column %s is %s: an aggregated live pin groups and compares text, MariaDB an %s by its index", name, strings.ToUpper(typ), strings.ToUpper(typ))}
			case spec.Where != "" && mentions(spec.Where, name):
				return &ErrNotLive{fmt.Sprintf("its WHERE reads the %s column %s, which MariaDB compares by its index or as text depending on the other side; filter it in the queries over the pin", strings.ToUpper(typ), name)}
			}
		}
		switch {
		case unsupportedType[typ]:
			return &ErrNotLive{fmt.Sprintf("column %s is %s, which the binary log holds as a number or a geometry blob", name, strings.ToUpper(typ))}
		case !r[2].IsNull() && cs != "utf8mb4" && cs != "utf8mb3" && cs != "utf8" && cs != "ascii":
			return &ErrNotLive{fmt.Sprintf("column %s is in character set %s; the binary log holds its bytes unconverted, so only utf8mb4, utf8mb3 and ascii text can be followed", name, cs)}
		case strings.Contains(extra, "virtual") || strings.Contains(extra, "generated") || strings.Contains(extra, "persistent") || strings.Contains(extra, "stored"):
			return &ErrNotLive{fmt.Sprintf("column %s is generated (%s)", name, extra)}
		case strings.Contains(extra, "invisible"):
			return &ErrNotLive{fmt.Sprintf("column %s is INVISIBLE: the binary log holds it, SELECT * does not", name)}
		}
		hasTimestamp = hasTimestamp || typ == "timestamp"
	}
	if hasTimestamp && locErr != nil {
		return locErr
	}
	// InnoDB applies a foreign key's cascade on each server itself: the
	// rows it changes are not in the binary log.
	fks, err := conn.ExecuteFetch("SELECT CONSTRAINT_NAME, DELETE_RULE, UPDATE_RULE FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = "+
		sqlparse.QuoteString([]byte(spec.SrcDB))+" AND TABLE_NAME = "+sqlparse.QuoteString([]byte(spec.SrcTable)), 1000, false)
	if err != nil {
		return err
	}
	for _, r := range fks.Rows {
		for i, on := range []string{"DELETE", "UPDATE"} {
			if rule := strings.ToUpper(r[1+i].ToString()); rule != "RESTRICT" && rule != "NO ACTION" {
				return &ErrNotLive{fmt.Sprintf("its foreign key %s is ON %s %s: the rows a cascade changes are not in the binary log", r[0].ToString(), on, rule)}
			}
		}
	}
	keys, err := conn.ExecuteFetch("SELECT COLUMN_NAME FROM information_schema.STATISTICS"+where+" AND INDEX_NAME = 'PRIMARY' ORDER BY SEQ_IN_INDEX", 100, false)
	if err != nil {
		return err
	}
	if len(keys.Rows) == 0 {
		return &ErrNotLive{fmt.Sprintf("%s has no primary key to apply changes by", src)}
	}
	find := func(c string) int {
		return slices.IndexFunc(names, func(n string) bool { return strings.EqualFold(n, c) })
	}
	for _, r := range keys.Rows {
		st.keyIdx = append(st.keyIdx, find(r[0].ToString()))
		st.selectCols = append(st.selectCols, r[0].ToString())
	}
	if spec.Columns == nil {
		for i, n := range names {
			st.projIdx = append(st.projIdx, i)
			st.selectCols = append(st.selectCols, n)
		}
	} else {
		for _, c := range spec.Columns {
			i := find(c)
			if i < 0 {
				return &ErrNotLive{fmt.Sprintf("%s has no column %s", src, c)}
			}
			st.projIdx = append(st.projIdx, i)
			st.selectCols = append(st.selectCols, names[i])
		}
	}
	r, err := conn.ExecuteFetch("SELECT * FROM "+src+" LIMIT 0", 0, true)
	if err != nil {
		return err
	}
	if len(r.Fields) != len(names) {
		return fmt.Errorf("%s: information_schema has %d columns, SELECT * %d", src, len(names), len(r.Fields))
	}
	if st.collations, err = ownCollations(conn, src, r.Fields); err != nil {
		return err
	}
	lower, err := conn.ExecuteFetch("SELECT @@lower_case_table_names", 1, false)
	if err != nil {
		return err
	}
	if len(lower.Rows) != 1 {
		return fmt.Errorf("SELECT @@lower_case_table_names: %d rows", len(lower.Rows))
	}
	// With lower_case_table_names=0, t and T are two tables: the pin
	// follows its own (spelled as the server spells it) and not the other.
	st.table = &replstream.Table{DB: spec.SrcDB, Name: spec.SrcTable, Columns: r.Fields, Loc: loc,
		CaseSensitive: lower.Rows[0][0].ToString() == "0", Labels: labels}
	if st.table.CaseSensitive {
		if st.table.DB, st.table.Name, err = serverName(conn, spec); err != nil {
			return err
		}
	}
	if spec.Where != "" {
		wfields := make([]*querypb.Field, len(r.Fields))
		for i, f := range r.Fields {
			wfields[i] = f
			switch f.Type {
			case sqltypes.Bit:
				c := f.CloneVT()
				c.Type, c.Charset, c.Flags = sqltypes.Uint64, 63, f.Flags|uint32(querypb.MySqlFlag_UNSIGNED_FLAG)
				wfields[i] = c
				st.bitCols = append(st.bitCols, i)
			case sqltypes.Time:
				// vitess' evaluator compares a TIME with a string as
				// text ('10:00:00.000' = '10:00:00' is false).
				if mentions(spec.Where, names[i]) {
					return &ErrNotLive{fmt.Sprintf("its WHERE reads the TIME column %s, which changed rows could not be compared as MariaDB compares it; filter it in the queries over the pin", names[i])}
				}
			}
		}
		if st.where, err = env.Compile(spec.Where, evalexpr.NewLayout(names, wfields).WithStoredFloats()); err != nil {
			return &ErrNotLive{"the WHERE cannot be evaluated on row changes: " + err.Error()}
		}
		st.ev = env.NewEvaluator()
	}
	st.mentions = regexp.MustCompile(`(?i)(^|[^0-9a-z_$])` + regexp.QuoteMeta(spec.SrcTable) + `($|[^0-9a-z_$])`)
	return nil
}

// enumLabels reads the labels of an ENUM or SET column from its
// COLUMN_TYPE, as in enum('a','b') (a quote inside a label is doubled).
func enumLabels(colType string) ([]string, bool) {
	lower := strings.ToLower(colType)
	var rest string
	switch {
	case strings.HasPrefix(lower, "enum(") && strings.HasSuffix(lower, ")"):
		rest = colType[len("enum(") : len(colType)-1]
	case strings.HasPrefix(lower, "set(") && strings.HasSuffix(lower, ")"):
		rest = colType[len("set(") : len(colType)-1]
	default:
		return nil, false
	}
	var out []string
	for rest != "" {
		if rest[0] != '\'' {
			return nil, false
		}
		var b strings.Builder
		i := 1
		for {
			if i >= len(rest) {
				return nil, false
			}
			if rest[i] == '\'' {
				if i+1 < len(rest) && rest[i+1] == '\'' {
					b.WriteByte('\'')
					i += 2
					continue
				}
				break
			}
			if rest[i] == '\\' {
				return nil, false // escapes whose reading is not certain: refuse
			}
			b.WriteByte(rest[i])
			i++
		}
		out = append(out, b.String())
		rest = rest[i+1:]
		if rest != "" {
			if rest[0] != ',' {
				return nil, false
			}
			rest = rest[1:]
		}
	}
	return out, len(out) > 0
}

// serverName is the table's database and name as the server spells
// them (what its TABLE_MAP events say).
func serverName(conn *mysql.Conn, spec Spec) (db, name string, err error) {
	r, err := conn.ExecuteFetch("SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = "+
		sqlparse.QuoteString([]byte(spec.SrcDB))+" AND TABLE_NAME = "+sqlparse.QuoteString([]byte(spec.SrcTable)), 10, false)
	if err != nil {
		return "", "", err
	}
	if len(r.Rows) != 1 {
		return "", "", &ErrNotLive{fmt.Sprintf("%s.%s names %d tables on the replica", spec.SrcDB, spec.SrcTable, len(r.Rows))}
	}
	return r.Rows[0][0].ToString(), r.Rows[0][1].ToString(), nil
}

// mentions says whether the SQL text where names the column (a name in
// a string literal counts too: a refusal then is the safe side).
func mentions(where, col string) bool {
	return regexp.MustCompile(`(?i)(^|[^0-9a-z_$])` + regexp.QuoteMeta(col) + `($|[^0-9a-z_$])`).MatchString(where)
}

// ownCollations reads each column's own collation: a converted result
// (character_set_results utf8mb4, what the snapshot reads) says
// utf8mb4_general_ci of every text column, but the pin groups, compares
// and filters by the column's collation (utf8mb4_bin keeps 'b' and 'B'
// apart). The values need no conversion: a followed table's text is
// utf8mb4, utf8mb3 or ascii (prepare). It sets them on fields, the
// converted columns of SELECT * FROM src, and returns them by name.
func ownCollations(conn *mysql.Conn, src string, fields []*querypb.Field) (map[string]uint32, error) {
	if _, err := conn.ExecuteFetch("SET character_set_results = NULL", 0, false); err != nil {
		return nil, err
	}
	r, err := conn.ExecuteFetch("SELECT * FROM "+src+" LIMIT 0", 0, true)
	if _, rerr := conn.ExecuteFetch("SET character_set_results = utf8mb4", 0, false); rerr != nil && err == nil {
		err = rerr
	}
	if err != nil {
		return nil, err
	}
	if len(r.Fields) != len(fields) {
		return nil, fmt.Errorf("%s: %d columns unconverted, %d converted", src, len(r.Fields), len(fields))
	}
	out := map[string]uint32{}
	for i, f := range fields {
		raw := r.Fields[i]
		if f.Charset == 63 || raw.Charset == 63 || !(sqltypes.IsText(f.Type) || sqltypes.IsBinary(f.Type)) {
			continue
		}
		f.Charset = raw.Charset
		out[strings.ToLower(f.Name)] = raw.Charset
	}
	return out, nil
}

// keyOf encodes a primary key's values. A FLOAT or DOUBLE is encoded as
// its number: the snapshot's text (MariaDB's, "1e20") and the binary
// log's (Go's, "1e+20") of one value differ.
func keyOf(vals []sqltypes.Value) string {
	var b []byte
	for _, v := range vals {
		if v.IsNull() {
			b = append(b, 'N')
			continue
		}
		raw := v.Raw()
		v = replstream.ShowFloat(v) // a FLOAT key as the snapshot reads it
		if v.Type() == sqltypes.Float32 || v.Type() == sqltypes.Float64 {
			raw = v.Raw()
			if x, err := strconv.ParseFloat(string(raw), 64); err == nil {
				raw = strconv.AppendFloat(nil, x, 'g', -1, 64)
			}
		}
		b = strconv.AppendInt(b, int64(len(raw)), 10)
		b = append(b, ':')
		b = append(b, raw...)
	}
	return string(b)
}

func (st *state) key(row []sqltypes.Value) string {
	vals := make([]sqltypes.Value, len(st.keyIdx))
	for i, k := range st.keyIdx {
		vals[i] = row[k]
	}
	return keyOf(vals)
}

// touch marks rows[i] (and so its chunk) changed.
func (st *state) touch(i int) {
	if st.slots == nil {
		st.slots = map[int]struct{}{}
	}
	st.slots[i] = struct{}{}
}

func (st *state) put(k string, row []sqltypes.Value) {
	if i, ok := st.index[k]; ok {
		st.rows[i] = row
		st.touch(i)
		return
	}
	st.touch(len(st.rows))
	st.index[k] = len(st.rows)
	st.rows = append(st.rows, row)
}

func (st *state) del(k string) {
	i, ok := st.index[k]
	if !ok {
		return
	}
	st.rows[i] = nil
	st.touch(i)
	delete(st.index, k)
	st.dead++
	if st.dead > 1024 && st.dead > len(st.rows)/2 {
		kept := make([][]sqltypes.Value, 0, len(st.index))
		for _, r := range st.rows {
			if r != nil {
				st.index[st.rowKey(r)] = len(kept)
				kept = append(kept, r)
			}
		}
		st.rows, st.dead = kept, 0
		st.relaid = true
	}
}

// rowKey is the key of a stored row: the key's values follow the pin's
// columns (see pinRow).
func (st *state) rowKey(row []sqltypes.Value) string { return keyOf(row[st.width():]) }

// width is how many columns the pin has (its rows hold their keys after).
func (st *state) width() int { return len(st.fields) }

// remove applies the removal of the table row of primary key k.
func (st *state) remove(k string) {
	if st.agg != nil {
		st.agg.del(k)
		return
	}
	st.del(k)
}

// upsert applies a row image that is now in the table.
func (st *state) upsert(row []sqltypes.Value) error {
	k := st.key(row)
	if st.where != nil {
		ok, err := st.ev.True(st.where, st.whereRow(row))
		if err != nil {
			return &ReloadError{Reason: "evaluating the WHERE on a changed row: " + err.Error()}
		}
		if !ok {
			st.remove(k)
			return nil
		}
	}
	if st.agg != nil {
		return st.agg.put(k, st.pinRow(row))
	}
	st.put(k, st.pinRow(row))
	return nil
}

// pinRow is the pin's columns of a table row, followed by the key's
// values (kept for compaction; live() drops them).
// FLOAT values are shown as a SELECT shows them (the WHERE read their
// exact values).
func (st *state) pinRow(row []sqltypes.Value) []sqltypes.Value {
	out := make([]sqltypes.Value, 0, len(st.projIdx)+len(st.keyIdx))
	for _, i := range st.projIdx {
		out = append(out, replstream.ShowFloat(row[i]))
	}
	for _, i := range st.keyIdx {
		out = append(out, replstream.ShowFloat(row[i]))
	}
	return out
}

// whereRow is row as the WHERE reads it: BIT values as the unsigned
// integers MariaDB compares (the evaluator compares BIT bytes as a
// string), see prepare.
func (st *state) whereRow(row []sqltypes.Value) []sqltypes.Value {
	if len(st.bitCols) == 0 {
		return row
	}
	out := slices.Clone(row)
	for _, i := range st.bitCols {
		if v := out[i]; !v.IsNull() {
			var n uint64
			for _, b := range v.Raw() {
				n = n<<8 | uint64(b)
			}
			out[i] = sqltypes.NewUint64(n)
		}
	}
	return out
}

// apply applies one transaction and returns the row changes it made.
func (st *state) apply(tx *replstream.Tx) (int, error) {
	for _, q := range tx.Queries {
		if st.reloadedFor[tx.GTID] {
			break
		}
		sql := strings.TrimSpace(q.SQL)
		word := strings.ToUpper(strings.Fields(sql + " x")[0])
		switch {
		case word == "INSERT" || word == "UPDATE" || word == "DELETE" || word == "REPLACE" || word == "LOAD":
			return 0, &ReloadError{Reason: fmt.Sprintf("a statement-format DML (%.80s) at %s: its rows are not in the binary log", sql, tx.GTID)}
		case st.mentions.MatchString(sql):
			return 0, &ReloadError{Reason: fmt.Sprintf("DDL at %s: %.120s", tx.GTID, sql), DDL: tx.GTID}
		case (word == "DROP" || word == "ALTER") && strings.Contains(strings.ToLower(sql), strings.ToLower(st.table.DB)):
			return 0, &ReloadError{Reason: fmt.Sprintf("DDL at %s: %.120s", tx.GTID, sql), DDL: tx.GTID}
		}
	}
	if tx.Reread != "" && !st.reloadedFor[tx.GTID] {
		// Changes the stream could not deliver as committed (an XA
		// COMMIT, a rollback in the log): the pin reads them by
		// reloading (a snapshot before the transaction's position
		// brings it again, see reloadedFor).
		return 0, &ReloadError{Reason: fmt.Sprintf("at %s %.160s; the pin reads the table afresh", tx.GTID, tx.Reread), DDL: tx.GTID}
	}
	n := 0
	for _, c := range tx.Changes {
		if c.Table != st.table {
			continue
		}
		var err error
		switch c.Kind {
		case replstream.Insert:
			err = st.upsert(c.After)
		case replstream.Update:
			if kb, ka := st.key(c.Before), st.key(c.After); kb != ka {
				st.remove(kb)
			}
			err = st.upsert(c.After)
		case replstream.Delete:
			st.remove(st.key(c.Before))
		}
		if err != nil {
			return n, err
		}
		n++
	}
	st.pos = tx.Position
	st.changed = st.changed || n > 0
	return n, nil
}

// live returns the pin's rows (without their keys).
func (st *state) live() [][]sqltypes.Value {
	out := make([][]sqltypes.Value, 0, len(st.index))
	w := st.width()
	for _, r := range st.rows {
		if r != nil {
			out = append(out, r[:w:w])
		}
	}
	return out
}

// delta is what a version is built from: the pin's chunks, of which
// rows[k] holds chunk k's live rows (without their keys) and their slots
// when the whole chunk must be encoded (new since the last snapshot, or
// all); edits[k] the slots of chunk k that changed since the last
// snapshot when only those must; the others are the last version's
// batches.
type delta struct {
	pos     string
	chunks  int
	changed map[int]chunkRows
	edits   map[int][]edit
	all     bool // every chunk changed, or the last version could not be composed: build from scratch
}

// chunkRows is a chunk's live rows (without their keys) and the slot of
// each within the chunk, in slot order.
type chunkRows struct {
	rows  [][]sqltypes.Value
	slots []int32
}

// edit is a changed slot of a chunk and the row it now holds (nil: none).
type edit struct {
	slot int32
	row  []sqltypes.Value
}

// snapshot returns the changes to build a version from (changed false:
// none since the last call, only the position moved) and resets them.
func (st *state) snapshot() (d delta, changed bool) {
	changed, st.changed = st.changed, false
	d.pos = st.pos
	if !changed {
		return d, false
	}
	if st.agg != nil {
		st.agg.flush(st)
	}
	d.chunks = (len(st.rows) + st.chunk - 1) / st.chunk
	d.all = st.relaid || st.rebuild
	d.changed = map[int]chunkRows{}
	d.edits = map[int][]edit{}
	w := st.width()
	for k := range d.chunks {
		if d.all || k >= st.built {
			d.changed[k] = st.chunkRows(k)
		}
	}
	if !d.all {
		for i := range st.slots {
			k := i / st.chunk
			if _, whole := d.changed[k]; whole || k >= d.chunks {
				continue
			}
			var row []sqltypes.Value
			if i < len(st.rows) && st.rows[i] != nil {
				row = st.rows[i][:w:w]
			}
			d.edits[k] = append(d.edits[k], edit{slot: int32(i - k*st.chunk), row: row})
		}
		for _, es := range d.edits {
			slices.SortFunc(es, func(a, b edit) int { return int(a.slot - b.slot) })
		}
	}
	st.slots, st.relaid, st.rebuild, st.built = nil, false, false, d.chunks
	return d, true
}

// chunkRows is chunk k's live rows without their keys, and their slots.
func (st *state) chunkRows(k int) chunkRows {
	w := st.width()
	rows := st.rows[k*st.chunk : min((k+1)*st.chunk, len(st.rows))]
	out := chunkRows{rows: make([][]sqltypes.Value, 0, len(rows)), slots: make([]int32, 0, len(rows))}
	for i, r := range rows {
		if r != nil {
			out.rows = append(out.rows, r[:w:w])
			out.slots = append(out.slots, int32(i))
		}
	}
	return out
}
