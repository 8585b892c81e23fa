package mysqlwire

import (
	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/replication"
	"vitess.io/vitess/go/sqltypes"

	"github.com/shoaldb/shoal/sqlerr"
)

// The commands below are part of vitess' Handler interface. Shoal is not a
// replication source: those commands answer with a clear MySQL error.
// ComQueryMulti runs its text as one ComQuery; with CLIENT_MULTI_STATEMENTS
// vitess' server splits a query into statements and calls ComQuery for
// each. Prepared statements are in prepared.go.

func notSupported(what string) error {
	return sqlerr.New(sqlerr.ErrNotSupported, "42000", "This version of Shoal doesn't yet support '%s'; use text-protocol queries", what)
}

func (h *handler) ComQueryMulti(c *mysql.Conn, sql string, callback func(qr sqltypes.QueryResponse, more bool, firstPacket bool) error) error {
	first := true
	return h.ComQuery(c, sql, func(r *sqltypes.Result) error {
		f := first
		first = false
		return callback(sqltypes.QueryResponse{QueryResult: r}, false, f)
	})
}

func (h *handler) ComRegisterReplica(*mysql.Conn, string, uint16, string, string) error {
	return notSupported("replication from Shoal")
}

func (h *handler) ComBinlogDump(*mysql.Conn, string, uint32) error {
	return notSupported("replication from Shoal")
}

func (h *handler) ComBinlogDumpGTID(*mysql.Conn, string, uint64, replication.GTIDSet, uint16) error {
	return notSupported("replication from Shoal")
}
