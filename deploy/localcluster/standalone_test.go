package localcluster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestStartMySQL(t *testing.T) {
	if _, err := findFlavor(); err != nil {
		t.Skip(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // StartMySQL's directory goes here
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	addr, stop, err := StartMySQL(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = stop()
		}
	})

	dirs, _ := filepath.Glob(filepath.Join(tmp, "shoal-mysql-*"))
	if len(dirs) != 1 {
		t.Fatalf("directories in TMPDIR: %v", dirs)
	}
	procs, err := readRegistry(filepath.Join(dirs[0], pidsFile))
	if err != nil || len(procs) != 1 {
		t.Fatalf("pids: %d entries (%v)", len(procs), err)
	}
	db := open(t, "root:@tcp("+addr+")/")
	var one int
	if err := db.QueryRow("SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("root over TCP at %s: %d (%v)", addr, one, err)
	}
	db.Close()

	stopped = true
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if pids := running(procs[0].match); len(pids) > 0 {
		t.Errorf("the server still runs after stop: pids %v", pids)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("TMPDIR still holds %d entries after stop", len(ents))
	}
}

func TestStartMySQLFailureLeavesNothing(t *testing.T) {
	if _, err := findFlavor(); err != nil {
		t.Skip(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the server starts, but waiting for it fails
	if _, _, err := StartMySQL(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("StartMySQL with a canceled context: %v", err)
	}
	// stop removes the directory only once the server is gone.
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("TMPDIR holds %d entries after a failed StartMySQL", len(ents))
	}
}
