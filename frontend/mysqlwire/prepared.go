package mysqlwire

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shoaldb/shoal/engine/coldefs"
	"github.com/shoaldb/shoal/engine/rowformat"
	"github.com/shoaldb/shoal/router"
	"github.com/shoaldb/shoal/sqlerr"
	"github.com/shoaldb/shoal/sqlparse"
)

// Server-side prepared statements (COM_STMT_PREPARE / COM_STMT_EXECUTE).
//
// vitess keeps each connection's statements (mysql.PrepareData: the text,
// the parameter types and the bound values) and answers COM_STMT_CLOSE,
// COM_STMT_RESET and COM_STMT_SEND_LONG_DATA itself. Shoal binds every
// execution exactly: each `?` marker — found by vitess' tokenizer, so a `?`
// inside a string literal, a quoted name or a comment is never touched — is
// replaced by the SQL literal of its bound value, and the resulting text runs
// through the same path as a text-protocol query (classification, plan cache,
// distribution or passthrough). vitess writes the rows in the binary
// protocol from the result's column types.
//
// Literals keep the parameter's type: integers as integers, DOUBLE as an
// exponent literal (a DOUBLE in SQL), DECIMAL as a decimal literal, strings
// quoted with backslash escapes (as MySQL's default sql_mode reads them),
// bytes that are not UTF-8 as X'…', temporal values as quoted strings, which
// MySQL compares to temporal columns as temporal values. A DATE,
// DATETIME, TIMESTAMP or TIME parameter (sent as a binary structure:
// Connector/J's setDate/setTimestamp, mysql-connector-python's date
// arguments) is a temporal literal of its type, zero-padded
// (temporalLiteral): vitess decodes it to unpadded text ('2004-1-5'), which
// a quoted string kept in string contexts (LEFT(?, 7) was '2004-1-').

// maxPrepared bounds one connection's open prepared statements: vitess
// keeps them (text, types, bound values) until COM_STMT_CLOSE, so a client
// that never closes them would grow the coordinator without bound.
// MariaDB refuses past max_prepared_stmt_count (16382 by default, for all
// sessions together) with the same error.
const maxPrepared = 16382

// maxParams is MySQL's limit on the markers of one statement.
const maxParams = math.MaxUint16

// paramMarkers returns the byte offsets of the `?` markers in query.
func (h *handler) paramMarkers(query string) ([]int, error) {
	// ODBC escapes ({fn UCASE(x)}, {d '2001-01-01'}), which MariaDB reads
	// and vitess' tokenizer does not: blanked, the offsets kept.
	tkn := h.vt.Parser().NewStringTokenizer(strings.NewReplacer("{", " ", "}", " ").Replace(query))
	var marks []int
	for {
		typ, _ := tkn.Scan()
		switch typ {
		case 0:
			return marks, nil
		case sqlparser.LEX_ERROR:
			return nil, sqlerr.Syntax(sqlparse.FirstToken(query))
		case sqlparser.VALUE_ARG:
			if p := tkn.Pos - 1; p >= 0 && p < len(query) && query[p] == '?' {
				marks = append(marks, p)
			}
		}
	}
}

// ComPrepare answers COM_STMT_PREPARE with the statement's parameter count
// and, for a SELECT that can take a LIMIT 0, its result columns as a
// replica reports them with every parameter NULL. A statement Shoal would
// refuse or cannot parse fails here, as it would on MySQL.
func (h *handler) ComPrepare(c *mysql.Conn, query string) ([]*querypb.Field, uint16, error) {
	ss, ok := c.ClientData.(*router.Session)
	if !ok {
		return nil, 0, sqlerr.New(sqlerr.ErrUnknown, "HY000", "connection has no session")
	}
	fields, params, err := h.prepare(c, ss, query)
	if err == nil {
		rememberDB(c, ss)
	}
	return fields, params, err
}

// Prepared statements and USE. MariaDB resolves a prepared statement's
// names when it prepares it, in the database current then, and each
// execution reads those tables (and DATABASE() says that database) after
// any USE: PREPARE in ontime, USE other, EXECUTE reads ontime.ontime.
// Shoal binds and runs each execution as text, so it runs it with the
// session's database set to the prepare's for the execution
// (router.Session.InDatabase).

// rememberDB records the session's database for the statement vitess
// registers once ComPrepare returns: it numbers it c.StatementID+1 (vitess
// 0.24 conn.go handleComPrepare). Entries of closed statements are dropped
// once they outnumber the open ones.
func rememberDB(c *mysql.Conn, ss *router.Session) {
	f := frontOf(c, ss)
	if f.stmtDB == nil {
		f.stmtDB = map[uint32]string{}
	}
	if len(f.stmtDB) > 2*len(c.PrepareData)+16 {
		for id := range f.stmtDB {
			if _, open := c.PrepareData[id]; !open {
				delete(f.stmtDB, id)
			}
		}
	}
	f.stmtDB[c.StatementID+1] = ss.DB
}

// preparedDB is the database statement id was prepared in ("" unknown).
func preparedDB(c *mysql.Conn, ss *router.Session, id uint32) string {
	f, _ := ss.Front.(*front)
	if f == nil {
		return ""
	}
	return f.stmtDB[id]
}

// prepare answers ComPrepare.
func (h *handler) prepare(c *mysql.Conn, ss *router.Session, query string) ([]*querypb.Field, uint16, error) {
	if err := h.checkSize(query); err != nil { // packet.go
		return nil, 0, err
	}
	if n := len(c.PrepareData); n >= maxPrepared {
		return nil, 0, sqlerr.New(sqlerr.ErrMaxPreparedStmts, "42000",
			"Can't create more than %d prepared statements on one connection; close the ones no longer used (COM_STMT_CLOSE)", maxPrepared)
	}
	if err := h.checkUTF8Conn(c, ss, query); err != nil { // utf8.go
		return nil, 0, err
	}
	h.m.Prepares.Inc()
	// Drivers prepare every statement that has arguments, often the same
	// text again and again: answer from the plan cache when we can.
	eng := h.r.Engine()
	if fields, params, ok := eng.CachedPrepare(ss.DB, query); ok {
		h.armParamDefs(c, int(params))
		return cloneFields(fields), params, nil
	}
	marks, err := h.paramMarkers(query)
	if err != nil {
		return nil, 0, err
	}
	if len(marks) > maxParams {
		return nil, 0, sqlerr.New(sqlerr.ErrTooManyPlaceholders, "HY000", "Prepared statement contains too many placeholders")
	}
	// Every parameter NULL, as MariaDB's prepare types them; a LIMIT or
	// OFFSET count 0 (LIMIT NULL does not parse; MetadataQuery makes the
	// LIMIT 0 anyway).
	nulls := make([]string, len(marks))
	for i, m := range marks {
		nulls[i] = "NULL"
		if sqlparse.InLimit(query, m) {
			nulls[i] = "0"
		}
	}
	b := sqlparse.Bind(query, marks, nulls)
	meta, err := coldefs.MetadataQuery(b.Text)
	if err != nil {
		return nil, 0, unbindSyntax(err, b, b.Text) // synerr.go
	}
	var fields []*querypb.Field
	if meta != "" {
		if fields, err = eng.Describe(h.r.Context(), &ss.Session, meta); err != nil {
			return nil, 0, unbindSyntax(err, b, meta) // MariaDB's prepare fails with it too
		} else if fields == nil {
			h.armParamDefs(c, len(marks))
			return nil, uint16(len(marks)), nil // not cached: try again next time
		}
		fields = originalNames(b, fields)
	}
	eng.CachePrepare(ss.DB, query, fields, uint16(len(marks)))
	h.armParamDefs(c, len(marks))
	return cloneFields(fields), uint16(len(marks)), nil
}

// armParamDefs has the connection's transport retype the n parameter
// definitions of the prepare answered next as MariaDB types them
// (paramdefs.go).
func (h *handler) armParamDefs(c *mysql.Conn, n int) {
	if !h.mariadb || n == 0 {
		return
	}
	if pc, ok := c.GetRawConn().(*packetConn); ok {
		pc.paramDefs = n
	}
}

// cloneFields copies result metadata before it goes to vitess: its
// COM_STMT_PREPARE writer rewrites each field's Name in place (vitess
// 0.24 query.go writePrepare), and the cached fields are shared by every
// connection preparing the same text.
func cloneFields(fields []*querypb.Field) []*querypb.Field {
	if fields == nil {
		return nil
	}
	out := make([]*querypb.Field, len(fields))
	for i, f := range fields {
		out[i] = f.CloneVT()
	}
	return out
}

// ComStmtExecute binds the execution's parameters into the statement and
// runs it as a text query.
//
// vitess encodes binary rows from the Fields of each Result it is handed,
// while Shoal's result paths send the columns once and then rows alone: the
// columns are carried onto every row chunk here (a row chunk without them
// gets a NULL bitmap sized for no columns and corrupts the stream past six
// columns). Unaliased columns are named from the statement as prepared,
// with its `?` markers, as MySQL names them. Values are made what
// MariaDB's binary protocol sends of them (rowformat.WireRows: a TIME of
// 00:00:00.0000 is 0 bytes, not 12; an INT column's 4036006016 is its low
// 4 bytes, where vitess failed the statement).
func (h *handler) ComStmtExecute(c *mysql.Conn, prepare *mysql.PrepareData, callback func(*sqltypes.Result) error) error {
	if prepare == nil {
		return sqlerr.New(sqlerr.ErrUnknownStmtHandler, "HY000", "Unknown prepared statement handler given to mysqld_stmt_execute")
	}
	h.m.Executes.Inc()
	unsignedParams(c, prepare)
	b, err := h.bind(prepare)
	if err != nil {
		return sqlerr.ToMySQL(err)
	}
	ss, ok := c.ClientData.(*router.Session)
	if !ok {
		return sqlerr.New(sqlerr.ErrUnknown, "HY000", "connection has no session")
	}
	// In the database the statement was prepared in (rememberDB).
	return ss.InDatabase(preparedDB(c, ss, prepare.StatementID), func() error {
		var fields []*querypb.Field
		var ints []int
		prepared := h.preparedFields(c, prepare.PrepareStmt) // nullable.go
		var params map[int]int
		if marks, err := h.paramMarkers(prepare.PrepareStmt); err == nil && len(marks) > 0 {
			params = paramColumns(prepare.PrepareStmt, marks) // paramcols.go
		}
		return h.run(rowformat.WithBinaryRows(h.r.Context()), c, b.Text, func(r *sqltypes.Result) error {
			switch {
			case r.Fields != nil:
				fields = paramNullable(originalNames(b, r.Fields), prepared)
				if len(params) > 0 && len(fields) == len(r.Fields) {
					fields, ints = paramTyped(fields, params, prepare)
				}
				cp := *r
				cp.Fields = fields
				cp.Rows = rowformat.WireRows(fields, bigintValues(r.Rows, ints))
				return callback(&cp)
			case len(r.Rows) > 0:
				return callback(&sqltypes.Result{Fields: fields, Rows: rowformat.WireRows(fields, bigintValues(r.Rows, ints))})
			}
			return callback(r)
		})
	})
}

// originalNames returns fields, the columns of b's bound text, with the
// unaliased ones named from the statement as prepared, with its `?`
// markers, as MariaDB names them (COUNT(IF(x = ?, 1, NULL)), both in the
// prepare's answer and in each execution's). The fields renamed are
// copies.
func originalNames(b *sqlparse.Bound, fields []*querypb.Field) []*querypb.Field {
	out := make([]*querypb.Field, len(fields))
	at := 0 // computed columns' names appear in select-list order
	for i, f := range fields {
		out[i] = f
		if f.OrgTable != "" || len(b.Spans) == 0 { // a table's column keeps its name
			continue
		}
		if name, ok := b.OriginalName(f.Name, &at); ok {
			out[i] = f.CloneVT()
			out[i].Name = name
		}
	}
	return out
}

// bind renders the statement with its bound values.
func (h *handler) bind(prepare *mysql.PrepareData) (*sqlparse.Bound, error) {
	marks, err := h.paramMarkers(prepare.PrepareStmt)
	if err != nil {
		return nil, err
	}
	if len(marks) != int(prepare.ParamsCount) {
		return nil, sqlerr.New(sqlerr.ErrUnknown, "HY000", "prepared statement has %d markers, %d parameters", len(marks), prepare.ParamsCount)
	}
	lits := make([]string, len(marks))
	for i := range marks {
		bv, ok := prepare.BindVars["v"+strconv.Itoa(i+1)]
		if !ok || bv == nil {
			return nil, sqlerr.New(sqlerr.ErrWrongArguments, "HY000", "Incorrect arguments to mysqld_stmt_execute: parameter %d has no value", i+1)
		}
		if lits[i], err = literal(bv); err != nil {
			return nil, err
		}
		// LIMIT ? bound to a string ('3', as drivers that bind every
		// value as text send it): the server takes the number.
		if len(lits[i]) > 2 && lits[i][0] == '\'' && sqlparse.InLimit(prepare.PrepareStmt, marks[i]) {
			if n := lits[i][1 : len(lits[i])-1]; strings.Trim(n, "0123456789") == "" {
				lits[i] = n
			}
		}
	}
	return sqlparse.Bind(prepare.PrepareStmt, marks, lits), nil
}

// literal renders a bound value as the SQL literal of the same type.
func literal(bv *querypb.BindVariable) (string, error) {
	v, err := sqltypes.BindVariableToValue(bv)
	if err != nil {
		return "", sqlerr.New(sqlerr.ErrWrongArguments, "HY000", "Incorrect arguments to mysqld_stmt_execute: %v", err)
	}
	raw := v.Raw()
	switch t := v.Type(); {
	case v.IsNull():
		return "NULL", nil
	case sqltypes.IsSigned(t):
		if _, err := strconv.ParseInt(string(raw), 10, 64); err != nil {
			return "", badParam(v)
		}
		return string(raw), nil
	case sqltypes.IsUnsigned(t):
		if _, err := strconv.ParseUint(string(raw), 10, 64); err != nil {
			return "", badParam(v)
		}
		return string(raw), nil
	case sqltypes.IsFloat(t):
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return "", badParam(v)
		}
		// An exponent makes it a DOUBLE literal, as the parameter was.
		return strconv.FormatFloat(f, 'e', -1, 64), nil
	case t == sqltypes.Decimal && isDecimal(raw):
		return string(raw), nil
	case t == sqltypes.Date, t == sqltypes.Datetime, t == sqltypes.Timestamp, t == sqltypes.Time:
		if lit, ok := temporalLiteral(t, raw); ok {
			return lit, nil
		}
	case t == sqltypes.Bit, t == sqltypes.Binary, !utf8.Valid(raw):
		if len(raw) == 0 {
			return "''", nil
		}
		return "X'" + hex.EncodeToString(raw) + "'", nil
	}
	return sqlparse.QuoteString(raw), nil
}

// temporalLiteral renders a temporal parameter as vitess decoded it
// ("2004-1-5", "2004-1-5 1:2:3.000100", "-26:0:5.000000") as the SQL
// literal of its type, as MariaDB reads the parameter: DATE'2004-01-05',
// TIMESTAMP'2004-01-05 01:02:03.000100' (fractional digits only when the
// microseconds are not zero: MariaDB's parameter has 6 decimals then, 0
// otherwise), TIME'-26:00:05'. A value such a literal refuses (1525) and
// MariaDB's parameter takes as sent — a day past its month's end
// (1987-04-31), month 13, hour 24, a TIME past 838 hours — is the quoted
// zero-padded string, as the same statement's text literal would be.
func temporalLiteral(t querypb.Type, raw []byte) (string, bool) {
	s := string(raw)
	var date, clock string
	switch t {
	case sqltypes.Date:
		date = s
	case sqltypes.Time:
		clock = s
	default:
		var ok bool
		if date, clock, ok = strings.Cut(s, " "); !ok {
			return "", false
		}
	}
	var b strings.Builder
	valid := true
	if date != "" {
		parts := strings.Split(date, "-")
		if len(parts) != 3 {
			return "", false
		}
		var ymd [3]uint64
		for i, p := range parts {
			n, err := strconv.ParseUint(p, 10, 16)
			if err != nil {
				return "", false
			}
			ymd[i] = n
			if i > 0 {
				b.WriteByte('-')
			}
			fmt.Fprintf(&b, "%0*d", []int{4, 2, 2}[i], n)
		}
		valid = ymd[1] <= 12 && (ymd[1] == 0 || ymd[2] <= daysIn(ymd[0], ymd[1]))
	}
	if clock != "" {
		if date != "" {
			b.WriteByte(' ')
		}
		if clock[0] == '-' {
			b.WriteByte('-')
			clock = clock[1:]
		}
		hms, frac, _ := strings.Cut(clock, ".")
		parts := strings.Split(hms, ":")
		if len(parts) != 3 {
			return "", false
		}
		for i, p := range parts {
			n, err := strconv.ParseUint(p, 10, 32)
			if err != nil {
				return "", false
			}
			if i > 0 {
				b.WriteByte(':')
			}
			fmt.Fprintf(&b, "%02d", n)
			maxN := uint64(59)
			if i == 0 {
				maxN = 23
				if t == sqltypes.Time {
					maxN = 838
				}
			}
			valid = valid && n <= maxN
		}
		if strings.Trim(frac, "0") != "" {
			if _, err := strconv.ParseUint(frac, 10, 32); err != nil || len(frac) > 6 {
				return "", false
			}
			b.WriteString("." + frac)
		}
	}
	if !valid {
		return "'" + b.String() + "'", true
	}
	switch t {
	case sqltypes.Date:
		return "DATE'" + b.String() + "'", true
	case sqltypes.Time:
		return "TIME'" + b.String() + "'", true
	}
	return "TIMESTAMP'" + b.String() + "'", true
}

// daysIn is the number of days of month m (1-12) of year y.
func daysIn(y, m uint64) uint64 {
	switch m {
	case 4, 6, 9, 11:
		return 30
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	}
	return 31
}

func badParam(v sqltypes.Value) error {
	return sqlerr.New(sqlerr.ErrWrongArguments, "HY000", "Incorrect arguments to mysqld_stmt_execute: bad %s value", v.Type())
}

// isDecimal reports whether b is a plain decimal number: digits with an
// optional sign and fraction, no exponent.
func isDecimal(b []byte) bool {
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		b = b[1:]
	}
	digits, dot := 0, false
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return digits > 0
}
