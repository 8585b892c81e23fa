package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// A pin is built while its rows stream in (pinned.Builder): each batch
// from the workers, or each 65,536 rows of a merged result, is encoded as
// it arrives. These tests load a table of every column type a pin holds,
// in many batches, and compare queries over the pin with the primary.

const loadTypesTable = "ontime.load_types"

// loadTypesRows is more than one batch of merged rows (65,536) and more
// distinct strings in many than a dictionary holds (32,768), so that
// column turns plain after batches were encoded with a dictionary.
const loadTypesRows = 70000

// createLoadTypes makes load_types on the primary: integers that outgrow
// the width of the first batches, an unsigned BIGINT near its maximum,
// DOUBLE, DECIMAL of both Arrow widths, DATE, DATETIME(6) (with and
// without a fraction), TIME, YEAR, a dictionary that grows with the key,
// distinct strings, a column of NULLs only, binary strings; NULLs in each.
func createLoadTypes(t *testing.T) {
	t.Helper()
	for _, q := range []string{"DROP TABLE IF EXISTS " + loadTypesTable,
		`CREATE TABLE ` + loadTypesTable + ` (id INT NOT NULL PRIMARY KEY, widening INT NULL, u BIGINT UNSIGNED NULL,
			f DOUBLE NULL, amount DECIMAL(10,2) NULL, wide DECIMAL(50,5) NULL, day DATE NULL, at DATETIME(6) NULL,
			tm TIME NULL, yr YEAR NULL, growing VARCHAR(20) NULL, many VARCHAR(20) NULL, nothing VARCHAR(10) NULL,
			bin VARBINARY(8) NULL)`,
		fmt.Sprintf(`INSERT INTO `+loadTypesTable+` SELECT seq,
			IF(seq%%7=0, NULL, IF(seq>50000, 40000+seq, seq%%100)),
			IF(seq%%11=0, NULL, 18446744073709551615-seq),
			IF(seq%%13=0, NULL, seq/3e0),
			IF(seq%%17=0, NULL, seq/7-500),
			IF(seq%%19=0, NULL, CAST(CONCAT(seq, '123456789012345678901234567890.', seq%%99999) AS DECIMAL(50,5))),
			IF(seq%%23=0, NULL, '2000-01-01' + INTERVAL seq%%5000 DAY),
			IF(seq%%29=0, NULL, IF(seq%%1000=0, '2021-06-01 10:00:00', '2020-01-02 03:00:00' + INTERVAL seq*1001 MICROSECOND)),
			IF(seq%%31=0, NULL, SEC_TO_TIME(seq%%86400)),
			IF(seq%%47=0, NULL, 1901+seq%%255),
			IF(seq%%37=0, NULL, IF(seq%%5=0, ELT(seq%%4+1, '', 'a', 'B', 'é'), CONCAT('g', seq DIV 97))),
			IF(seq%%41=0, NULL, CONCAT('m', seq)),
			NULL,
			IF(seq%%43=0, NULL, UNHEX(HEX(seq)))
			FROM seq_1_to_%d`, loadTypesRows)} {
		if _, err := env.direct.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { env.direct.Exec("DROP TABLE IF EXISTS " + loadTypesTable) })
	replicasAndCatalog(t)
}

// loadTypesQueries read every column of load_types; %s is the table.
var loadTypesQueries = []string{
	"SELECT * FROM %s ORDER BY id",
	"SELECT COUNT(*), COUNT(many), COUNT(nothing), MAX(many), MIN(bin), SUM(u), MAX(wide), MIN(at), MAX(tm), SUM(amount), MAX(yr), MIN(widening), MAX(widening) FROM %s",
	"SELECT growing, COUNT(*), MIN(id), MAX(widening), SUM(amount), MIN(day) FROM %s GROUP BY growing ORDER BY MIN(id)",
	"SELECT id, many, at, bin FROM %s WHERE many LIKE 'm6999%%' OR growing = 'é' ORDER BY id",
	"SELECT day, COUNT(*), MAX(f) FROM %s WHERE widening > 40000 GROUP BY day ORDER BY day LIMIT 20",
}

// TestPinnedStreamedLoad pins load_types whole (the workers' batches)
// and as a query result through the coordinator's merge (MySQL rows, cut
// into batches), and compares every query over each pin with the same
// query over the table on the primary: rows, column names and types.
func TestPinnedStreamedLoad(t *testing.T) {
	createLoadTypes(t)
	pins := []struct{ name, cache string }{
		{loadTypesTable, "CACHE TABLE " + loadTypesTable},
		// ORDER BY: merged on the coordinator, not a plain scan.
		{"ontime.load_sorted", "CACHE TABLE ontime.load_sorted AS SELECT * FROM " + loadTypesTable + " ORDER BY id"},
	}
	for _, p := range pins {
		t.Run(p.name, func(t *testing.T) {
			shoalExec(t, p.cache)
			t.Cleanup(func() { env.shoal.Exec("UNCACHE TABLE IF EXISTS " + p.name) })
			r := showCached(t)[p.name[strings.IndexByte(p.name, '.')+1:]]
			if len(r) < 7 || r[3] != fmt.Sprint(loadTypesRows) {
				t.Fatalf("SHOW CACHED TABLES: %v, want %d rows", r, loadTypesRows)
			}
			if !strings.Contains(r[6], "growing VARCHAR dict(") || strings.Contains(r[6], "many VARCHAR dict(") {
				t.Errorf("columns %s: want growing dictionary-encoded, many plain", r[6])
			}
			for _, q := range loadTypesQueries {
				viaPin, direct := fmt.Sprintf(q, p.name), fmt.Sprintf(q, loadTypesTable)
				if ex := explain(t, viaPin); !strings.Contains(ex, "in memory") {
					t.Errorf("%s does not run in memory:\n%s", viaPin, ex)
				}
				diffPinned(t, viaPin, direct)
			}
		})
	}
}
