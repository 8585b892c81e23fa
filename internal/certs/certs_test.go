package certs

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"
)

// TestIssueVerifies: a service certificate verifies against its CA for the
// hosts it was issued for, for server and client use, and not for another
// host or against another CA; keys are private to their owner; OpenCA
// reuses the CA it finds.
func TestIssueVerifies(t *testing.T) {
	dir := t.TempDir()
	ca, err := OpenCA(dir, "test CA")
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile, err := ca.Issue(dir, "worker1", []string{"worker1", "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	pool := func(ca *CA) *x509.CertPool {
		b, err := os.ReadFile(ca.CertFile)
		if err != nil {
			t.Fatal(err)
		}
		p := x509.NewCertPool()
		p.AppendCertsFromPEM(b)
		return p
	}
	for _, tc := range []struct {
		host string
		use  x509.ExtKeyUsage
		ok   bool
	}{
		{"worker1", x509.ExtKeyUsageServerAuth, true},
		{"127.0.0.1", x509.ExtKeyUsageServerAuth, true},
		{"", x509.ExtKeyUsageClientAuth, true},
		{"worker2", x509.ExtKeyUsageServerAuth, false},
	} {
		_, err := leaf.Verify(x509.VerifyOptions{DNSName: tc.host, Roots: pool(ca), KeyUsages: []x509.ExtKeyUsage{tc.use}})
		if (err == nil) != tc.ok {
			t.Errorf("host %q use %v: verify error %v, want ok=%v", tc.host, tc.use, err, tc.ok)
		}
	}
	other, err := NewCA(t.TempDir(), "other CA")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: "worker1", Roots: pool(other)}); err == nil {
		t.Error("verified against a CA that did not sign it")
	}
	for _, f := range []string{keyFile, filepath.Join(dir, "ca-key.pem")} {
		if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, err %v; want 0600", f, fi.Mode().Perm(), err)
		}
	}
	again, err := OpenCA(dir, "test CA")
	if err != nil {
		t.Fatal(err)
	}
	if !again.cert.Equal(ca.cert) {
		t.Error("OpenCA made a new CA instead of loading the one in dir")
	}
}
