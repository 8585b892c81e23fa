// Package mysqlwire is Shoal's MySQL protocol front end: vitess' go/mysql
// listener and its Handler, the connection limit (1040 before the
// handshake), max_allowed_packet, the UTF-8 gate, accounts and TLS,
// prepared statements (bound into text statements), and the watch for
// clients that disconnect mid-statement. It plans and executes nothing:
// every statement goes to the router.
package mysqlwire

import (
	"log/slog"
	"net"
	"strings"
	"time"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/vt/vtenv"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/router"
	"github.com/shoaldb/shoal/sqlerr"
)

// flushDelay is how long a statement's buffered output waits, after its
// last packet, before vitess flushes it mid-statement. vitess re-arms that
// runtime timer on every packet it writes (a point lookup's 20 column
// definitions are 20 re-arms), 100 ms ahead by default, and a re-armed
// timer due before the network poller's own wake-up breaks the poller's
// sleep (runtime wakeNetPoller: an eventfd write, a thread woken and put
// back to sleep). Under one-connection point lookups that was about three
// of the coordinator's nine context switches per statement (perf stat,
// 2026-12-04). A day ahead is later than any wake-up the poller sleeps to.
// The end of every result flushes anyway, and so does a full 16 KB
// buffer: a slow result reaches the client in 16 KB pieces, as MariaDB
// sends its own (net_buffer_length), instead of a packet every 100 ms.
const flushDelay = 24 * time.Hour

// Listen opens the MySQL listener cfg.Listen names, serving r's
// statements (log takes the listener's own trouble); the handshake advertises version (the replicas' own, so
// clients see what runs behind) as the replicas' handshake writes it
// (handshakeVersion), and their handshake's collation, charset (0: not
// known). Accept serves it; Close stops it.
func Listen(cfg config.Coordinator, r *router.Router, version string, charset uint8, log *slog.Logger) (*mysql.Listener, error) {
	sqlerr.SetServerName(version) // its syntax errors name it
	vt, err := vtenv.New(vtenv.Options{MySQLServerVersion: router.AdvertisedVersion(version)})
	if err != nil {
		return nil, err
	}
	auth, err := newAccounts(cfg.Users, cfg.RequireSecureTransport)
	if err != nil {
		return nil, err
	}
	tlsCfg, err := cfg.ListenerTLS()
	if err != nil {
		return nil, err
	}
	// The handshake's collation is the one the environment the listener
	// is made with calls its default: vitess takes MariaDB 10.4 and later
	// for MySQL 8 (255, utf8mb4_0900_ai_ci, which MariaDB 10 does not
	// know), where MariaDB's own handshake offers 45 (utf8mb4_general_ci),
	// which drivers without a charset of their own (MySQL Connector/J)
	// adopt. So the listener is made with an environment whose default is
	// the replicas', and the handler serves with vt from then on.
	h := &handler{r: r, cfg: cfg, vt: vt, m: r.Metrics(), mariadb: strings.Contains(version, "MariaDB")}
	if charset != 0 && charset != uint8(vt.CollationEnv().DefaultConnectionCharset()) {
		if he, err := vtenv.New(vtenv.Options{MySQLServerVersion: "5.7.0"}); err == nil && uint8(he.CollationEnv().DefaultConnectionCharset()) == charset {
			h.vt = he
		}
	}
	sock, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, err
	}
	l, err := mysql.NewListenerWithConfig(mysql.ListenerConfig{
		Listener:   &admitListener{Listener: sock, admit: r.Admit, cfg: cfg, log: log, sleep: time.Sleep}, // conn.go
		AuthServer: auth, Handler: h,
		ConnReadBufferSize: 16 * 1024, ConnKeepAlivePeriod: 30 * time.Second,
		FlushDelay: flushDelay,
	})
	h.vt = vt
	if err != nil {
		sock.Close()
		return nil, err
	}
	l.ServerVersion = handshakeVersion(router.AdvertisedVersion(version))
	if tlsCfg != nil {
		l.TLSConfig.Store(tlsCfg)
	}
	return l, nil
}

// handshakeVersion is the version a handshake advertises for a server
// whose SELECT VERSION() says v. MariaDB 10 writes "5.5.5-" before it
// there (MariaDB 11 no longer does, MDEV-28910): MySQL's drivers read a
// leading 10 as a MySQL version past 8.0 and send MySQL 8's statements
// (MySQL Connector/J's connect query reads @@transaction_isolation, which
// MariaDB 10 does not know; so does MySQL's ODBC driver), and 5.5.5 keeps
// them on what MariaDB 10 speaks; MariaDB's drivers, and vitess' client,
// strip it. vitess' own environment gets v without it (its parser and
// collations would take 5.5.5 for MySQL 5.5).
func handshakeVersion(v string) string {
	if strings.HasPrefix(v, "10.") && strings.Contains(v, "-MariaDB") {
		return "5.5.5-" + v
	}
	return v
}
