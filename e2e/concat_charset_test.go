package e2e

import (
	"strings"
	"testing"
)

// concatTable has text in several character sets other than utf8mb4,
// with letters outside ASCII and no two values of a column equal under
// its collation (which of several equal values the server shows is its
// plan's choice).
const concatTable = "concat_cs"

// concatColumns are concatTable's text columns, each with whether a
// statement reading it runs in memory over a whole-table pin (text held
// as utf8mb4 only: the others run on the replicas, pinexec modeled).
var concatColumns = []struct {
	name     string
	inMemory bool
}{
	{"l", false}, {"lb", false}, {"u2", false}, {"cy", false}, {"u3", true}, {"u8", true},
}

func createConcatTable(t *testing.T) {
	t.Helper()
	directExec(t, "DROP TABLE IF EXISTS "+concatTable,
		"CREATE TABLE "+concatTable+` (id INT NOT NULL PRIMARY KEY, grp INT NOT NULL,
		  l VARCHAR(20) CHARACTER SET latin1 NULL, lb VARCHAR(20) CHARACTER SET latin1 COLLATE latin1_bin NULL,
		  u2 VARCHAR(20) CHARACTER SET ucs2 NULL, cy VARCHAR(20) CHARACTER SET cp1251 NULL,
		  u3 VARCHAR(20) CHARACTER SET utf8mb3 NULL, u8 VARCHAR(20) CHARACTER SET utf8mb4 NULL)`,
		"INSERT INTO "+concatTable+` SELECT id, id % 5,
		  ELT(1 + id % 8, 'Zürich', 'ÅLAND', 'straße', 'Ærø', 'abc', 'ÉCOLE', '€uro', NULL),
		  ELT(1 + id % 7, 'zürich', 'Zürich', 'ÉCOLE', 'école', '€uro', 'abc', NULL),
		  ELT(1 + id % 6, 'Zürich', 'Ωμέγα', 'ǅemal', '日本', 'abc', NULL),
		  ELT(1 + id % 5, 'Москва', 'киев', 'abc', 'Ёж', NULL),
		  ELT(1 + id % 6, 'Zürich', 'Ωμέγα', 'ǅemal', '日本', 'abc', NULL),
		  ELT(1 + id % 6, 'Zürich', 'Ωμέγα', '𐐀deseret', '日本', 'abc', NULL)
		FROM ontime`)
	t.Cleanup(func() { env.direct.Exec("DROP TABLE IF EXISTS " + concatTable) })
	replicasAndCatalog(t)
}

// concatStatements are GROUP_CONCAT statements over column c of
// concatTable: DISTINCT with ORDER BY, SEPARATOR (one its charset holds,
// one it does not), functions of the column, HAVING and ORDER BY over the
// result, ROLLUP, several DISTINCT aggregates, and the partial
// (non-DISTINCT) merge, whose order is unspecified, measured. The first
// is the one whose plan the test checks.
func concatStatements(c string) []string {
	t := concatTable
	return []string{
		"SELECT grp, GROUP_CONCAT(DISTINCT " + c + " ORDER BY " + c + ") FROM " + t + " GROUP BY grp ORDER BY grp",
		"SELECT GROUP_CONCAT(DISTINCT " + c + " ORDER BY " + c + " DESC SEPARATOR 'ä|') FROM " + t,
		"SELECT grp, GROUP_CONCAT(DISTINCT " + c + " ORDER BY " + c + " SEPARATOR 'ℵ') FROM " + t + " GROUP BY grp ORDER BY grp",
		"SELECT grp, GROUP_CONCAT(DISTINCT CONCAT(" + c + ", 'x') ORDER BY CONCAT(" + c + ", 'x') SEPARATOR '') FROM " + t + " GROUP BY grp ORDER BY grp",
		"SELECT grp, GROUP_CONCAT(DISTINCT LOWER(" + c + ") ORDER BY LOWER(" + c + ")) FROM " + t + " GROUP BY grp ORDER BY grp",
		"SELECT grp, LENGTH(GROUP_CONCAT(DISTINCT " + c + ")), CHAR_LENGTH(GROUP_CONCAT(DISTINCT " + c + ")), UPPER(GROUP_CONCAT(DISTINCT " + c + " ORDER BY " + c + ")) u FROM " + t +
			" GROUP BY grp HAVING GROUP_CONCAT(DISTINCT " + c + " ORDER BY " + c + ") > 'a' ORDER BY u, grp",
		"SELECT grp, COUNT(DISTINCT id % 3), GROUP_CONCAT(DISTINCT " + c + " ORDER BY " + c + " SEPARATOR ' / ') FROM " + t + " GROUP BY grp WITH ROLLUP",
		"SELECT grp, LENGTH(GROUP_CONCAT(" + c + " SEPARATOR 'ä')), CHAR_LENGTH(GROUP_CONCAT(" + c + " SEPARATOR 'Ж')), LENGTH(GROUP_CONCAT(" + c + ")) FROM " + t + " GROUP BY grp ORDER BY grp",
		"SELECT grp, LENGTH(JSON_OBJECTAGG(id, " + c + ")) FROM " + t + " GROUP BY grp ORDER BY grp",
	}
}

// TestGroupConcatCharsets compares GROUP_CONCAT over text in latin1,
// latin1_bin, ucs2, cp1251 and utf8mb3 (utf8mb4 beside) with MariaDB's
// answers, distributed and over pins. GROUP_CONCAT(DISTINCT l) joined a
// latin1 key's bytes and sent them as they were in a utf8mb4 column (ä as
// 0xE4); the partial merge put the UTF-8 bytes of a separator between
// latin1 partials; a latin1_bin column was merged as UTF-8 bytes ('€uro'
// sorted last). JSON_ARRAYAGG of such text passes through: MariaDB sends
// it converted or not depending on its plan.
func TestGroupConcatCharsets(t *testing.T) {
	createConcatTable(t)
	check := func(t *testing.T, pinned bool) {
		t.Helper()
		for _, col := range concatColumns {
			for i, q := range concatStatements(col.name) {
				if i == 0 {
					ex := explain(t, q)
					if !strings.HasPrefix(ex, "split ") {
						t.Errorf("%s: not distributed:\n%s", q, ex)
					}
					if mem := strings.Contains(ex, "in memory:"); mem != (pinned && col.inMemory) {
						t.Errorf("%s: in memory %v, want %v:\n%s", q, mem, pinned && col.inMemory, ex)
					}
				}
				diff(t, q, true)
			}
			q := "SELECT grp, JSON_ARRAYAGG(" + col.name + ") FROM " + concatTable + " WHERE id % 300 = 0 GROUP BY grp ORDER BY grp"
			ex := explain(t, q)
			if foreign := col.name != "u3" && col.name != "u8"; foreign != strings.HasPrefix(ex, "passthrough") {
				t.Errorf("%s: passthrough %v, want %v:\n%s", q, !foreign, foreign, ex)
			}
			if strings.HasPrefix(ex, "passthrough") {
				diff(t, q, true)
			} else {
				diff(t, "SELECT grp, LENGTH(JSON_ARRAYAGG("+col.name+")) FROM "+concatTable+" GROUP BY grp ORDER BY grp", true)
			}
		}
	}
	t.Run("distributed", func(t *testing.T) { check(t, false) })
	t.Run("pinned", func(t *testing.T) {
		shoalExec(t, "CACHE TABLE ontime."+concatTable)
		defer env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime." + concatTable)
		check(t, true)
	})
	t.Run("pinned result", func(t *testing.T) {
		const def = "SELECT id, grp, l, u3 FROM " + concatTable + " WHERE id % 3 = 0"
		shoalExec(t, "CACHE TABLE concat_r AS "+def)
		defer env.shoal.Exec("UNCACHE TABLE IF EXISTS concat_r")
		for _, q := range []string{
			// Aliased: unaliased, the name would hold a character
			// outside the BMP, which no identifier may hold (1300 when
			// the pin's statement is described).
			"SELECT grp, GROUP_CONCAT(DISTINCT u3 ORDER BY u3 SEPARATOR 'ä·😀') AS gc FROM %s GROUP BY grp ORDER BY grp",
			"SELECT grp, GROUP_CONCAT(DISTINCT l ORDER BY l DESC SEPARATOR 'ä') FROM %s GROUP BY grp ORDER BY grp",
		} {
			sq := strings.Replace(q, "%s", "concat_r", 1)
			diffPinned(t, sq, strings.Replace(q, "%s", "("+def+") t", 1))
		}
	})
}
