package sqlparse

import "testing"

// TestTextWrites: clauses that write or lock on the server running the
// text are found wherever MariaDB reads them as code, and nothing is
// found in quotes, comments or identifiers.
func TestTextWrites(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want string // "" for none
	}{
		{"SELECT id INTO OUTFILE '/tmp/x' FROM t LIMIT 3", "SELECT ... INTO OUTFILE"},
		{"select id into dumpfile '/tmp/x' from t limit 1", "SELECT ... INTO DUMPFILE"},
		{"SELECT id FROM t LIMIT 1 /*M! INTO OUTFILE '/tmp/x' */", "SELECT ... INTO OUTFILE"},
		{"SELECT id FROM t LIMIT 1 /*!50000 INTO OUTFILE '/tmp/x' */", "SELECT ... INTO OUTFILE"},
		{"SELECT id FROM t /*!INTO*/ OUTFILE '/tmp/x'", "SELECT ... INTO OUTFILE"},
		{"SELECT id FROM t /*M!100500INTO OUTFILE '/tmp/x'*/", "SELECT ... INTO OUTFILE"},
		{"SELECT id FROM t INTO /* c */ OUTFILE '/tmp/x'", "SELECT ... INTO OUTFILE"},
		{"SELECT 1 UNION SELECT 2 INTO OUTFILE '/tmp/x'", "SELECT ... INTO OUTFILE"},
		{"(SELECT id FROM t) INTO OUTFILE '/tmp/x'", "SELECT ... INTO OUTFILE"},
		{"SELECT id FROM t FOR UPDATE SKIP LOCKED", "SELECT ... FOR UPDATE"},
		{"SELECT id FROM t LIMIT 1 FOR UPDATE NOWAIT", "SELECT ... FOR UPDATE"},
		{"SELECT id FROM t LOCK IN SHARE MODE WAIT 1", "SELECT ... LOCK IN SHARE MODE"},
		{"SELECT * FROM (SELECT id FROM t FOR UPDATE) x", "SELECT ... FOR UPDATE"},
		{"SELECT NEXTVAL(s)", "NEXTVAL, which advances a sequence"},
		{"SELECT nextval /* c */ (s), 1", "NEXTVAL, which advances a sequence"},
		{"SELECT SETVAL(s, 100)", "SETVAL, which advances a sequence"},
		{"SELECT NEXT VALUE FOR s", "NEXT VALUE FOR, which advances a sequence"},
		// None:
		{"SELECT 'INTO OUTFILE', \"for update\" FROM t", ""},
		{"SELECT `into` , `outfile` FROM t", ""},
		{"SELECT id FROM t -- INTO OUTFILE '/tmp/x'\n", ""},
		{"SELECT id FROM t # FOR UPDATE", ""},
		{"SELECT id FROM t /* INTO OUTFILE '/tmp/x' */", ""},
		{"SELECT COUNT(*) INTO @c FROM t", ""},
		{"SELECT id FROM t FOR SYSTEM_TIME ALL", ""},
		{"SELECT LASTVAL(s), PREVIOUS VALUE FOR s, nextval FROM t", ""},
		{"SELECT a.nextval FROM t a", ""},
		{"SELECT for_update, into_outfile FROM t", ""},
		{"SELECT 'it''s' INTO @a", ""},
		{"SELECT 'a\\' INTO OUTFILE' FROM t", ""},
		{"SELECT x FROM t WHERE a IN (1) AND lock_col IN (2) AND share = 1", ""},
	} {
		if got := TextWrites(c.sql); got != c.want {
			t.Errorf("TextWrites(%q) = %q, want %q", c.sql, got, c.want)
		}
	}
}
