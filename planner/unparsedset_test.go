package planner

import (
	"testing"

	"github.com/shoaldb/shoal/sqlparse"
)

func TestClassifyUnparsedSet(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want Kind
	}{
		{"SET NAMES cp1251", Set},
		{"set names koi8r collate koi8r_general_ci", Set},
		{"SET CHARACTER SET cp1250", Set},
		{"SET STATEMENT sql_mode='PIPES_AS_CONCAT' FOR SELECT 'a' || 'b'", Passthrough},
		{"SET STATEMENT max_statement_time=1, div_precision_increment=2 FOR select avg(x) from t", Passthrough},
		{"SET STATEMENT sql_mode='x for y' FOR SHOW TABLES", Passthrough},
		{"SET STATEMENT time_zone='+01:00' FOR SELECT NOW() -- for\n", Passthrough},
		{"SET STATEMENT sql_mode='' FOR DELETE FROM t", Refuse},
		{"SET STATEMENT sql_mode='' FOR INSERT INTO t VALUES (1)", Refuse},
		{"SET STATEMENT sql_mode='' FOR SET NAMES latin1", Refuse},
		{"SET STATEMENT sql_mode='' FOR SELECT 1 INTO OUTFILE '/tmp/x'", Refuse},
		{"SET STATEMENT sql_mode=''", Unparsable},
		{"SET GLOBAL character_set_server = cp1251", Refuse},
		{"SET @@global.character_set_server = cp1251", Refuse},
		{"SET PASSWORD FOR x = PASSWORD('y') cp1251", Refuse},
		{"SET DEFAULT ROLE r FOR u cp1251", Refuse},
	} {
		if got, why := ClassifyUnparsed(c.sql); got != c.want {
			t.Errorf("ClassifyUnparsed(%q) = %v (%s), want %v", c.sql, got, why, c.want)
		}
	}
}

// TestClassifyLocks: read locks are taken on the session's replica
// (mariadb-dump's --lock-tables sends the second form); a write lock is
// refused like a write.
func TestClassifyLocks(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want Kind
	}{
		{"LOCK TABLES t READ", LockRead},
		{"LOCK TABLES `carriers` READ /*!32311 LOCAL */,`ontime` READ /*!32311 LOCAL */", LockRead},
		{"LOCK TABLES t WRITE", Refuse},
		{"LOCK TABLES t READ, u WRITE", Refuse},
		{"UNLOCK TABLES", Passthrough},
	} {
		stmts, err := sqlparse.Parse(c.sql)
		if err != nil || len(stmts) != 1 {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if got, why := Classify(stmts[0]); got != c.want {
			t.Errorf("Classify(%q) = %v (%s), want %v", c.sql, got, why, c.want)
		}
	}
}
