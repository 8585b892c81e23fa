package worker

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"go.uber.org/goleak"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/deploy/localcluster"
)

// Tests run against a MariaDB that TestMain starts on a free loopback port
// in a temporary directory and stops at the end (SHOAL_TEST_MYSQL=host:port
// uses that server instead), in a scratch database that is dropped at the
// end.

const testDB = "shoal_worker_test"

var (
	testAddr string  // the MariaDB's host:port, set by TestMain
	admin    *sql.DB // direct connection for setup and checks
)

func TestMain(m *testing.M) {
	if os.Getenv("SHOAL_TEST_LOG") == "" {
		slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	}
	code, err := runTests(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker tests:", err)
		os.Exit(1)
	}
	if code == 0 {
		// glog's flush daemon comes with vitess (via sqlerr) and lives forever.
		if err := goleak.Find(goleak.IgnoreTopFunction("github.com/golang/glog.(*fileSink).flushDaemon")); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

func runTests(m *testing.M) (code int, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if testAddr = os.Getenv("SHOAL_TEST_MYSQL"); testAddr == "" {
		var stop func() error
		if testAddr, stop, err = localcluster.StartMySQL(ctx); err != nil {
			return 0, fmt.Errorf("starting MariaDB: %w", err)
		}
		defer func() {
			if serr := stop(); serr != nil {
				err = errors.Join(err, fmt.Errorf("stopping MariaDB: %w", serr))
			}
		}()
	}
	mc := dsnConfig(config.Worker{MySQL: testAddr, User: "root"})
	db, err := sql.Open("mysql", mc.FormatDSN())
	if err != nil {
		return 0, err
	}
	if err := setupDB(ctx, db); err != nil {
		db.Close()
		return 0, fmt.Errorf("setting up %s on %s: %w", testDB, testAddr, err)
	}
	mc.DBName = testDB
	admin, err = sql.Open("mysql", mc.FormatDSN())
	if err != nil {
		return 0, err
	}
	code = m.Run()
	admin.Close()
	_, err = db.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+testDB)
	db.Close()
	return code, err
}

func setupDB(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	stmts := []string{
		"DROP DATABASE IF EXISTS " + testDB,
		"CREATE DATABASE " + testDB + " CHARACTER SET utf8mb4",
		"USE " + testDB,
		`CREATE TABLE types (
			id INT PRIMARY KEY,
			ti TINYINT, si SMALLINT, mi MEDIUMINT, i INT, bi BIGINT,
			tu TINYINT UNSIGNED, iu INT UNSIGNED, bu BIGINT UNSIGNED,
			d1 DECIMAL(10,2), d2 DECIMAL(65,30), d3 DECIMAL(38,0),
			f FLOAT, dbl DOUBLE,
			dt DATE, dtm DATETIME(6), dt0 DATETIME, ts TIMESTAMP(6) NULL, yr YEAR, tm TIME,
			c CHAR(3), vc VARCHAR(50), tx TEXT, en ENUM('a','b'), st SET('x','y'), js JSON,
			bn BINARY(3), vb VARBINARY(20), bl BLOB, bt BIT(8))`,
		`INSERT INTO types VALUES
			(1, -128, 32767, -8388608, 2147483647, -9223372036854775808,
			 255, 4294967295, 18446744073709551615,
			 -12345678.90, '-12345678901234567890123456789012345.123456789012345678901234567890',
			 '99999999999999999999999999999999999999',
			 3.14159, -2.5e-300,
			 '2024-02-29', '2024-02-29 23:59:58.123456', '1000-01-01 00:00:00', '2020-06-15 12:00:00.5', 2024, '-838:59:59',
			 'ab', 'héllo wörld ✓ 日本', 'text', 'b', 'x,y', '{"a": 1}',
			 'a\0b', 0x00FF0041, 0x0000, b'10100101'),
			(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
			 NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
			(3, 0, -1, 1, -2147483648, 9223372036854775807,
			 0, 0, 0,
			 0.05, '0.000000000000000000000000000001', '-99999999999999999999999999999999999999',
			 -0.5, 1.7976931348623157e308,
			 '1969-12-31', '9999-12-31 23:59:59.999999', '1970-01-01 00:00:01', '1971-01-01 00:00:00.000001', 1901, '00:00:00.000000',
			 '', '', '', 'a', '', '[]',
			 '', '', '', b'0'),
			(4, 1, 1, 1, 1, 1, 1, 1, 1,
			 -0.01, '-0.000000000000000000000000000001', '0',
			 1e-10, 0,
			 '0001-01-01', '1969-12-31 23:59:59.999999', '2000-01-01 00:00:00', NULL, 0, '12:34:56',
			 'xyz', 'It''s "quoted"\\n', REPEAT('long ', 1000), NULL, 'y', 'null',
			 0xFFFFFF, 0x00, 0x00FF, b'11111111')`,
		"CREATE TABLE victim (id INT PRIMARY KEY, v INT)",
		"INSERT INTO victim VALUES (1, 10), (2, 20)",
		"CREATE TABLE big (id INT PRIMARY KEY, v BIGINT NOT NULL)",
		"INSERT INTO big SELECT seq, seq * 2 FROM seq_1_to_25000",
		"SET SESSION sql_mode = ''",
		"CREATE TABLE zd (id INT PRIMARY KEY, d DATE, t DATETIME)",
		"INSERT INTO zd VALUES (1, '0000-00-00', '0000-00-00 00:00:00'), (2, '2024-00-10', '2024-05-00 10:00:00'), (3, '2024-01-01', '2024-01-01 00:00:00')",
	}
	for _, s := range stmts {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%.60s: %w", s, err)
		}
	}
	return nil
}

// testServer is an in-process worker on a loopback port, with a checked
// allocator that must be empty when the test ends.
type testServer struct {
	srv    *Server
	client *Client
	mem    *memory.CheckedAllocator // client side
}

func startServer(t testing.TB, mod func(*config.Worker)) *testServer {
	t.Helper()
	cfg := config.Worker{MySQL: testAddr, User: "root", FragmentTimeout: config.Duration(time.Minute)}
	if mod != nil {
		mod(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srvMem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	srv.mem = srvMem
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(lis) }()
	client, err := Dial(context.Background(), lis.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{srv: srv, client: client, mem: memory.NewCheckedAllocator(memory.NewGoAllocator())}
	t.Cleanup(func() {
		client.Close()
		srv.Stop()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		srvMem.AssertSize(t, 0)
		ts.mem.AssertSize(t, 0)
	})
	return ts
}
