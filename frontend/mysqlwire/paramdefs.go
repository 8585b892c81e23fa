package mysqlwire

import "bytes"

// Parameter definitions of COM_STMT_PREPARE.
//
// A prepare's answer carries a column definition per `?` marker. MariaDB
// types each as MYSQL_TYPE_NULL (6): the parameter has no type until it is
// bound. vitess' go/mysql writes them itself (writePrepare), every one as
// VARBINARY (253) and otherwise as MariaDB does (name "?", charset binary,
// BINARY_FLAG), with no way for the handler to say otherwise. A client
// that reads them (MariaDB Connector/J's ParameterMetaData) saw VARBINARY
// where the server it stands for says NULL. So when the replicas are
// MariaDB, ComPrepare arms the connection's transport with the number of
// parameter definitions the answer it returns will carry, and the
// transport rewrites the type byte of each as it goes out (patchParamDefs):
// vitess writes them as these exact bytes. Armed only between a prepare and
// the client's next command, when nothing else is written; over TLS the
// transport carries ciphertext and nothing is rewritten (docs/sql.md).

// vitessParamDef is one parameter definition as vitess writes it: the
// packet header (a 23-byte payload) up to the sequence number, then after
// it the payload: catalog "def", empty schema, table and org_table, name
// "?", empty org_name, the fixed fields' length, charset 63, length 0,
// type VARBINARY (0xfd), flags BINARY_FLAG (0x80), 0 decimals, filler.
var vitessParamDef = []byte("\x03def\x00\x00\x00\x01?\x00\x0c\x3f\x00\x00\x00\x00\x00\xfd\x80\x00\x00\x00\x00")

// paramDefType is the offset of the type byte in vitessParamDef.
const paramDefType = 17

// mysqlTypeNull is MYSQL_TYPE_NULL, MariaDB's type of an unbound parameter.
const mysqlTypeNull = 0x06

// patchParamDefs returns b with the type of up to *left parameter
// definitions made MYSQL_TYPE_NULL, counting them off *left; b itself is
// not modified (a copy is returned when something changes).
func patchParamDefs(b []byte, left *int) []byte {
	out := b
	for from := 0; *left > 0; {
		i := bytes.Index(out[from:], vitessParamDef)
		if i < 0 {
			break
		}
		at := from + i
		// The packet header before it: a 23-byte payload.
		if at < 4 || out[at-4] != byte(len(vitessParamDef)) || out[at-3] != 0 || out[at-2] != 0 {
			from = at + 1
			continue
		}
		if &out[0] == &b[0] {
			out = bytes.Clone(b)
		}
		out[at+paramDefType] = mysqlTypeNull
		*left--
		from = at + len(vitessParamDef)
	}
	return out
}
