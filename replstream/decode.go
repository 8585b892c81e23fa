package replstream

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/binlog"
	"vitess.io/vitess/go/mysql/replication"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// mapped is a TABLE_MAP seen in the stream; t is nil for a table nobody
// follows.
type mapped struct {
	t  *Table
	tm *mysql.TableMap
}

// decoder turns one connection's events into transactions.
type decoder struct {
	cfg    Config
	format mysql.BinlogFormat
	pos    replication.Position // after the last complete transaction
	tables map[uint64]*mapped
	cur    *Tx // the open transaction
	gtid   replication.GTID
	inTx   bool
	// XA: xaID is the open transaction's XA id (from its XA END);
	// xaSeen holds the ids whose XA PREPARE this connection read,
	// xaTouched those whose prepared rows changed a followed table.
	xaID              string
	xaSeen, xaTouched map[string]bool
}

// eXAPrepare is MariaDB's XA_PREPARE_LOG_EVENT, which ends the group of
// an XA PREPARE (vitess does not name it).
const eXAPrepare = 38

// xaPrepared ends an XA PREPARE's group: its rows are not committed yet
// and are not delivered (an XA COMMIT later says so, see xaVerb); the
// position moves past it.
func (d *decoder) xaPrepared() *Tx {
	if d.cur == nil {
		return nil
	}
	if d.xaSeen == nil {
		d.xaSeen, d.xaTouched = map[string]bool{}, map[string]bool{}
	}
	d.xaSeen[d.xaID] = true
	d.xaTouched[d.xaID] = len(d.cur.Changes) > 0
	d.cur.Changes, d.cur.Queries = nil, nil
	return d.commit()
}

// xaVerb handles an XA statement of the log; done is false for other
// statements.
func (d *decoder) xaVerb(sql string) (tx *Tx, done bool) {
	up := strings.ToUpper(sql)
	verb, xid, ok := strings.Cut(strings.TrimPrefix(up, "XA "), " ")
	if !strings.HasPrefix(up, "XA ") || !ok {
		return nil, false
	}
	xid = strings.TrimSpace(xid)
	switch verb {
	case "START", "BEGIN":
		// MariaDB logs no XA START (the GTID event holds the id) but
		// logs XA END.
		return nil, true
	case "END":
		d.xaID = strings.TrimSuffix(xid, " SUSPEND")
		return nil, true
	case "PREPARE":
		return d.xaPrepared(), true
	case "COMMIT":
		if strings.HasSuffix(xid, " ONE PHASE") {
			return d.commit(), true // its rows are in this group
		}
		if d.cur != nil && (!d.xaSeen[xid] || d.xaTouched[xid]) {
			d.cur.Changes = nil
			d.cur.Reread = "an XA transaction's rows are logged with its XA PREPARE: " + sql
		}
		return d.commit(), true
	case "ROLLBACK":
		if d.cur != nil {
			d.cur.Changes = nil
		}
		return d.commit(), true
	}
	return nil, false
}

// event consumes one event; it returns a transaction when ev completed
// one, heartbeat when ev was a heartbeat.
func (d *decoder) event(ev mysql.BinlogEvent) (tx *Tx, heartbeat bool, err error) {
	defer func() {
		// vitess' value decoder panics on some malformed values (JSON).
		if r := recover(); r != nil {
			tx, heartbeat, err = nil, false, fmt.Errorf("replstream: decoding an event: %v", r)
		}
	}()
	if !ev.IsValid() {
		return nil, false, fmt.Errorf("replstream: invalid binlog event")
	}
	if ev.IsFormatDescription() {
		d.format, err = ev.Format()
		return nil, false, err
	}
	if d.format.IsZero() {
		return nil, false, nil // the fake ROTATE before the format description
	}
	if ev, _, err = ev.StripChecksum(d.format); err != nil {
		return nil, false, err
	}
	f := d.format
	switch {
	case ev.IsHeartbeat():
		return nil, true, nil
	case ev.IsGTID():
		gtid, hasBegin, _, _, err := ev.GTID(f)
		if err != nil {
			return nil, false, err
		}
		d.cur = &Tx{GTID: gtid.String(), Time: time.Unix(int64(ev.Timestamp()), 0)}
		d.gtid, d.inTx = gtid, hasBegin
	case ev.IsQuery():
		q, err := ev.Query(f)
		if err != nil {
			return nil, false, err
		}
		switch strings.ToUpper(strings.TrimSpace(q.SQL)) {
		case "BEGIN":
			d.inTx = true
			return nil, false, nil
		case "COMMIT":
			return d.commit(), false, nil
		case "ROLLBACK":
			// A transaction is logged with ROLLBACK only when it changed
			// a non-transactional table, whose changes stay: when it
			// changed a followed table, the consumer reads it afresh.
			if d.cur != nil && len(d.cur.Changes) > 0 {
				d.cur.Changes = nil
				d.cur.Reread = "a transaction that changed the table rolled back in the binary log (it changed a non-transactional table, whose changes stay)"
				return d.commit(), false, nil
			}
			d.cur, d.inTx = nil, false
			return nil, false, nil
		}
		if up := strings.ToUpper(strings.TrimSpace(q.SQL)); strings.HasPrefix(up, "ROLLBACK TO ") || strings.HasPrefix(up, "SAVEPOINT ") {
			// Logged only in a transaction that changed a
			// non-transactional table; the rows before ROLLBACK TO are
			// in the log.
			if d.cur != nil && strings.HasPrefix(up, "ROLLBACK TO ") && len(d.cur.Changes) > 0 {
				d.cur.Reread = "a transaction rolled back to a savepoint after changing the table (" + q.SQL + ")"
			}
			return nil, false, nil
		}
		if tx, ok := d.xaVerb(strings.TrimSpace(q.SQL)); ok {
			return tx, false, nil
		}
		if d.cur == nil {
			return nil, false, nil // outside any GTID transaction: nothing to deliver
		}
		d.cur.Queries = append(d.cur.Queries, Query{DB: q.Database, SQL: q.SQL})
		if !d.inTx {
			return d.commit(), false, nil // DDL commits on its own
		}
	case ev.IsXID():
		return d.commit(), false, nil
	case len(ev.Bytes()) > 4 && ev.Bytes()[4] == eXAPrepare: // the type byte of the header
		return d.xaPrepared(), false, nil
	case ev.IsTableMap():
		tm, err := ev.TableMap(f)
		if err != nil {
			return nil, false, err
		}
		m := &mapped{tm: tm}
		for _, t := range d.cfg.Tables {
			if t.is(tm.Database, tm.Name) {
				m.t = t
				if len(tm.Types) != len(t.Columns) {
					return nil, false, &SchemaError{Table: t.DB + "." + t.Name,
						Reason: fmt.Sprintf("the binary log has %d columns, the table had %d", len(tm.Types), len(t.Columns))}
				}
			}
		}
		d.tables[ev.TableID(f)] = m
	case ev.IsPartialUpdateRows():
		if m := d.tables[ev.TableID(f)]; m != nil && m.t != nil {
			return nil, false, fmt.Errorf("replstream: partial JSON updates of %s.%s cannot be followed (binlog_row_value_options=PARTIAL_JSON)", m.t.DB, m.t.Name)
		}
	case ev.IsWriteRows(), ev.IsUpdateRows(), ev.IsDeleteRows():
		m := d.tables[ev.TableID(f)]
		if m == nil {
			return nil, false, fmt.Errorf("replstream: a rows event for table id %d without its TABLE_MAP", ev.TableID(f))
		}
		if m.t == nil || d.cur == nil {
			return nil, false, nil
		}
		rows, err := ev.Rows(f, m.tm)
		if err != nil {
			return nil, false, err
		}
		kind := Insert
		if ev.IsUpdateRows() {
			kind = Update
		} else if ev.IsDeleteRows() {
			kind = Delete
		}
		for i := range rows.Rows {
			r := &rows.Rows[i]
			c := Change{Table: m.t, Kind: kind}
			if kind != Insert {
				if c.Before, err = decodeRow(m.t, m.tm, rows.IdentifyColumns, r.NullIdentifyColumns, r.Identify); err != nil {
					return nil, false, err
				}
			}
			if kind != Delete {
				if c.After, err = decodeRow(m.t, m.tm, rows.DataColumns, r.NullColumns, r.Data); err != nil {
					return nil, false, err
				}
			}
			d.cur.Changes = append(d.cur.Changes, c)
		}
	case ev.IsTransactionPayload():
		return nil, false, fmt.Errorf("replstream: compressed transactions (binlog_transaction_compression) cannot be followed")
	}
	return nil, false, nil
}

// commit ends the open transaction.
func (d *decoder) commit() *Tx {
	tx := d.cur
	d.cur, d.inTx = nil, false
	if tx == nil {
		return nil
	}
	d.pos = replication.AppendGTID(d.pos, d.gtid)
	tx.Position = d.pos.String()
	return tx
}

// decodeRow decodes one row image; it must hold every column.
func decodeRow(t *Table, tm *mysql.TableMap, cols, nulls mysql.Bitmap, data []byte) ([]sqltypes.Value, error) {
	if cols.Count() != len(t.Columns) {
		return nil, &SchemaError{Table: t.DB + "." + t.Name, Reason: fmt.Sprintf("a row image has %d columns, the table had %d", cols.Count(), len(t.Columns))}
	}
	vals := make([]sqltypes.Value, len(t.Columns))
	pos, present := 0, 0
	for c := range cols.Count() {
		if !cols.Bit(c) {
			return nil, fmt.Errorf("replstream: %s.%s: the row image lacks column %s: the server must log full row images (binlog_row_image=FULL)",
				t.DB, t.Name, t.Columns[c].Name)
		}
		if nulls.Bit(present) {
			vals[c] = sqltypes.NULL
			present++
			continue
		}
		present++
		v, l, err := binlog.CellValue(data, pos, tm.Types[c], tm.Metadata[c], t.Columns[c], false)
		if err != nil {
			return nil, fmt.Errorf("replstream: %s.%s column %s: %w", t.DB, t.Name, t.Columns[c].Name, err)
		}
		pos += l
		if f := t.Columns[c]; f.Type == sqltypes.Enum || f.Type == sqltypes.Set {
			var labels []string
			if c < len(t.Labels) {
				labels = t.Labels[c]
			}
			if vals[c], err = labelValue(f, v, labels); err != nil {
				return nil, fmt.Errorf("replstream: %s.%s column %s: %w", t.DB, t.Name, f.Name, err)
			}
			continue
		}
		if vals[c], err = textValue(t.Columns[c], v, t.Loc); err != nil {
			return nil, fmt.Errorf("replstream: %s.%s column %s: %w", t.DB, t.Name, t.Columns[c].Name, err)
		}
	}
	return vals, nil
}

// labelValue is an ENUM's index or a SET's bit mask as the labels a
// SELECT shows: the empty string for the index 0 (an invalid value), a SET's labels
// in their definition order, joined by commas.
func labelValue(f *querypb.Field, v sqltypes.Value, labels []string) (sqltypes.Value, error) {
	if len(labels) == 0 {
		return sqltypes.NULL, fmt.Errorf("no labels for the %s column", f.Type)
	}
	n, err := strconv.ParseUint(v.ToString(), 10, 64)
	if err != nil {
		return sqltypes.NULL, err
	}
	if f.Type == sqltypes.Enum {
		if n > uint64(len(labels)) {
			return sqltypes.NULL, fmt.Errorf("ENUM index %d of %d labels", n, len(labels))
		}
		if n == 0 {
			return sqltypes.MakeTrusted(f.Type, []byte{}), nil
		}
		return sqltypes.MakeTrusted(f.Type, []byte(labels[n-1])), nil
	}
	var out []string
	for i, l := range labels {
		if i < 64 && n&(1<<i) != 0 {
			out = append(out, l)
			n &^= 1 << i
		}
	}
	if n != 0 {
		return sqltypes.NULL, fmt.Errorf("SET bits %#x beyond its %d labels", n, len(labels))
	}
	return sqltypes.MakeTrusted(f.Type, []byte(strings.Join(out, ","))), nil
}

// ShowFloat returns a FLOAT value of a row change as a SELECT shows it:
// rounded to 6 significant digits (equal as a number, not always in
// the same notation). Other values are returned as they are.
func ShowFloat(v sqltypes.Value) sqltypes.Value {
	if v.Type() != sqltypes.Float32 {
		return v
	}
	x, err := strconv.ParseFloat(v.ToString(), 64)
	if err != nil {
		return v
	}
	return sqltypes.MakeTrusted(v.Type(), strconv.AppendFloat(nil, x, 'g', 6, 32))
}

// textValue retypes a decoded value as the column's field and writes it
// as the text protocol does (a FLOAT exactly, see ShowFloat), TIMESTAMP in
// the session's time zone, BINARY(n) padded with zero bytes to n. The bytes are copied out of the event.
func textValue(f *querypb.Field, v sqltypes.Value, loc *time.Location) (sqltypes.Value, error) {
	switch f.Type {
	case sqltypes.Binary:
		// The binary log holds BINARY(n) without its trailing zero
		// bytes (vitess pads only when told the column's SQL type); a
		// SELECT shows all n.
		b := append([]byte(nil), v.Raw()...)
		if n := int(f.ColumnLength); len(b) < n && n <= 255 {
			b = append(b, make([]byte, n-len(b))...)
		}
		return sqltypes.MakeTrusted(f.Type, b), nil
	case sqltypes.Float32, sqltypes.Float64:
		// A DOUBLE equal as a number to what a SELECT shows, not always
		// in the same notation. A FLOAT is the double its float holds
		// (0.10000000149011612 for 0.1), which is what MariaDB compares
		// in a WHERE; a SELECT shows it to 6 significant digits (ShowFloat).
		bits := 64
		if f.Type == sqltypes.Float32 {
			bits = 32
		}
		x, err := strconv.ParseFloat(v.ToString(), bits)
		if err != nil {
			return sqltypes.NULL, err
		}
		return sqltypes.MakeTrusted(f.Type, strconv.AppendFloat(nil, x, 'g', -1, 64)), nil
	case sqltypes.Timestamp:
		s := v.ToString()
		if loc == nil || loc == time.UTC || strings.HasPrefix(s, "0000-00-00") {
			break
		}
		ts, err := time.ParseInLocation("2006-01-02 15:04:05.999999", s, time.UTC)
		if err != nil {
			return sqltypes.NULL, err
		}
		layout := "2006-01-02 15:04:05"
		if i := strings.IndexByte(s, '.'); i >= 0 {
			layout += "." + strings.Repeat("0", len(s)-i-1)
		}
		return sqltypes.MakeTrusted(f.Type, []byte(ts.In(loc).Format(layout))), nil
	}
	return sqltypes.MakeTrusted(f.Type, append([]byte(nil), v.Raw()...)), nil
}
