package config

import (
	"crypto/tls"
	"fmt"
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
