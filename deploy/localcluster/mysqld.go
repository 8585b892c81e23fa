package localcluster

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"golang.org/x/sync/errgroup"
)

// server is one mysqld/mariadbd instance of the cluster.
type server struct {
	name     string // "primary", "replica1", ...
	dir      string // Dir/name
	port     int
	serverID int
	replica  bool
	socket   string
	proc     *proc
	cpu      int // the CPU it is pinned to; -1: not pinned
}

func (s *server) addr() string    { return fmt.Sprintf("127.0.0.1:%d", s.port) }
func (s *server) cnf() string     { return filepath.Join(s.dir, "my.cnf") }
func (s *server) data() string    { return filepath.Join(s.dir, "data") }
func (s *server) errLog() string  { return filepath.Join(s.dir, "error.log") }
func (s *server) tmp() string     { return filepath.Join(s.dir, "tmp") }
func (s *server) tcpDSN() string  { return "root:@tcp(" + s.addr() + ")/" }
func (s *server) sockDSN() string { return "root:@unix(" + s.socket + ")/" }

// flavor abstracts the few places where MariaDB and MySQL 8 differ.
type flavor struct {
	mariadb bool
	server  string // mariadbd or mysqld path
	install string // mariadb-install-db path (MariaDB only)
}

const installHint = "install it with `apt-get install -y mariadb-server` (Debian/Ubuntu)"

// findFlavor looks for mariadbd, then mysqld, on PATH and in /usr/sbin.
func findFlavor() (*flavor, error) {
	look := func(name string) string {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
		for _, d := range []string{"/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"} {
			p := filepath.Join(d, name)
			if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
				return p
			}
		}
		return ""
	}
	f := &flavor{}
	if f.server = look("mariadbd"); f.server == "" {
		f.server = look("mysqld")
	}
	if f.server == "" {
		return nil, errors.New("localcluster: no mariadbd or mysqld found on PATH or in /usr/sbin; " + installHint)
	}
	out, err := exec.Command(f.server, "--version").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("localcluster: %s --version: %w: %s", f.server, err, out)
	}
	f.mariadb = strings.Contains(string(out), "MariaDB")
	if f.mariadb {
		if f.install = look("mariadb-install-db"); f.install == "" {
			f.install = look("mysql_install_db")
		}
		if f.install == "" {
			return nil, errors.New("localcluster: mariadb-install-db not found; " + installHint)
		}
	}
	return f, nil
}

// initDatadir creates an empty data directory whose root account has no
// password.
func (f *flavor) initDatadir(s *server) error {
	// Each server gets its own tmpdir: bootstrapping servers in parallel
	// in a shared /tmp fail on each other's temporary tables.
	if err := os.MkdirAll(s.tmp(), 0o755); err != nil {
		return err
	}
	var cmd *exec.Cmd
	if f.mariadb {
		cmd = exec.Command(f.install, "--no-defaults", "--datadir="+s.data(), "--user=root",
			"--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve", "--tmpdir="+s.tmp())
	} else {
		cmd = exec.Command(f.server, "--no-defaults", "--initialize-insecure", "--datadir="+s.data(), "--user=root", "--tmpdir="+s.tmp())
	}
	out, err := cmd.CombinedOutput()
	_ = os.WriteFile(filepath.Join(s.dir, "install.log"), out, 0o644)
	if err != nil {
		return fmt.Errorf("localcluster: initialize %s datadir: %w; end of output:\n%s", s.name, err, lastLines(string(out), 15))
	}
	return nil
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}

// writeCnf writes the server's only option file. Nothing from /etc/mysql
// is read: the server starts with --defaults-file=this file.
func (f *flavor) writeCnf(s *server, bufferPool string) error {
	lines := []string{
		"[mysqld]",
		"datadir=" + s.data(),
		fmt.Sprintf("port=%d", s.port),
		"bind-address=127.0.0.1",
		"socket=" + s.socket,
		"tmpdir=" + s.tmp(),
		"pid-file=" + filepath.Join(s.dir, "mysqld.pid"),
		"log-error=" + s.errLog(),
		fmt.Sprintf("server_id=%d", s.serverID),
		"log_bin=binlog",
		"binlog_format=ROW",
		"local_infile=1",
		"skip-name-resolve",
		"character_set_server=utf8mb4",
		"innodb_buffer_pool_size=" + bufferPool,
		"innodb_log_file_size=512M",
		"innodb_flush_log_at_trx_commit=2",
		"sync_binlog=0",
		"max_allowed_packet=64M",
		"max_connections=500",
	}
	if f.mariadb {
		lines = append(lines, "gtid_strict_mode=ON", "log_slave_updates=ON", "relay_log=relay-bin", "innodb_doublewrite=0")
	} else {
		lines = append(lines, "gtid_mode=ON", "enforce_gtid_consistency=ON", "log_replica_updates=ON",
			"relay_log=relay-bin", "mysqlx=OFF")
	}
	if s.replica {
		lines = append(lines, "read_only=ON")
	}
	return os.WriteFile(s.cnf(), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// start launches the server in the background, under taskset when it is
// pinned to a CPU.
func (f *flavor) start(r *registry, s *server, pin *pinner) error {
	p, err := r.start(s.name, "--defaults-file="+s.cnf(), filepath.Join(s.dir, "stdout.log"),
		pin.wrap(s.cpu, []string{f.server, "--defaults-file=" + s.cnf(), "--user=root"})...)
	s.proc = p
	return err
}

// startServers initializes the servers' data directories and option
// files, starts them (recorded in reg) and waits until each lets root in
// over TCP.
func (f *flavor) startServers(ctx context.Context, reg *registry, servers []*server, bufferPool string, pin *pinner) error {
	var g errgroup.Group
	for _, s := range servers {
		g.Go(func() error {
			if err := f.initDatadir(s); err != nil {
				return err
			}
			return f.writeCnf(s, bufferPool)
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for _, s := range servers {
		if err := f.start(reg, s, pin); err != nil {
			return err
		}
	}
	g = errgroup.Group{}
	for _, s := range servers {
		g.Go(func() error { return f.waitReady(ctx, s, 60*time.Second) })
	}
	return g.Wait()
}

// waitReady polls the server's socket until it accepts root, the process
// exits, or timeout passes; then it lets root in over TCP from 127.0.0.1
// and checks that it can.
func (f *flavor) waitReady(ctx context.Context, s *server, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		if err := ping(ctx, s.sockDSN()); err == nil {
			break
		} else {
			last = err
		}
		if s.proc.exited() {
			return fmt.Errorf("localcluster: %s exited during startup; end of %s:\n%s", s.name, s.errLog(), tail(s.errLog(), 25))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("localcluster: %s not ready after %s (%v); end of %s:\n%s", s.name, timeout, last, s.errLog(), tail(s.errLog(), 25))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	// Local account setup stays out of the binlog: replicas must not own
	// GTIDs of their own, or strict GTID replication refuses the primary's.
	err := execAll(ctx, s.sockDSN(),
		"SET SESSION sql_log_bin=0",
		"CREATE USER IF NOT EXISTS 'root'@'127.0.0.1'",
		"GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION",
	)
	if err != nil {
		return fmt.Errorf("localcluster: %s: set up root@127.0.0.1: %w", s.name, err)
	}
	if err := ping(ctx, s.tcpDSN()); err != nil {
		return fmt.Errorf("localcluster: %s: root cannot log in over TCP at %s: %w", s.name, s.addr(), err)
	}
	return nil
}

func openDB(dsn string) (*sql.DB, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	cfg.Timeout = 5 * time.Second
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(c)
	db.SetMaxOpenConns(1)
	return db, nil
}

func ping(ctx context.Context, dsn string) error {
	db, err := openDB(dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.PingContext(ctx)
}

// execAll runs stmts in order on one connection.
func execAll(ctx context.Context, dsn string, stmts ...string) error {
	db, err := openDB(dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

func randomPassword() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// createReplUser creates the replication account on the primary. It is
// binlogged like any other change.
func (f *flavor) createReplUser(ctx context.Context, primary *server, password string) error {
	return execAll(ctx, primary.tcpDSN(),
		"CREATE USER 'repl'@'127.0.0.1' IDENTIFIED BY '"+password+"'",
		"GRANT REPLICATION SLAVE ON *.* TO 'repl'@'127.0.0.1'",
	)
}

// startReplication points replica at primary with GTID auto-positioning
// and waits until both replication threads run.
func (f *flavor) startReplication(ctx context.Context, primary, replica *server, password string) error {
	var stmts []string
	if f.mariadb {
		stmts = []string{
			fmt.Sprintf("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='repl', "+
				"MASTER_PASSWORD='%s', MASTER_USE_GTID=slave_pos", primary.port, password),
			"START SLAVE",
		}
	} else {
		stmts = []string{
			fmt.Sprintf("CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=%d, SOURCE_USER='repl', "+
				"SOURCE_PASSWORD='%s', SOURCE_AUTO_POSITION=1, GET_SOURCE_PUBLIC_KEY=1", primary.port, password),
			"START REPLICA",
		}
	}
	if err := execAll(ctx, replica.tcpDSN(), stmts...); err != nil {
		return fmt.Errorf("localcluster: %s: start replication: %w", replica.name, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := f.replicaStatus(ctx, replica)
		if err != nil {
			return err
		}
		if st.running() {
			return nil
		}
		if e := st.lastError(); e != "" || time.Now().After(deadline) {
			return fmt.Errorf("localcluster: %s: replication does not run: io=%s sql=%s %s", replica.name, st.io(), st.sql(), e)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// status is one row of SHOW SLAVE/REPLICA STATUS by column name.
type status map[string]string

func (s status) get(names ...string) string {
	for _, n := range names {
		if v, ok := s[n]; ok {
			return v
		}
	}
	return ""
}
func (s status) io() string    { return s.get("Slave_IO_Running", "Replica_IO_Running") }
func (s status) sql() string   { return s.get("Slave_SQL_Running", "Replica_SQL_Running") }
func (s status) running() bool { return s.io() == "Yes" && s.sql() == "Yes" }
func (s status) lastError() string {
	var e []string
	if v := s.get("Last_IO_Error"); v != "" {
		e = append(e, "io error: "+v)
	}
	if v := s.get("Last_SQL_Error"); v != "" {
		e = append(e, "sql error: "+v)
	}
	return strings.Join(e, "; ")
}

func (f *flavor) replicaStatus(ctx context.Context, s *server) (status, error) {
	db, err := openDB(s.tcpDSN())
	if err != nil {
		return nil, err
	}
	defer db.Close()
	q := "SHOW SLAVE STATUS"
	if !f.mariadb {
		q = "SHOW REPLICA STATUS"
	}
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("localcluster: %s: %s: %w", s.name, q, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	st := status{}
	if rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		for i, c := range cols {
			st[c] = vals[i].String
		}
	}
	return st, rows.Err()
}

// waitCaughtUp waits until replica has applied everything the primary has
// binlogged so far.
func (f *flavor) waitCaughtUp(ctx context.Context, primary, replica *server, timeout time.Duration) error {
	pdb, err := openDB(primary.tcpDSN())
	if err != nil {
		return err
	}
	defer pdb.Close()
	var pos string
	posQ, waitQ := "SELECT @@gtid_binlog_pos", "SELECT MASTER_GTID_WAIT(?, 1)"
	if !f.mariadb {
		posQ, waitQ = "SELECT @@gtid_executed", "SELECT WAIT_FOR_EXECUTED_GTID_SET(?, 1)"
	}
	if err := pdb.QueryRowContext(ctx, posQ).Scan(&pos); err != nil {
		return fmt.Errorf("localcluster: primary: %s: %w", posQ, err)
	}
	rdb, err := openDB(replica.tcpDSN())
	if err != nil {
		return err
	}
	defer rdb.Close()
	deadline := time.Now().Add(timeout)
	for {
		var res int
		if err := rdb.QueryRowContext(ctx, waitQ, pos).Scan(&res); err != nil {
			return fmt.Errorf("localcluster: %s: wait for GTID %s: %w", replica.name, pos, err)
		}
		if res == 0 {
			return nil
		}
		st, err := f.replicaStatus(ctx, replica)
		if err != nil {
			return err
		}
		if e := st.lastError(); e != "" || !st.running() {
			return fmt.Errorf("localcluster: %s: replication stopped before reaching GTID %s: io=%s sql=%s %s",
				replica.name, pos, st.io(), st.sql(), e)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("localcluster: %s has not reached the primary's GTID %s after %s", replica.name, pos, timeout)
		}
	}
}
