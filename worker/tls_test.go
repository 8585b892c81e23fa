package worker

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/internal/certs"
)

// TestWorkerTLS: a worker serving TLS (tls_cert/tls_key) answers a
// coordinator configured with the CA that signed its certificate — status
// and a fragment carrying the cluster secret; a coordinator with another CA,
// or talking plain text to it, fails and says which setting to fix; with
// tls_client_ca the worker refuses a coordinator without a client
// certificate and serves one with a certificate from that CA. A plain-text
// worker and a coordinator that insists on TLS fail with a hint too.
func TestWorkerTLS(t *testing.T) {
	dir := t.TempDir()
	ca, err := certs.NewCA(dir, "test CA")
	if err != nil {
		t.Fatal(err)
	}
	wCert, wKey, err := ca.Issue(dir, "worker", []string{"127.0.0.1", "localhost"})
	if err != nil {
		t.Fatal(err)
	}
	cCert, cKey, err := ca.Issue(dir, "coordinator", []string{"coordinator"})
	if err != nil {
		t.Fatal(err)
	}
	otherDir := t.TempDir()
	other, err := certs.NewCA(otherDir, "other CA")
	if err != nil {
		t.Fatal(err)
	}
	oCert, oKey, err := other.Issue(otherDir, "coordinator", []string{"coordinator"})
	if err != nil {
		t.Fatal(err)
	}
	const secret = "tls secret"
	plainWorker := func(*config.Worker) {}
	tlsWorker := func(c *config.Worker) { c.TLSCert, c.TLSKey = wCert, wKey }
	mtlsWorker := func(c *config.Worker) { tlsWorker(c); c.TLSClientCA = ca.CertFile }

	for _, tc := range []struct {
		name   string
		worker func(*config.Worker)
		coord  config.Coordinator
		want   string // "": served; else a part of the error
	}{
		{"tls with the CA", tlsWorker, config.Coordinator{WorkerTLSCA: ca.CertFile}, ""},
		{"tls, another CA", tlsWorker, config.Coordinator{WorkerTLSCA: other.CertFile}, "set worker_tls_ca"},
		{"tls, coordinator plain text", tlsWorker, config.Coordinator{}, "set worker_tls_ca"},
		{"mtls, no client certificate", mtlsWorker, config.Coordinator{WorkerTLSCA: ca.CertFile}, "worker_tls_cert and worker_tls_key"},
		{"mtls, client certificate of another CA", mtlsWorker,
			config.Coordinator{WorkerTLSCA: ca.CertFile, WorkerTLSCert: oCert, WorkerTLSKey: oKey}, "worker_tls_cert"},
		{"mtls with a client certificate", mtlsWorker,
			config.Coordinator{WorkerTLSCA: ca.CertFile, WorkerTLSCert: cCert, WorkerTLSKey: cKey}, ""},
		{"plain worker, coordinator with a CA", plainWorker, config.Coordinator{WorkerTLSCA: ca.CertFile}, "does the worker serve TLS"},
		{"plain worker, plain coordinator", plainWorker, config.Coordinator{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := startServer(t, func(c *config.Worker) { c.ClusterSecret = secret; tc.worker(c) })
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			tcfg, err := tc.coord.WorkerTLS(ts.client.Addr())
			if err != nil {
				t.Fatal(err)
			}
			c, err := Dial(ctx, ts.client.Addr(), WithTLS(tcfg), WithSecret(secret))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_, err = c.Status(ctx)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("status: got %v, want an error saying %q", err, tc.want)
				}
				if status.Code(err) != codes.Unavailable {
					t.Errorf("status: code %v, want Unavailable (wrapped)", status.Code(err))
				}
				return
			}
			if err != nil {
				t.Fatalf("status: %v", err)
			}
			rd, err := c.Fragment(ctx, tk("SELECT 1 AS one"), ts.mem)
			if err != nil {
				t.Fatalf("fragment: %v", err)
			}
			rows := 0
			for rd.Next() {
				rows += int(rd.RecordBatch().NumRows())
			}
			if err := rd.Err(); err != nil || rows != 1 {
				t.Errorf("fragment: %d rows, err %v; want 1 row", rows, err)
			}
			rd.Release()
		})
	}
}

// TestWorkerPlaintextOffLoopback: a worker without a certificate refuses to
// start on an address other hosts reach unless plaintext: true says TLS is
// terminated elsewhere; contradicting settings are refused.
func TestWorkerPlaintextOffLoopback(t *testing.T) {
	ip := nonLoopbackIP(t)
	for _, tc := range []struct {
		name string
		cfg  config.Worker
		want string
	}{
		{"plain off loopback", config.Worker{Listen: net.JoinHostPort(ip, "0")}, "plaintext: true"},
		{"plain on all addresses", config.Worker{Listen: "0.0.0.0:4100"}, "plaintext: true"},
		{"plaintext said", config.Worker{Listen: "0.0.0.0:4100", Plaintext: true}, ""},
		{"plain on loopback", config.Worker{Listen: "127.0.0.1:4100"}, ""},
		{"cert without key", config.Worker{TLSCert: "c.pem"}, "go together"},
		{"client CA without cert", config.Worker{TLSClientCA: "ca.pem"}, "needs tls_cert"},
		{"plaintext and cert", config.Worker{TLSCert: "c.pem", TLSKey: "k.pem", Plaintext: true}, "contradicts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.MySQL = testAddr
			s, err := New(tc.cfg)
			if s != nil {
				s.Abort()
			}
			if tc.want == "" && err != nil {
				t.Fatalf("New: %v", err)
			}
			if tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("New: got %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// nonLoopbackIP is an address of this machine that is not loopback, or
// 192.0.2.1 (TEST-NET, only parsed) when it has none.
func nonLoopbackIP(t *testing.T) string {
	addrs, err := net.InterfaceAddrs()
	if err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
				return n.IP.String()
			}
		}
	}
	return "192.0.2.1"
}
