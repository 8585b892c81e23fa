package e2e

import (
	"strings"
	"testing"

	"vitess.io/vitess/go/mysql/collations"
)

// TestConnectionCollation: a utf8mb4 (or utf8mb3) connection under
// another collation than its charset's default — SET NAMES utf8mb4
// COLLATE utf8mb4_unicode_ci as Laravel and PDO send it, or the
// collation a driver asks for at the handshake — gets column definitions
// naming that collation from MariaDB, for every text column. Shoal's own
// results named utf8mb4_general_ci (45) whatever the session chose, and
// ignored a utf8mb4 collation asked for at the handshake altogether
// (@@collation_connection said utf8mb4_general_ci).
func TestConnectionCollation(t *testing.T) {
	const dist = "SELECT Carrier, COUNT(*), MAX(Origin), 'x' AS lit FROM ontime GROUP BY Carrier ORDER BY Carrier LIMIT 3"
	if ex := explain(t, dist); !strings.Contains(ex, "split ") {
		t.Fatalf("%s is not distributed:\n%s", dist, ex)
	}
	for _, seq := range [][]string{
		{"SET NAMES utf8mb4 COLLATE utf8mb4_unicode_520_ci", dist, "SELECT @@collation_connection"},
		{"SET NAMES utf8mb4 COLLATE utf8mb4_unicode_ci", "SET collation_connection = utf8mb4_bin", dist},
		{"SET NAMES utf8mb4 COLLATE utf8mb4_unicode_ci", "SET character_set_results = utf8mb4", dist},
		{"SET NAMES utf8mb3 COLLATE utf8mb3_unicode_ci", dist},
		{"SET NAMES utf8mb4 COLLATE utf8mb4_unicode_ci", "SET NAMES utf8mb4", dist},
	} {
		sameSequence(t, rawShoal, rawDirect, true, seq...)
	}
	// The handshake's collation: utf8mb4_unicode_ci (224).
	shoal, direct := &rawSide{params: rawShoal.params}, &rawSide{params: rawDirect.params}
	shoal.params.Charset, direct.params.Charset = collations.ID(224), collations.ID(224)
	defer shoal.close()
	defer direct.close()
	sameSequence(t, shoal, direct, true, "SELECT @@collation_connection, @@character_set_results", dist)
}

// TestConnectionCollationLiterals: text that takes no collation from a
// column (a literal, DATE_FORMAT, MONTHNAME, CAST AS CHAR) compares under
// the session's collation_connection. After SET NAMES utf8mb4 COLLATE
// utf8mb4_unicode_ci, `'ß' = 'ss'` is 1 on MariaDB; the fragments (fresh
// worker connections, literals under an introducer) and the merge said 0,
// in the select list and in WHERE alike. Such statements of such a
// session now run on its replica (conncoll.Collated); a literal
// compared with a column (its collation wins) stays distributed.
func TestConnectionCollationLiterals(t *testing.T) {
	const kept = "SELECT Carrier, COUNT(*) FROM ontime WHERE Carrier = 'aa' OR Origin IN ('sfo', 'LAX') GROUP BY Carrier ORDER BY Carrier"
	if ex := explain(t, kept); !strings.Contains(ex, "split ") {
		t.Fatalf("%s is not distributed:\n%s", kept, ex)
	}
	for _, coll := range []string{"utf8mb4_unicode_ci", "utf8mb4_uca1400_as_cs"} {
		sameSequence(t, rawShoal, rawDirect, true, "SET NAMES utf8mb4 COLLATE "+coll,
			"SELECT 'ß' = 'ss' AS x, 'a' = 'A' AS y, COUNT(*) FROM ontime GROUP BY x, y",
			"SELECT COUNT(*) FROM ontime WHERE 'ß' = 'ss'",
			"SELECT Carrier, COUNT(*) FROM ontime WHERE MONTHNAME(FlightDate) = 'january' GROUP BY Carrier ORDER BY Carrier",
			"SELECT Carrier, SUM(DATE_FORMAT(FlightDate, '%b') IN ('jan', 'FEB')), STRCMP('a', 'A') FROM ontime GROUP BY Carrier ORDER BY Carrier",
			"SELECT Carrier, IF(MAX(DATE_FORMAT(FlightDate, '%M')) = 'december', 1, 0) FROM ontime GROUP BY Carrier ORDER BY Carrier",
			"SELECT DayOfWeek, CAST(DayOfWeek AS CHAR) LIKE 'ß%' OR 'ss' LIKE 'ß', COUNT(*) FROM ontime GROUP BY DayOfWeek ORDER BY DayOfWeek",
			kept)
	}
	// The handshake's collation: utf8mb4_unicode_ci (224).
	shoal, direct := &rawSide{params: rawShoal.params}, &rawSide{params: rawDirect.params}
	shoal.params.Charset, direct.params.Charset = collations.ID(224), collations.ID(224)
	defer shoal.close()
	defer direct.close()
	sameSequence(t, shoal, direct, true, "SELECT COUNT(*) FROM ontime WHERE 'ß' = 'ss'", kept)
}
