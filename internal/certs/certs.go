// Package certs makes the certificates of a cluster that has no PKI of its
// own: a local certificate authority and, signed by it, one certificate per
// service (coordinator, workers) for the coordinator ↔ worker TLS. `shoal
// local up` and the compose cluster (`shoal certs`) use it; production
// clusters bring their own certificates (docs/operations.md).
//
// Keys are ECDSA P-256, written as PKCS #8 PEM with mode 0600;
// certificates are PEM, mode 0644. Every service certificate is good for
// both ends of a TLS connection (server and client authentication), so the
// coordinator's serves as its client certificate for mutual TLS.
package certs

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Validity is how long the certificates made here are valid.
const Validity = 2 * 365 * 24 * time.Hour

// CA is a certificate authority whose key is on this machine.
type CA struct {
	// CertFile is the PEM file of the CA certificate: what verifiers
	// trust (worker_tls_ca, tls_client_ca).
	CertFile string
	cert     *x509.Certificate
	key      crypto.Signer
}

// NewCA makes a CA named name and writes it to dir/ca.pem and
// dir/ca-key.pem.
func NewCA(dir, name string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("certs: CA key: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: name, Organization: []string{"Shoal"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(Validity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("certs: CA certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	ca := &CA{CertFile: filepath.Join(dir, "ca.pem"), cert: cert, key: key}
	if err := write(dir, "ca", der, key); err != nil {
		return nil, err
	}
	return ca, nil
}

// LoadCA reads the CA NewCA wrote to dir.
func LoadCA(dir string) (*CA, error) {
	pair, err := tls.LoadX509KeyPair(filepath.Join(dir, "ca.pem"), filepath.Join(dir, "ca-key.pem"))
	if err != nil {
		return nil, fmt.Errorf("certs: %w", err)
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, fmt.Errorf("certs: %w", err)
	}
	key, ok := pair.PrivateKey.(crypto.Signer)
	if !ok || !cert.IsCA {
		return nil, fmt.Errorf("certs: %s is not a CA", filepath.Join(dir, "ca.pem"))
	}
	return &CA{CertFile: filepath.Join(dir, "ca.pem"), cert: cert, key: key}, nil
}

// OpenCA loads the CA in dir, or makes one there when dir has none.
func OpenCA(dir, name string) (*CA, error) {
	if _, err := os.Stat(filepath.Join(dir, "ca.pem")); errors.Is(err, os.ErrNotExist) {
		return NewCA(dir, name)
	}
	return LoadCA(dir)
}

// Issue makes a certificate for the service name, valid for hosts (IP
// addresses or DNS names), signed by ca, and writes it to dir/name.pem and
// its key to dir/name-key.pem.
func (ca *CA) Issue(dir, name string, hosts []string) (certFile, keyFile string, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", fmt.Errorf("certs: %s key: %w", name, err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: name, Organization: []string{"Shoal"}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(Validity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return "", "", fmt.Errorf("certs: %s certificate: %w", name, err)
	}
	if err := write(dir, name, der, key); err != nil {
		return "", "", err
	}
	return filepath.Join(dir, name+".pem"), filepath.Join(dir, name+"-key.pem"), nil
}

// write writes dir/name.pem (certificate) and dir/name-key.pem (key,
// 0600), the key first so that a certificate never lies next to a missing
// key.
func write(dir, name string, der []byte, key *ecdsa.PrivateKey) error {
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("certs: %s key: %w", name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("certs: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+"-key.pem"), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return fmt.Errorf("certs: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return fmt.Errorf("certs: %w", err)
	}
	return nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return n
}
