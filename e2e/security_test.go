package e2e

import (
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"errors"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/deploy/localcluster"
	"github.com/shoaldb/shoal/sqlerr"
)

// The client-facing security tests: TLS on the MySQL listener (with and
// without require_secure_transport) and accounts of both plugins. Each
// runs its own coordinator against the shared replicas.

// tlsCluster writes a self-signed certificate (as `shoal local up` does)
// and registers a go-sql-driver TLS configuration that verifies the
// coordinator with it and counts its handshakes.
func tlsCluster(t *testing.T) (certFile, keyFile, tlsName string, handshakes *atomic.Int32) {
	t.Helper()
	certFile, keyFile, err := localcluster.SelfSignedCert(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pem, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		t.Fatal("no certificate in", certFile)
	}
	handshakes = new(atomic.Int32)
	tlsName = "shoal-e2e-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	err = mysql.RegisterTLSConfig(tlsName, &tls.Config{
		RootCAs: roots, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12,
		VerifyConnection: func(tls.ConnectionState) error { handshakes.Add(1); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mysql.DeregisterTLSConfig(tlsName) })
	return certFile, keyFile, tlsName, handshakes
}

// openDSN opens dsn; the pool is closed when the test ends.
func openDSN(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// mysqlErrno is the MySQL error number of err, 0 if it has none.
func mysqlErrno(err error) uint16 {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

// countRows reads the ontime row count through db.
func countRows(t *testing.T, db *sql.DB, who string) {
	t.Helper()
	var n int64
	if err := db.QueryRow("select count(*) from ontime").Scan(&n); err != nil || n != env.rows {
		t.Fatalf("%s: %d rows, %v; want %d", who, n, err, env.rows)
	}
}

// TestTLSListener: with tls_cert/tls_key the coordinator speaks TLS to
// clients that ask for it (go-sql-driver verifying it against the
// certificate, and with tls=skip-verify) and answers distributed queries
// over it; clients without TLS are still served. Remove the listener's
// TLS configuration and the TLS clients fail ("server does not support
// TLS"): this fails.
func TestTLSListener(t *testing.T) {
	checkLeaks(t)
	certFile, keyFile, tlsName, handshakes := tlsCluster(t)
	fs := startFaultShoal(t, func(c *config.Coordinator) { c.TLSCert, c.TLSKey = certFile, keyFile })
	addr := fs.co.Addr().String()

	verified := openDSN(t, "root@tcp("+addr+")/ontime?tls="+tlsName)
	countRows(t, verified, "TLS, verified")
	sameAnswer(t, verified, faultQ)
	if handshakes.Load() == 0 {
		t.Fatal("no TLS handshake: the connection was not encrypted")
	}
	countRows(t, openDSN(t, "root@tcp("+addr+")/ontime?tls=skip-verify"), "tls=skip-verify")
	countRows(t, fs.db, "plain TCP (TLS not required)")
}

// TestTLSRequired: with require_secure_transport a client that does not
// switch to TLS is refused with MySQL's 3159, whatever its password, and
// the coordinator goes on serving TLS clients. Drop the check in auth.go
// and the plain client gets in: this fails.
func TestTLSRequired(t *testing.T) {
	checkLeaks(t)
	certFile, keyFile, tlsName, _ := tlsCluster(t)
	fs := startFaultShoal(t, func(c *config.Coordinator) {
		c.TLSCert, c.TLSKey, c.RequireSecureTransport = certFile, keyFile, true
		c.Users = []config.User{{Name: "root"}, {Name: "bob", Password: "sha2pw", Plugin: config.PluginCachingSHA2}}
	})
	addr := fs.co.Addr().String()
	for _, dsn := range []string{
		"root@tcp(" + addr + ")/ontime",
		"root:wrong@tcp(" + addr + ")/ontime",
		"bob:sha2pw@tcp(" + addr + ")/ontime",
		"root@tcp(" + addr + ")/ontime?tls=preferred", // TLS only if offered: it is, so this one is in
	} {
		err := openDSN(t, dsn).Ping()
		want := uint16(sqlerr.ErrInsecureTransport)
		if dsn[len(dsn)-9:] == "preferred" {
			want = 0
		}
		if got := mysqlErrno(err); got != want || (want == 0 && err != nil) {
			t.Errorf("%s: %v (errno %d), want errno %d", dsn, err, got, want)
		}
	}
	countRows(t, openDSN(t, "root@tcp("+addr+")/ontime?tls="+tlsName), "TLS after refusals")
	countRows(t, openDSN(t, "bob:sha2pw@tcp("+addr+")/ontime?tls="+tlsName), "caching_sha2_password over TLS")
}

// TestAccounts: accounts of both plugins log in with the right password
// and get 1045 with a wrong one, over plain TCP and TLS, and the
// coordinator keeps serving after every refusal. A caching_sha2_password
// account logs in with go-sql-driver refusing mysql_native_password
// altogether (allowNativePasswords=false), so the SHA-256 exchange is what
// let it in. Accept any password (or drop the caching_sha2_password
// plugin) and a case fails.
func TestAccounts(t *testing.T) {
	checkLeaks(t)
	certFile, keyFile, tlsName, _ := tlsCluster(t)
	users := []config.User{
		{Name: "root"},
		{Name: "alice", Password: "s3cret"}, // mysql_native_password by default
		{Name: "bob", Password: "sha2 pw ✓", Plugin: config.PluginCachingSHA2},
	}
	mixed := startFaultShoal(t, func(c *config.Coordinator) {
		c.TLSCert, c.TLSKey, c.Users = certFile, keyFile, users
	})
	// Only caching_sha2_password accounts: the handshake offers it first.
	sha2 := startFaultShoal(t, func(c *config.Coordinator) {
		c.Users = []config.User{{Name: "carol", Password: "c4rol", Plugin: config.PluginCachingSHA2}}
	})
	for _, c := range []struct {
		name, dsn string
		errno     uint16
	}{
		{"native", "alice:s3cret@tcp(" + mixed.co.Addr().String() + ")/ontime", 0},
		{"native, wrong password", "alice:s3cret!@tcp(" + mixed.co.Addr().String() + ")/ontime", 1045},
		{"native over TLS", "alice:s3cret@tcp(" + mixed.co.Addr().String() + ")/ontime?tls=" + tlsName, 0},
		{"sha2 (auth switch)", "bob:sha2 pw ✓@tcp(" + mixed.co.Addr().String() + ")/ontime", 0},
		{"sha2, wrong password", "bob:sha2 pw@tcp(" + mixed.co.Addr().String() + ")/ontime", 1045},
		{"sha2 over TLS", "bob:sha2 pw ✓@tcp(" + mixed.co.Addr().String() + ")/ontime?tls=" + tlsName, 0},
		{"sha2, wrong password over TLS", "bob:x@tcp(" + mixed.co.Addr().String() + ")/ontime?tls=" + tlsName, 1045},
		{"unknown account", "mallory:s3cret@tcp(" + mixed.co.Addr().String() + ")/ontime", 1045},
		{"sha2 only, native refused by the client", "carol:c4rol@tcp(" + sha2.co.Addr().String() + ")/ontime?allowNativePasswords=false", 0},
		{"sha2 only, wrong password", "carol:carol@tcp(" + sha2.co.Addr().String() + ")/ontime?allowNativePasswords=false", 1045},
		{"sha2 only, unknown account", "alice:s3cret@tcp(" + sha2.co.Addr().String() + ")/ontime", 1045},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := openDSN(t, c.dsn)
			if c.errno != 0 {
				if err := db.Ping(); mysqlErrno(err) != c.errno {
					t.Fatalf("err = %v, want errno %d", err, c.errno)
				}
				return
			}
			countRows(t, db, c.name)
		})
	}
	// Still serving after the refusals.
	countRows(t, mixed.db, "root after refusals")
}
