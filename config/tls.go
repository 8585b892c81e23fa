package config

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
)

// ListenerTLS is the client listeners' (MySQL, Flight SQL) TLS
// configuration from tls_cert and tls_key, or nil when they are not set. Clients ask for TLS in their
// handshake response (CLIENT_SSL), as with MySQL; with
// require_secure_transport, those that do not are refused (auth.go). The
// files are read once, at start: rotate a certificate by restarting.
func (cfg Coordinator) ListenerTLS() (*tls.Config, error) {
	if cfg.TLSCert == "" {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
	if err != nil {
		return nil, fmt.Errorf("tls_cert/tls_key: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// Worker traffic (coordinator ↔ worker Arrow Flight over gRPC).
//
// A worker with tls_cert and tls_key serves TLS only; with tls_client_ca it
// also requires a client certificate signed by that CA (mutual TLS). A
// worker without a certificate serves plain text, which it does only on a
// loopback listen address unless plaintext: true says TLS is terminated
// elsewhere (a mesh, a tunnel); it then logs a warning.
//
// The coordinator uses TLS to a worker when worker_tls_ca is set (workers
// verified against it) or when the worker's address is not loopback
// (verified against the system's roots), so the cluster secret, sent as
// gRPC metadata on every call, never crosses the network in clear. Only
// worker_plaintext: true sends it in clear to another host (with a
// warning). worker_tls_cert and worker_tls_key are its client certificate
// for workers that require one.

// ServerTLS is the worker's Flight listener TLS configuration, nil when it
// serves plain text.
func (w Worker) ServerTLS() (*tls.Config, error) {
	if w.TLSCert == "" {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(w.TLSCert, w.TLSKey)
	if err != nil {
		return nil, fmt.Errorf("config: worker tls_cert/tls_key: %w", err)
	}
	c := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if w.TLSClientCA != "" {
		pool, err := loadCAs(w.TLSClientCA)
		if err != nil {
			return nil, fmt.Errorf("config: worker tls_client_ca: %w", err)
		}
		c.ClientCAs, c.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	return c, nil
}

// WorkerTLS is the coordinator's TLS configuration for the worker at addr
// (host:port), nil when it talks plain text to it: worker_plaintext, or no
// worker_tls_ca and a loopback address.
func (c Coordinator) WorkerTLS(addr string) (*tls.Config, error) {
	if c.WorkerPlaintext || (c.WorkerTLSCA == "" && isLoopback(addr)) {
		return nil, nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: host}
	if c.WorkerTLSCA != "" {
		if tc.RootCAs, err = loadCAs(c.WorkerTLSCA); err != nil {
			return nil, fmt.Errorf("config: worker_tls_ca: %w", err)
		}
	}
	if c.WorkerTLSCert != "" {
		cert, err := tls.LoadX509KeyPair(c.WorkerTLSCert, c.WorkerTLSKey)
		if err != nil {
			return nil, fmt.Errorf("config: worker_tls_cert/worker_tls_key: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

// loadCAs reads a PEM file of CA certificates into a pool.
func loadCAs(path string) (*x509.CertPool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("%s holds no PEM certificate", path)
	}
	return pool, nil
}

// validateTLS reports contradicting worker TLS settings and a plain
// text listener on another host's reach without plaintext: true.
func (w *Worker) validateTLS() error {
	if (w.TLSCert == "") != (w.TLSKey == "") {
		return fmt.Errorf("config: worker tls_cert and tls_key go together: set both (PEM files) or neither")
	}
	if w.TLSClientCA != "" && w.TLSCert == "" {
		return fmt.Errorf("config: worker tls_client_ca (mutual TLS) needs tls_cert and tls_key")
	}
	if w.Plaintext && w.TLSCert != "" {
		return fmt.Errorf("config: worker plaintext: true contradicts tls_cert: drop one")
	}
	if w.TLSCert == "" && !w.Plaintext && !isLoopback(w.Listen) {
		return fmt.Errorf("config: worker listen %s is not loopback and the worker has no TLS certificate: the cluster secret and the results would cross the network in clear; "+
			"set tls_cert and tls_key (shoal local up and the compose cluster make them), or plaintext: true when TLS is terminated elsewhere", w.Listen)
	}
	return nil
}

// validateWorkerTLS reports contradicting worker TLS settings of the
// coordinator.
func (c *Coordinator) validateWorkerTLS() error {
	if (c.WorkerTLSCert == "") != (c.WorkerTLSKey == "") {
		return fmt.Errorf("config: worker_tls_cert and worker_tls_key go together: set both (PEM files) or neither")
	}
	if c.WorkerPlaintext && (c.WorkerTLSCA != "" || c.WorkerTLSCert != "") {
		return fmt.Errorf("config: worker_plaintext: true contradicts worker_tls_ca and worker_tls_cert: drop one")
	}
	return nil
}

// PlaintextWarning is the worker's warning when it serves plain text on an
// address other hosts reach ("" when it does not).
func (w *Worker) PlaintextWarning() string {
	if w.TLSCert != "" || isLoopback(w.Listen) {
		return ""
	}
	return fmt.Sprintf("config: worker serves plain text on %s (plaintext: true): the cluster secret and fragment results cross the network in clear unless TLS is terminated in front of it", w.Listen)
}
