package pinexec

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"github.com/shoaldb/shoal/deploy/localcluster"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// TestFiltersAgainstMariaDB counts the rows each vectorized WHERE passes
// over statesTable (trailing spaces kept) and asks MariaDB the same
// question of the same rows, on a server it starts (or the one
// SHOAL_TEST_MARIADB_DSN names: user:pass@unix(/path/sock)/test, say); it
// creates and drops the table pinned_oracle_states there.
func TestFiltersAgainstMariaDB(t *testing.T) {
	db := oracleDB(t)
	const rows = 2000
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("DROP TABLE IF EXISTS pinned_oracle_states")
	exec("CREATE TABLE pinned_oracle_states (id INT, OriginState CHAR(8) COLLATE utf8mb4_general_ci, DestState VARCHAR(8) COLLATE utf8mb4_general_ci, " +
		"BinState VARCHAR(8) COLLATE utf8mb4_bin, Lat VARCHAR(8) CHARACTER SET latin1 COLLATE latin1_swedish_ci, Distance INT, Delay INT, Day DATE, Day2 DATE)")
	defer db.Exec("DROP TABLE pinned_oracle_states")
	var vals []string
	var args []any
	for _, r := range statesRows(rows, false) {
		vals = append(vals, "(?,?,?,?,?,?,?,?,?)")
		for _, v := range r {
			if v.IsNull() {
				args = append(args, nil)
			} else {
				args = append(args, v.ToString())
			}
		}
	}
	exec("INSERT INTO pinned_oracle_states VALUES "+strings.Join(vals, ","), args...)
	env := newEnv(t)
	// The pin keeps trailing spaces MariaDB strips from CHAR values:
	// under PAD SPACE that changes no comparison.
	tbl := statesTable(t, rows)
	fields := []*querypb.Field{field("c", sqltypes.Int64, 63, 21)}
	for _, where := range []string{
		"`OriginState` <> `DestState`", "`OriginState` = `DestState`", "`OriginState` < `DestState`", "`DestState` >= `OriginState`",
		"`OriginState` = 'tx'", "`OriginState` = 'hi '", "`OriginState` NOT IN ('AK', 'hi ', 'PR')", "`OriginState` > 'Hi'",
		"`DestState` = 'ny'", "`DestState` <> 'hi'", "`BinState` = 'TX'", "`BinState` >= 'Tx'",
		"`Distance` <> 1000", "`Distance` BETWEEN 100 AND 2000", "`Distance` > `Delay`", "`Day` >= '2020-06-01'", "`Day` <> `Day2`",
	} {
		var want int64
		if err := db.QueryRow("SELECT COUNT(*) FROM pinned_oracle_states WHERE " + where).Scan(&want); err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		got, fast := run(t, env, tbl, "SELECT COUNT(1) FROM `db`.`states` WHERE "+where, fields, true)
		if !fast {
			t.Errorf("%s: not vectorized", where)
		}
		if g := fmt.Sprint(got); g != fmt.Sprintf("[INT64(%d)]", want) {
			t.Errorf("%s: pinned %s, MariaDB %d", where, g, want)
		}
	}
}

// oracleDB opens the MariaDB the oracle tests ask: the one
// SHOAL_TEST_MARIADB_DSN names, or a server of the test's own
// (SHOAL_TEST_MYSQL names one to use), stopped when the test ends.
func oracleDB(t *testing.T) *sql.DB {
	t.Helper()
	dsn := os.Getenv("SHOAL_TEST_MARIADB_DSN")
	if dsn == "" {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		addr, stop, err := localcluster.TestMySQL(ctx)
		if err != nil {
			t.Fatalf("the MariaDB oracle needs a server: %v", err)
		}
		t.Cleanup(func() { stop() })
		admin, err := sql.Open("mysql", "root@tcp("+addr+")/")
		if err != nil {
			t.Fatal(err)
		}
		_, err = admin.Exec("CREATE DATABASE IF NOT EXISTS pinned_oracle")
		admin.Close()
		if err != nil {
			t.Fatal(err)
		}
		dsn = "root@tcp(" + addr + ")/pinned_oracle"
	}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
