package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkerTLSChoice: the coordinator talks TLS to a worker when it has a
// CA for the workers or the worker is off loopback, plain text only on
// loopback without a CA or with worker_plaintext; the client certificate
// goes with the TLS configuration; the server name is the worker's host.
func TestWorkerTLSChoice(t *testing.T) {
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	// Any PEM certificate will do for the pool (this one is Go's test
	// certificate, public and expired: only parsed).
	if err := os.WriteFile(ca, []byte(testCertPEM), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		cfg    Coordinator
		addr   string
		tls    bool
		server string
		err    string
	}{
		{"loopback, no CA", Coordinator{}, "127.0.0.1:4100", false, "", ""},
		{"localhost, no CA", Coordinator{}, "localhost:4100", false, "", ""},
		{"remote, no CA: system roots", Coordinator{}, "worker1:4100", true, "worker1", ""},
		{"loopback with a CA", Coordinator{WorkerTLSCA: ca}, "127.0.0.1:4100", true, "127.0.0.1", ""},
		{"remote, plaintext", Coordinator{WorkerPlaintext: true}, "10.0.0.2:4100", false, "", ""},
		{"missing CA file", Coordinator{WorkerTLSCA: filepath.Join(dir, "none.pem")}, "worker1:4100", false, "", "worker_tls_ca"},
		{"CA file without PEM", Coordinator{WorkerTLSCA: filepath.Join(dir)}, "worker1:4100", false, "", "worker_tls_ca"},
	} {
		got, err := tc.cfg.WorkerTLS(tc.addr)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want one naming %s", tc.name, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case (got != nil) != tc.tls:
			t.Errorf("%s: TLS %v, want %v", tc.name, got != nil, tc.tls)
		case got != nil && got.ServerName != tc.server:
			t.Errorf("%s: server name %q, want %q", tc.name, got.ServerName, tc.server)
		case got != nil && tc.cfg.WorkerTLSCA != "" && got.RootCAs == nil:
			t.Errorf("%s: the CA is not in the roots", tc.name)
		}
	}
}

// TestWorkerTLSValidate: contradicting or half TLS settings are refused
// with what to do.
func TestWorkerTLSValidate(t *testing.T) {
	rep := []Replica{{MySQL: "r:3306", Worker: "w:4100"}}
	for _, tc := range []struct {
		name string
		cfg  Coordinator
		want string
	}{
		{"fine", Coordinator{WorkerTLSCA: "ca.pem", WorkerTLSCert: "c.pem", WorkerTLSKey: "k.pem"}, ""},
		{"cert without key", Coordinator{WorkerTLSCert: "c.pem"}, "go together"},
		{"plaintext and CA", Coordinator{WorkerPlaintext: true, WorkerTLSCA: "ca.pem"}, "contradicts"},
	} {
		tc.cfg.Replicas = rep
		err := tc.cfg.Validate()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

const testCertPEM = `-----BEGIN CERTIFICATE-----
MIIBhTCCASugAwIBAgIQIRi6zePL6mKjOipn+dNuaTAKBggqhkjOPQQDAjASMRAw
DgYDVQQKEwdBY21lIENvMB4XDTE3MTAyMDE5NDMwNloXDTE4MTAyMDE5NDMwNlow
EjEQMA4GA1UEChMHQWNtZSBDbzBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABD0d
7VNhbWvZLWPuj/RtHFjvtJBEwOkhbN/BnnE8rnZR8+sbwnc/KhCk3FhnpHZnQz7B
5aETbbIgmuvewdjvSBSjYzBhMA4GA1UdDwEB/wQEAwICpDATBgNVHSUEDDAKBggr
BgEFBQcDATAPBgNVHRMBAf8EBTADAQH/MCkGA1UdEQQiMCCCDmxvY2FsaG9zdDo1
NDUzgg4xMjcuMC4wLjE6NTQ1MzAKBggqhkjOPQQDAgNIADBFAiEA2zpJEPQyz6/l
Wf86aX6PepsntZv2GYlA5UpabfT2EZICICpJ5h/iI+i341gBmLiAFQOyTDT+/wQc
6MF9+Yw1Yy0t
-----END CERTIFICATE-----
`
