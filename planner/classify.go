package planner

import (
	"github.com/shoaldb/shoal/sqlparse"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Kind says what the coordinator does with a statement.
type Kind int

// Statement kinds.
const (
	// Passthrough statements go verbatim to one healthy replica.
	Passthrough Kind = iota
	// Refuse statements would write; they get error 1290.
	Refuse
	// Select statements are candidates for distribution.
	Select
	// Explain is EXPLAIN [ANALYZE] of a candidate SELECT.
	Explain
	// Use changes the session's database.
	Use
	// Set changes session state; it is applied to the session's replica
	// connection and remembered.
	Set
	// Named is SQL-level PREPARE, EXECUTE and DEALLOCATE PREPARE: the
	// router keeps each session's named statements and runs an EXECUTE
	// as its statement with the values bound, like any other query.
	Named
	// LockRead is LOCK TABLES with READ locks only: taken on the
	// session's replica connection, where the session's reads then run
	// until UNLOCK TABLES (mysqldump's default --lock-tables).
	LockRead
)

// Classify decides what to do with a parsed statement. It is conservative:
// anything that could change data or schema is refused, anything else that
// Shoal does not distribute passes through.
func Classify(stmt ast.StmtNode) (Kind, string) {
	if why := sqlparse.TextWrites(stmt.Text()); why != "" {
		return Refuse, why
	}
	switch s := stmt.(type) {
	case *ast.SelectStmt:
		if s.SelectIntoOpt != nil {
			return Refuse, "SELECT ... INTO"
		}
		if s.LockInfo != nil && s.LockInfo.LockType != ast.SelectLockNone {
			return Refuse, "SELECT ... FOR UPDATE / LOCK IN SHARE MODE"
		}
		return Select, ""
	case *ast.SetOprStmt, *ast.ShowStmt, *ast.HelpStmt:
		return Passthrough, ""
	case *ast.ExplainStmt:
		if sel, ok := s.Stmt.(*ast.SelectStmt); ok {
			if k, why := Classify(sel); k == Refuse {
				return Refuse, why
			}
			return Explain, ""
		}
		if _, ok := s.Stmt.(*ast.ShowStmt); ok {
			return Passthrough, "" // DESCRIBE t
		}
		if _, ok := s.Stmt.(*ast.SetOprStmt); ok {
			// Explained by the coordinator when it runs distributed,
			// else passed through.
			return Explain, ""
		}
		return Refuse, "EXPLAIN of a write"
	case *ast.UseStmt:
		return Use, ""
	case *ast.SetStmt:
		for _, v := range s.Variables {
			if v.IsGlobal {
				return Refuse, "SET GLOBAL"
			}
		}
		return Set, ""
	case *ast.SetSessionStatesStmt:
		return Refuse, "SET SESSION_STATES"
	case *ast.BeginStmt, *ast.CommitStmt, *ast.RollbackStmt, *ast.SavepointStmt, *ast.ReleaseSavepointStmt:
		// Transactions and their savepoints (an ORM's nested transaction,
		// mysqldump --single-transaction) are harmless on a read-only
		// endpoint.
		return Passthrough, ""
	case *ast.LockTablesStmt:
		for _, l := range s.TableLocks {
			if l.Type != ast.TableLockRead && l.Type != ast.TableLockReadLocal {
				return Refuse, "LOCK TABLES … WRITE"
			}
		}
		return LockRead, ""
	case *ast.UnlockTablesStmt:
		// Releases LockRead's locks; mysqldump --single-transaction
		// sends it after START TRANSACTION.
		return Passthrough, ""
	case *ast.DoStmt:
		return Passthrough, ""
	case *ast.PrepareStmt, *ast.ExecuteStmt, *ast.DeallocateStmt:
		return Named, ""
	}
	return Refuse, statementName(stmt)
}

// Unparsable is the kind of a statement that neither the TiDB parser nor
// its first keyword explains: a syntax error, answered with 1064.
const Unparsable Kind = -1

// writeKeywords start statements that change data, schema, users or server
// state.
var writeKeywords = map[string]bool{
	"INSERT": true, "UPDATE": true, "DELETE": true, "REPLACE": true, "CREATE": true, "ALTER": true,
	"DROP": true, "TRUNCATE": true, "RENAME": true, "GRANT": true, "REVOKE": true, "LOCK": true,
	"UNLOCK": true, "LOAD": true, "CALL": true, "HANDLER": true, "INSTALL": true, "UNINSTALL": true,
	"FLUSH": true, "RESET": true, "PURGE": true, "CHANGE": true, "START": true, "STOP": true,
	"OPTIMIZE": true, "REPAIR": true, "ANALYZE": true, "BACKUP": true, "XA": true, "IMPORT": true,
	"SHUTDOWN": true, "RESTART": true, "CLONE": true, "BINLOG": true, "CACHE": true, "PREPARE": true,
	"EXECUTE": true, "DEALLOCATE": true, "SET": true, "KILL": true,
}

// ClassifyUnparsed decides for a statement the TiDB parser cannot read
// (MariaDB-only syntax, for example) from its first keyword. Statements
// that read pass through, so the replica answers them (or reports the
// syntax error with its own message); those that might write are refused;
// anything else is a syntax error.
func ClassifyUnparsed(sql string) (Kind, string) {
	if why := sqlparse.TextWrites(sql); why != "" {
		return Refuse, why
	}
	kw := strings.ToUpper(firstKeyword(sql))
	switch {
	case kw == "SELECT", kw == "SHOW", kw == "DESCRIBE", kw == "DESC", kw == "EXPLAIN", kw == "WITH",
		kw == "HELP", kw == "VALUES", kw == "TABLE", kw == "(", kw == "CHECKSUM", kw == "DO":
		return Passthrough, ""
	case kw == "SET":
		return unparsedSet(sql) // unparsedset.go
	case writeKeywords[kw]:
		return Refuse, kw
	}
	return Unparsable, kw
}

func firstKeyword(sql string) string {
	s := strings.TrimSpace(sql)
	for {
		switch {
		case strings.HasPrefix(s, "/*") && !strings.HasPrefix(s, "/*!") && !strings.HasPrefix(s, "/*M!"):
			end := strings.Index(s, "*/")
			if end < 0 {
				return ""
			}
			s = strings.TrimSpace(s[end+2:])
			continue
		case strings.HasPrefix(s, "-- ") || strings.HasPrefix(s, "#"):
			end := strings.IndexByte(s, '\n')
			if end < 0 {
				return ""
			}
			s = strings.TrimSpace(s[end+1:])
			continue
		}
		break
	}
	if strings.HasPrefix(s, "(") {
		return "("
	}
	end := strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_')
	})
	if end < 0 {
		return s
	}
	return s[:end]
}

func statementName(stmt ast.StmtNode) string {
	switch stmt.(type) {
	case *ast.InsertStmt:
		return "INSERT/REPLACE"
	case *ast.UpdateStmt:
		return "UPDATE"
	case *ast.DeleteStmt:
		return "DELETE"
	case *ast.LockTablesStmt, *ast.UnlockTablesStmt:
		return "LOCK TABLES"
	case *ast.LoadDataStmt:
		return "LOAD DATA"
	case ast.DDLNode:
		return "DDL"
	}
	return "statement"
}
