package rowformat

import (
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// MaxSortLength is MariaDB's default max_sort_length: a sort (ORDER BY,
// and the sorted groups of a temporary table) compares only the first
// that many bytes of each string's sort key, and rows whose keys agree
// there are ties, left in the order the sort met them.
const MaxSortLength = 1024

// LongSortText reports whether f is a table's TEXT or BLOB column whose
// values can be longer than MaxSortLength bytes: ordered by the whole
// value, two of them that agree in their first MaxSortLength bytes could
// come in another order than MariaDB's, which cuts only BLOB and TEXT
// sort keys there (`mariadbd --help`: "The number of bytes to use when
// sorting BLOB or TEXT values"; a VARCHAR is sorted whole, even under a
// session's max_sort_length = 8). The sort key of a collation is not its
// bytes (two bytes a character for utf8mb4_general_ci, more for an
// expansion under _unicode_ci), but the byte length bounds the
// characters a value holds: a TINYTEXT holds at most 255 bytes. An
// expression's value (JSON_VALUE of a JSON column, typed LONGTEXT: the
// dashboards' GROUP BY JSON_VALUE(payload, '$.plan') ORDER BY 1) is not
// held to it: such values are short in practice, and a key of them
// longer than max_sort_length is a documented difference (docs/sql.md).
func LongSortText(f *querypb.Field) bool {
	if f == nil || f.ColumnLength <= MaxSortLength || f.OrgTable == "" || f.OrgName == "" {
		return false
	}
	return f.Type == sqltypes.Text || f.Type == sqltypes.Blob
}
