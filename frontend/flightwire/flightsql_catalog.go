package flightwire

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql/schema_ref"
	"github.com/shoaldb/shoal/replica"
	"github.com/shoaldb/shoal/sqlparse"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Flight SQL catalog commands, answered from a replica's
// information_schema on a read-only session connection.
//
// MySQL's databases are Flight SQL's db_schemas; there are no catalogs
// (GetCatalogs is empty, and a catalog filter other than "" matches
// nothing). Table types are JDBC's: BASE TABLE (and SYSTEM VERSIONED) is
// TABLE, TEMPORARY is LOCAL TEMPORARY; VIEW, SYSTEM VIEW and SEQUENCE keep
// their names. Filter patterns are LIKE patterns ('%', '_', '\' escapes),
// as the protocol defines them.

// maxCatalogRows bounds a catalog listing.
const maxCatalogRows = 1_000_000

// flightTableTypes are the table types GetTableTypes lists.
var flightTableTypes = []string{"TABLE", "VIEW", "SYSTEM VIEW", "SEQUENCE", "LOCAL TEMPORARY"}

func flightTableType(t string) string {
	switch t {
	case "BASE TABLE", "SYSTEM VERSIONED":
		return "TABLE"
	case "TEMPORARY":
		return "LOCAL TEMPORARY"
	}
	return t
}

// commandInfo is the FlightInfo of a catalog command: the command is its
// own ticket.
func (f *flightSQLServer) commandInfo(desc *flight.FlightDescriptor, schema *arrow.Schema) *flight.FlightInfo {
	return &flight.FlightInfo{
		Schema:           flight.SerializeSchema(schema, f.mem),
		FlightDescriptor: desc,
		Endpoint:         []*flight.FlightEndpoint{{Ticket: &flight.Ticket{Ticket: desc.Cmd}}},
		TotalRecords:     -1,
		TotalBytes:       -1,
	}
}

func (f *flightSQLServer) GetFlightInfoCatalogs(_ context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return f.commandInfo(desc, schema_ref.Catalogs), nil
}

func (f *flightSQLServer) DoGetCatalogs(ctx context.Context) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	return f.oneBatch(ctx, schema_ref.Catalogs, nil)
}

func (f *flightSQLServer) GetFlightInfoTableTypes(_ context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return f.commandInfo(desc, schema_ref.TableTypes), nil
}

func (f *flightSQLServer) DoGetTableTypes(ctx context.Context) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	rows := make([][]any, len(flightTableTypes))
	for i, t := range flightTableTypes {
		rows[i] = []any{t}
	}
	return f.oneBatch(ctx, schema_ref.TableTypes, rows)
}

func (f *flightSQLServer) GetFlightInfoSchemas(_ context.Context, _ flightsql.GetDBSchemas, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return f.commandInfo(desc, schema_ref.DBSchemas), nil
}

func (f *flightSQLServer) DoGetDBSchemas(ctx context.Context, cmd flightsql.GetDBSchemas) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	if c := cmd.GetCatalog(); c != nil && *c != "" {
		return f.oneBatch(ctx, schema_ref.DBSchemas, nil)
	}
	q := "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA"
	if p := cmd.GetDBSchemaFilterPattern(); p != nil {
		q += " WHERE SCHEMA_NAME LIKE " + sqlparse.QuoteString([]byte(*p))
	}
	q += " ORDER BY SCHEMA_NAME"
	var rows [][]any
	err := f.onReplica(ctx, func(b *replica.Conn) error {
		res, err := b.Fetch(q, maxCatalogRows)
		if err != nil {
			return err
		}
		for _, r := range res.Rows {
			rows = append(rows, []any{nil, r[0].ToString()})
		}
		return nil
	})
	if err != nil {
		return nil, nil, flightError(err)
	}
	return f.oneBatch(ctx, schema_ref.DBSchemas, rows)
}

func (f *flightSQLServer) GetFlightInfoTables(_ context.Context, cmd flightsql.GetTables, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	if cmd.GetIncludeSchema() {
		return f.commandInfo(desc, schema_ref.TablesWithIncludedSchema), nil
	}
	return f.commandInfo(desc, schema_ref.Tables), nil
}

// DoGetTables lists tables; with include_schema, each table's Arrow schema
// from SELECT * … LIMIT 0 (one statement per table on one connection).
func (f *flightSQLServer) DoGetTables(ctx context.Context, cmd flightsql.GetTables) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	schema := schema_ref.Tables
	if cmd.GetIncludeSchema() {
		schema = schema_ref.TablesWithIncludedSchema
	}
	if c := cmd.GetCatalog(); c != nil && *c != "" {
		return f.oneBatch(ctx, schema, nil)
	}
	q := "SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE 1 = 1"
	if p := cmd.GetDBSchemaFilterPattern(); p != nil {
		q += " AND TABLE_SCHEMA LIKE " + sqlparse.QuoteString([]byte(*p))
	}
	if p := cmd.GetTableNameFilterPattern(); p != nil {
		q += " AND TABLE_NAME LIKE " + sqlparse.QuoteString([]byte(*p))
	}
	q += " ORDER BY TABLE_SCHEMA, TABLE_NAME"
	want := map[string]bool{}
	for _, t := range cmd.GetTableTypes() {
		want[strings.ToUpper(t)] = true
	}
	var rows [][]any
	err := f.onReplica(ctx, func(b *replica.Conn) error {
		res, err := b.Fetch(q, maxCatalogRows)
		if err != nil {
			return err
		}
		for _, r := range res.Rows {
			db, name, typ := r[0].ToString(), r[1].ToString(), flightTableType(r[2].ToString())
			if len(want) > 0 && !want[typ] {
				continue
			}
			row := []any{nil, db, name, typ}
			if cmd.GetIncludeSchema() {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				cols, err := b.Fetch("SELECT * FROM "+sqlparse.QuoteID(db)+"."+sqlparse.QuoteID(name)+" LIMIT 0", 0)
				if err != nil {
					if replica.Broken(err) {
						return err
					}
					// A view over a table that is gone, say: list it
					// with no columns rather than fail the listing.
					f.log.Info("Flight SQL GetTables: no columns for a table", "table", db+"."+name, "err", err)
					row = append(row, flight.SerializeSchema(arrow.NewSchema(nil, nil), f.mem))
				} else {
					row = append(row, flight.SerializeSchema(flightSchema(cols.Fields), f.mem))
				}
			}
			rows = append(rows, row)
		}
		return nil
	})
	if err != nil {
		return nil, nil, flightError(err)
	}
	return f.oneBatch(ctx, schema, rows)
}

// onReplica runs fn on a read-only replica connection of a session of
// its own, closed afterwards.
func (f *flightSQLServer) onReplica(ctx context.Context, fn func(*replica.Conn) error) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	return f.r.Engine().OnReplica(ctx, fn)
}

// oneBatch answers with rows (nil values are NULL; string and []byte
// otherwise) as one batch of schema, held in the DoGet call's ledger.
func (f *flightSQLServer) oneBatch(ctx context.Context, schema *arrow.Schema, rows [][]any) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	ch := make(chan flight.StreamChunk, 1)
	defer close(ch)
	if len(rows) == 0 {
		return schema, ch, nil
	}
	rb := array.NewRecordBuilder(f.mem, schema)
	defer rb.Release()
	for _, row := range rows {
		for i, v := range row {
			switch b := rb.Field(i).(type) {
			case *array.StringBuilder:
				if s, ok := v.(string); ok {
					b.Append(s)
				} else {
					b.AppendNull()
				}
			case *array.BinaryBuilder:
				if s, ok := v.([]byte); ok {
					b.Append(s)
				} else {
					b.AppendNull()
				}
			default:
				return nil, nil, status.Error(codes.Internal, fmt.Sprintf("catalog column of type %s", b.Type()))
			}
		}
	}
	ch <- flight.StreamChunk{Data: doGetLedger(ctx).hold(rb.NewRecordBatch())}
	return schema, ch, nil
}
