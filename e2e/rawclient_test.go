package e2e

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"

	"github.com/go-sql-driver/mysql"
	vtmysql "vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shoaldb/shoal/replica"
)

// The differential oracle reads both sides with a raw text-protocol client
// (vitess' mysql.Conn): each value exactly as the server sent its bytes,
// and each column definition as sent (type, length, decimals, charset,
// flags), not values converted by a driver.

// rawSide is one side of the comparison: a few idle connections.
type rawSide struct {
	params vtmysql.ConnParams
	mu     sync.Mutex
	idle   []*vtmysql.Conn
}

var rawShoal, rawDirect *rawSide

// compareDefs compares column definitions (type, length, decimals,
// charset, flags) as well as names, types and text; on unless
// SHOAL_E2E_COLDEFS=0. Shoal describes the client's own statement text
// through MariaDB's own plan (engine/coldefs); docs/sql.md, "Column
// definitions", lists where they can still differ.
var compareDefs = os.Getenv("SHOAL_E2E_COLDEFS") != "0"

func newRawSide(addr, user, pass, db string) (*rawSide, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return nil, err
	}
	return &rawSide{params: vtmysql.ConnParams{Host: host, Port: p, Uname: user, Pass: pass, DbName: db}}, nil
}

func (s *rawSide) get() (*vtmysql.Conn, error) {
	s.mu.Lock()
	if n := len(s.idle); n > 0 {
		c := s.idle[n-1]
		s.idle = s.idle[:n-1]
		s.mu.Unlock()
		return c, nil
	}
	s.mu.Unlock()
	return vtmysql.Connect(context.Background(), &s.params)
}

func (s *rawSide) put(c *vtmysql.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.idle) < 8 {
		s.idle = append(s.idle, c)
		return
	}
	c.Close()
}

func (s *rawSide) close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.idle {
		c.Close()
	}
	s.idle = nil
}

// query runs q and returns its answer: rows as the text sent, column
// definitions rendered for comparison, or the server's error.
func (s *rawSide) query(q string) (*result, error) {
	c, err := s.get()
	if err != nil {
		return nil, err
	}
	// replica.Stream decodes the column definitions as sent: vitess'
	// ExecuteFetch adds NUM_FLAG to every numeric column on both sides,
	// which hid a flag Shoal sent and MariaDB does not.
	qr, err := (&replica.Conn{MySQL: c}).Fetch(q, -1) // all rows, flags as sent
	if err != nil {
		var se *sqlerror.SQLError
		if errors.As(err, &se) && se.Number() < sqlerror.CRUnknownError {
			s.put(c) // a statement's error: the connection is fine
			return &result{err: &mysql.MySQLError{Number: uint16(se.Number()), Message: se.Message}}, nil
		}
		c.Close()
		return nil, err
	}
	if c.IsMarkedForClose() {
		c.Close()
	} else {
		s.put(c)
	}
	r := &result{defs: []string{}}
	for _, f := range qr.Fields {
		r.cols = append(r.cols, f.Name)
		r.types = append(r.types, f.Type.String())
		r.defs = append(r.defs, fieldDef(f))
	}
	for _, row := range qr.Rows {
		out := make([]string, len(row))
		for i, v := range row {
			if v.IsNull() {
				out[i] = "NULL"
			} else {
				out[i] = string(v.Raw())
			}
		}
		r.rows = append(r.rows, out)
	}
	return r, nil
}

// fieldDef renders what a client learns from a column definition.
func fieldDef(f *querypb.Field) string {
	return fmt.Sprintf("%s len=%d dec=%d charset=%d flags=%#x", f.Type, f.ColumnLength, f.Decimals, f.Charset, f.Flags)
}
