package rowformat

import (
	"fmt"
	"slices"
	"strings"

	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/mysql/collations/charset"
	"vitess.io/vitess/go/mysql/collations/colldata"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// BinaryCollation is the binary charset's collation id (63).
const BinaryCollation = 63

// Character sets of result and fragment columns: which columns are
// character data, their real collations, and the conversions between the
// charset a value is merged in, its column's, and the client's.

// RealCharsets gives each character column of a fragment (described over
// a utf8mb4 connection) the collation and length it has unconverted (raw:
// character_set_results = NULL). Workers read fragments as utf8mb4, so a
// column whose real charset differs (latin1, utf8mb3, …) arrives
// converted: the merge converts it back (prepared.recode) and groups,
// compares, sorts and evaluates it as MySQL does, in its own charset and
// collation; the result writer converts what it sends.
func RealCharsets(frag, raw []*querypb.Field) ([]*querypb.Field, error) {
	if len(raw) != len(frag) {
		return nil, fmt.Errorf("fragment has %d columns unconverted, %d converted", len(raw), len(frag))
	}
	out := frag
	for i, f := range frag {
		r := raw[i]
		if !CharField(f) || r.Charset == f.Charset || r.Charset == BinaryCollation {
			continue
		}
		if &out[0] == &frag[0] {
			out = slices.Clone(frag)
		}
		c := f.CloneVT()
		c.Charset, c.ColumnLength = r.Charset, r.ColumnLength
		out[i] = c
	}
	return out, nil
}

// HasCharColumns reports whether fs has a character column.
func HasCharColumns(fs []*querypb.Field) bool {
	for _, f := range fs {
		if CharField(f) {
			return true
		}
	}
	return false
}

// CharField reports whether f is a character column: text, or typed
// binary by vitess for its BINARY flag (a _bin collation, COLLATE
// utf8mb4_bin) with a character set all the same.
func CharField(f *querypb.Field) bool {
	return f.Charset != BinaryCollation && (sqltypes.IsText(f.Type) || sqltypes.IsBinary(f.Type))
}

// RecodedCharset returns the charset a character field's values must be
// converted to from utf8mb4 (their form on the wire from a worker, and
// in a replica's converted results), or nil when they need none.
func RecodedCharset(f *querypb.Field) charset.Charset {
	if f == nil || !CharField(f) {
		return nil // a latin1_bin column, typed VARBINARY, is text too
	}
	c := colldata.Lookup(collations.ID(f.Charset))
	if c == nil {
		return nil
	}
	if n := c.Charset().Name(); n == "utf8mb4" || n == "binary" {
		return nil
	}
	return c.Charset()
}

// InCharset is s, text of the statement (utf8mb4), converted to the
// charset of the character field f, as MariaDB converts a GROUP_CONCAT
// separator to the charset of the values it joins ('?' for a character
// that charset cannot hold: SEPARATOR 'ℵ' between latin1 values). s is
// returned as it is for other fields.
func InCharset(s string, f *querypb.Field) string {
	if f == nil || !CharField(f) {
		return s
	}
	c := colldata.Lookup(collations.ID(f.Charset))
	if c == nil {
		return s
	}
	b, _ := charset.Convert(nil, c.Charset(), []byte(s), charset.Charset_utf8mb4{})
	return string(b)
}

// ForeignText reports whether f is text in a character set whose bytes
// are not UTF-8 (latin1, ucs2, …; not utf8mb4, utf8mb3 or ascii).
func ForeignText(f *querypb.Field) bool {
	if RecodedCharset(f) == nil {
		return false
	}
	switch CharsetName(f) {
	case "utf8mb3", "utf8", "ascii":
		return false
	}
	return true
}

// ASCIICompatible reports whether f's character set writes ASCII as
// ASCII bytes (latin1, cp1251, utf8mb4; not ucs2, utf16 or utf32), or f
// is not a character column.
func ASCIICompatible(f *querypb.Field) bool {
	if f == nil || !CharField(f) {
		return true
	}
	c := colldata.Lookup(collations.ID(f.Charset))
	if c == nil {
		return true
	}
	var b [4]byte
	return c.Charset().EncodeRune(b[:], '{') == 1 && b[0] == '{'
}

// CharsetName is the name of f's character set ("" when unknown).
func CharsetName(f *querypb.Field) string {
	if f == nil {
		return ""
	}
	if c := colldata.Lookup(collations.ID(f.Charset)); c != nil {
		return c.Charset().Name()
	}
	return ""
}

// OutputCharset returns the charset an output's values must be converted
// from for its result column f, given the collation coll they are
// evaluated in (nil: none, the same charset or not text).
func OutputCharset(coll collations.ID, f *querypb.Field) charset.Charset {
	if coll == collations.Unknown || f == nil || !CharField(f) {
		return nil
	}
	from, to := colldata.Lookup(coll), colldata.Lookup(collations.ID(f.Charset))
	if from == nil || to == nil || from.Charset().Name() == to.Charset().Name() || from.Charset().Name() == "binary" {
		return nil
	}
	return from.Charset()
}

func Collation(f *querypb.Field) collations.ID {
	if f == nil || f.Charset == 63 { // binary
		return 0
	}
	return collations.ID(f.Charset)
}

// RecodeOut converts a text value from charset from to the charset of
// its result column f (a character MySQL cannot convert becomes '?').
func RecodeOut(v sqltypes.Value, from charset.Charset, f *querypb.Field) sqltypes.Value {
	to := colldata.Lookup(collations.ID(f.Charset))
	if to == nil || !v.IsText() && !v.IsBinary() {
		return v
	}
	b, _ := charset.Convert(nil, to.Charset(), v.Raw(), from)
	return sqltypes.MakeTrusted(v.Type(), b)
}

// ConvertFields is fs as MariaDB describes them for character_set_results
// to: a text column's charset number is to's, and its length in bytes is
// its length in characters times to's bytes per character.
func ConvertFields(fs []*querypb.Field, to colldata.Collation) []*querypb.Field {
	out := make([]*querypb.Field, len(fs))
	for i, f := range fs {
		from := colldata.Lookup(collations.ID(f.Charset))
		if f.Charset == BinaryCollation || from == nil {
			out[i] = f
			continue
		}
		c := f.CloneVT()
		c.Charset = uint32(to.ID())
		if n := from.Charset().MaxWidth(); n > 0 {
			c.ColumnLength = f.ColumnLength / uint32(n) * uint32(to.Charset().MaxWidth())
		}
		out[i] = c
	}
	return out
}

// Scale is a DECIMAL column's digits after the point as the catalog
// reads them (planner.Column.Scale), 0 for other types.
func Scale(f *querypb.Field) int {
	if f.Type == sqltypes.Decimal {
		return int(f.Decimals)
	}
	return 0
}

// Precision is a DECIMAL result column's number of digits, read from its
// display length (digits, a sign unless UNSIGNED, a point when it has a
// scale), 0 for other types.
func Precision(f *querypb.Field) int {
	if f.Type != sqltypes.Decimal {
		return 0
	}
	p := int(f.ColumnLength)
	if f.Decimals > 0 {
		p--
	}
	if f.Flags&uint32(querypb.MySqlFlag_UNSIGNED_FLAG) == 0 {
		p--
	}
	return max(p, 0)
}

// DataType is a result column's type as information_schema.COLUMNS'
// DATA_TYPE names it, which is what the planner's type rules read.
func DataType(f *querypb.Field) string {
	switch f.Type {
	case sqltypes.Int8, sqltypes.Uint8:
		return "tinyint"
	case sqltypes.Int16, sqltypes.Uint16:
		return "smallint"
	case sqltypes.Int24, sqltypes.Uint24:
		return "mediumint"
	case sqltypes.Int32, sqltypes.Uint32:
		return "int"
	case sqltypes.Int64, sqltypes.Uint64:
		return "bigint"
	case sqltypes.Float32:
		return "float"
	case sqltypes.Float64:
		return "double"
	case sqltypes.Decimal:
		return "decimal"
	case sqltypes.Year:
		return "year"
	case sqltypes.Date:
		return "date"
	case sqltypes.Datetime:
		return "datetime"
	case sqltypes.Timestamp:
		return "timestamp"
	case sqltypes.Time:
		return "time"
	case sqltypes.Char:
		return "char"
	case sqltypes.VarChar:
		return "varchar"
	case sqltypes.Text:
		return "text"
	case sqltypes.Binary:
		return "binary"
	case sqltypes.VarBinary:
		return "varbinary"
	case sqltypes.Blob:
		return "blob"
	case sqltypes.Enum:
		return "enum"
	case sqltypes.Set:
		return "set"
	case sqltypes.TypeJSON:
		return "json"
	}
	return strings.ToLower(f.Type.String())
}

// ToClient returns callback converting each result it is given from
// utf8mb4 to the client's character set id: column definitions as
// ConvertFields, text values re-encoded ('?' for what id cannot hold).
// Rows are copied: the ones given may be a cached result's.
func ToClient(id collations.ID, callback func(*sqltypes.Result) error) func(*sqltypes.Result) error {
	to := colldata.Lookup(id)
	if to == nil {
		return callback
	}
	var fields []*querypb.Field // as sent, converted
	// utf8mb4 under another collation: the text is the same, only the
	// column definitions change.
	same := to.Charset().Name() == "utf8mb4"
	return func(r *sqltypes.Result) error {
		if r.Fields != nil {
			fields = ConvertFields(r.Fields, to)
			r = &sqltypes.Result{Fields: fields, Rows: r.Rows, RowsAffected: r.RowsAffected, InsertID: r.InsertID}
		}
		if len(r.Rows) > 0 && fields != nil && !same {
			rows := make([][]sqltypes.Value, len(r.Rows))
			for j, row := range r.Rows {
				out := make([]sqltypes.Value, len(row))
				for i, v := range row {
					out[i] = v
					if i < len(fields) && fields[i].Charset != BinaryCollation && v.IsText() {
						b, _ := charset.Convert(nil, to.Charset(), v.Raw(), charset.Charset_utf8mb4{})
						out[i] = sqltypes.MakeTrusted(v.Type(), b)
					}
				}
				rows[j] = out
			}
			r = &sqltypes.Result{Fields: r.Fields, Rows: rows}
		}
		return callback(r)
	}
}

// OwnCollations is fs with each character column's collation replaced by
// own(i) where that is a collation (not 0) and differs; utf8mb4Only keeps
// only collations of utf8mb4 (values held as utf8mb4 whose collation
// would say another charset are left as they are). fs is not changed; a
// copy is returned when a column changes.
func OwnCollations(fs []*querypb.Field, own func(i int) uint32, utf8mb4Only bool) []*querypb.Field {
	out := fs
	for i, f := range fs {
		c := own(i)
		if !CharField(f) || c == 0 || c == f.Charset || c == BinaryCollation {
			continue
		}
		if coll := colldata.Lookup(collations.ID(c)); utf8mb4Only && (coll == nil || coll.Charset().Name() != "utf8mb4") {
			continue
		}
		if &out[0] == &fs[0] {
			out = slices.Clone(fs)
		}
		g := f.CloneVT()
		g.Charset = c
		out[i] = g
	}
	return out
}
