package rowformat

import (
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// StrField is a VARCHAR(n) utf8mb4 column definition.
func StrField(name string, n uint32) *querypb.Field {
	return &querypb.Field{Name: name, Type: sqltypes.VarChar, Charset: 45, ColumnLength: n * 4}
}

// IntField is a BIGINT(n) column definition.
func IntField(name string, n uint32) *querypb.Field {
	return &querypb.Field{Name: name, Type: sqltypes.Int64, Charset: 63, ColumnLength: n}
}
