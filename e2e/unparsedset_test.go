package e2e

import "testing"

// TestUnparsedSets: SET statements MariaDB accepts that the TiDB parser
// cannot read (a character set it does not know, MariaDB's SET STATEMENT
// … FOR) were refused with 1290 as if they wrote. They are session state
// or a per-statement setting: the answers through Shoal are MariaDB's,
// including what the statements after them return on that session; SET
// STATEMENT over a write is still refused.
func TestUnparsedSets(t *testing.T) {
	const dist = "SELECT Carrier, COUNT(*) FROM ontime GROUP BY Carrier ORDER BY Carrier LIMIT 3"
	for _, seq := range [][]string{
		{"SET NAMES cp1251", "SELECT @@character_set_client, @@character_set_results", dist, "SELECT 'Ж' AS c, LENGTH('Ж')"},
		{"SET CHARACTER SET koi8r", "SELECT @@character_set_results", dist},
		{"SET STATEMENT sql_mode='PIPES_AS_CONCAT' FOR SELECT 'a' || 'b'", "SELECT 'a' || 'b'", "SELECT @@sql_mode = 'PIPES_AS_CONCAT'"},
		{"SET STATEMENT div_precision_increment=9, max_statement_time=30 FOR SELECT AVG(Distance) FROM ontime", "SELECT AVG(Distance) FROM ontime"},
		{"SET STATEMENT sql_select_limit=2 FOR " + dist, dist},
	} {
		sameSequence(t, rawShoal, rawDirect, false, seq...)
	}
	for _, q := range []string{
		"SET STATEMENT sql_mode='' FOR DELETE FROM carriers",
		"SET STATEMENT sql_mode='' FOR INSERT INTO carriers (code) VALUES ('zz')",
		"SET GLOBAL character_set_server = cp1251",
	} {
		r, err := rawShoal.query(q)
		if err != nil || r.err == nil || r.err.Number != 1290 {
			t.Errorf("%s: want error 1290, got %v %+v", q, err, r)
		}
	}
}
