package e2e

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2/hpack"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/internal/certs"
	"github.com/shoaldb/shoal/worker"
)

// TestWorkerTLS: workers serving mutual TLS (tls_cert, tls_key,
// tls_client_ca) answer a coordinator that has the CA and a client
// certificate exactly as MariaDB does, and a recording proxy between them
// sees neither the cluster secret nor the fragment SQL; a coordinator
// without the CA, and one without a client certificate, get no fragment on
// those workers and SHOW SHOAL REPLICAS says which setting to fix.
//
// Checked to fail: with the workers' tls_cert removed (plain text), the
// proxy sees the secret and the test reports it.
func TestWorkerTLS(t *testing.T) {
	checkLeaks(t)
	replicasCaughtUp(t)
	dir := t.TempDir()
	ca, err := certs.NewCA(dir, "e2e CA")
	if err != nil {
		t.Fatal(err)
	}
	loopback := []string{"127.0.0.1", "localhost"}
	cCert, cKey, err := ca.Issue(dir, "coordinator", loopback)
	if err != nil {
		t.Fatal(err)
	}
	secret := fmt.Sprintf("tls-secret-%d", time.Now().UnixNano())
	var wire []*lockedBuffer
	var reps []config.Replica
	for i, r := range env.cluster.Replicas {
		name := fmt.Sprintf("worker%d", i+1)
		wCert, wKey, err := ca.Issue(dir, name, loopback)
		if err != nil {
			t.Fatal(err)
		}
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		w, err := worker.New(config.Worker{Listen: lis.Addr().String(), MySQL: r.MySQL, User: "root", Slots: 2, ClusterSecret: secret,
			TLSCert: wCert, TLSKey: wKey, TLSClientCA: ca.CertFile})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- w.Serve(lis) }()
		t.Cleanup(func() { w.Abort(); <-done })
		rec := &lockedBuffer{}
		wire = append(wire, rec)
		reps = append(reps, config.Replica{Name: fmt.Sprintf("replica%d", i+1), MySQL: r.MySQL, Worker: recordingProxy(t, lis.Addr().String(), rec)})
	}
	base := config.Coordinator{Listen: "127.0.0.1:0", HTTPListen: new(""), Replicas: reps, MinRowsPerFragment: 1000,
		ClusterSecret: secret, StatusInterval: config.Duration(300 * time.Millisecond)}

	t.Run("with the CA and a client certificate", func(t *testing.T) {
		cfg := base
		cfg.WorkerTLSCA, cfg.WorkerTLSCert, cfg.WorkerTLSKey = ca.CertFile, cCert, cKey
		_, db := serveCoordinator(t, cfg, nil)
		for i := range reps {
			waitReplica(t, db, i, time.Minute, "healthy over TLS", healthy)
		}
		sameAnswer(t, db, faultQ)
		ran := fmt.Sprint(fragmentWorkers(t, db, faultQ))
		for _, r := range reps {
			if !strings.Contains(ran, r.Name+":") {
				t.Errorf("fragments ran on %s, none on %s", ran, r.Name)
			}
		}
		for i, rec := range wire {
			text := rec.String()
			if len(text) < 1000 {
				t.Fatalf("worker %d: the proxy recorded %d bytes: it records nothing", i+1, len(text))
			}
			// gRPC metadata goes in HTTP/2 headers, Huffman coded by HPACK:
			// look for both spellings.
			for _, clear := range []string{secret, worker.SecretHeader, "ontime"} {
				if strings.Contains(text, clear) || strings.Contains(text, string(hpack.AppendHuffmanString(nil, clear))) {
					t.Errorf("worker %d: %q crossed the network in clear", i+1, clear)
				}
			}
		}
	})
	for _, tc := range []struct {
		name string
		mod  func(*config.Coordinator)
		want string
	}{
		{"without the CA", func(*config.Coordinator) {}, "set worker_tls_ca"},
		{"without a client certificate", func(c *config.Coordinator) { c.WorkerTLSCA = ca.CertFile }, "worker_tls_cert and worker_tls_key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := base
			tc.mod(&cfg)
			_, db := serveCoordinator(t, cfg, nil)
			r, err := query(db, "SHOW SHOAL REPLICAS")
			if err != nil || r.err != nil {
				t.Fatalf("SHOW SHOAL REPLICAS: %v %v", err, r.err)
			}
			if len(r.rows) != len(reps) {
				t.Fatalf("SHOW SHOAL REPLICAS: %d rows, want %d", len(r.rows), len(reps))
			}
			for _, row := range r.rows {
				line := fmt.Sprint(row)
				if !strings.Contains(line, tc.want) {
					t.Errorf("SHOW SHOAL REPLICAS row %s: want the reason to say %q", line, tc.want)
				}
			}
		})
	}
}
