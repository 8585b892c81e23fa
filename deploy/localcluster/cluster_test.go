package localcluster

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
)

func TestUpDownNoShoal(t *testing.T) {
	if _, err := findFlavor(); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var log strings.Builder
	c, err := Up(ctx, Options{Dir: dir, Replicas: 2, Rows: 20000, Seed: 1, NoShoal: true, BufferPool: "64M", Log: &log})
	if err != nil {
		t.Fatalf("Up: %v\nlog:\n%s", err, log.String())
	}
	t.Cleanup(func() { _ = Down(dir) })
	t.Logf("log:\n%s", log.String())

	loaded, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Primary != c.Primary || len(loaded.Replicas) != 2 || loaded.Coordinator.MySQL != "" || loaded.Replicas[0].Worker != "" {
		t.Fatalf("cluster.json: %+v", loaded)
	}

	count, sum := tableState(t, c.DSN(c.Primary))
	if count != 20000 {
		t.Fatalf("primary has %d rows, want 20000", count)
	}
	for _, r := range c.Replicas {
		rc, rs := tableState(t, c.DSN(r.MySQL))
		if rc != count || rs != sum {
			t.Errorf("replica %s: %d rows checksum %d; primary %d rows checksum %d", r.MySQL, rc, rs, count, sum)
		}
		db := open(t, c.DSN(r.MySQL))
		var ro int
		if err := db.QueryRow("SELECT @@read_only").Scan(&ro); err != nil || ro != 1 {
			t.Errorf("replica %s: read_only=%d (%v)", r.MySQL, ro, err)
		}
		st, err := (&flavor{mariadb: true}).replicaStatus(context.Background(), &server{name: r.MySQL, port: port(r.MySQL)})
		if err != nil {
			t.Fatal(err)
		}
		if !st.running() || st.get("Using_Gtid") != "Slave_Pos" {
			t.Errorf("replica %s: io=%s sql=%s Using_Gtid=%s", r.MySQL, st.io(), st.sql(), st.get("Using_Gtid"))
		}
		var name string
		if err := db.QueryRow("SELECT name FROM carriers WHERE code = 'NQ'").Scan(&name); err != nil || name != "Aerolíneas Ñandú S.A." {
			t.Errorf("replica %s: carrier NQ = %q (%v)", r.MySQL, name, err)
		}
	}

	if _, err := Up(ctx, Options{Dir: dir, NoShoal: true}); err == nil || !strings.Contains(err.Error(), "shoal local down --dir") {
		t.Errorf("second Up on a running cluster: %v", err)
	}

	procs, err := readRegistry(filepath.Join(dir, pidsFile))
	if err != nil || len(procs) != 3 {
		t.Fatalf("pids: %d entries (%v)", len(procs), err)
	}
	if err := Down(dir); err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		if pids := running(p.match); len(pids) > 0 {
			t.Errorf("%s still runs after Down: pids %v", p.name, pids)
		}
	}
	if err := Down(dir); err != nil {
		t.Errorf("second Down: %v", err)
	}
}

func TestUpRefusesForeignDir(t *testing.T) {
	if _, err := findFlavor(); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Up(context.Background(), Options{Dir: dir, NoShoal: true}); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("Up on a foreign directory: %v", err)
	}
}

func tableState(t *testing.T, dsn string) (count, checksum int64) {
	t.Helper()
	db := open(t, dsn)
	if err := db.QueryRow("SELECT COUNT(*) FROM ontime").Scan(&count); err != nil {
		t.Fatal(err)
	}
	var name string
	if err := db.QueryRow("CHECKSUM TABLE ontime.ontime").Scan(&name, &checksum); err != nil {
		t.Fatal(err)
	}
	return count, checksum
}

func open(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
