package localcluster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
)

// StartMySQL starts one standalone server (no replicas, no Shoal) for
// tests that need a MariaDB (or MySQL 8) of their own: it runs from a new
// temporary directory, listens on a free port of 127.0.0.1, and is set up
// like a cluster's servers (root has no password and may log in over TCP
// from 127.0.0.1). addr is its host:port.
//
// stop stops the server (as Down does) and then removes the directory; call
// it whether or not the tests passed. If StartMySQL fails, nothing it
// started is left running or on disk.
func StartMySQL(ctx context.Context) (addr string, stop func() error, err error) {
	fl, err := findFlavor()
	if err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp("", "shoal-mysql-")
	if err != nil {
		return "", nil, err
	}
	stop = func() error {
		if err := Down(dir); err != nil {
			return err // the server may still use the directory: keep it
		}
		return os.RemoveAll(dir)
	}
	ports, err := freePorts(1)
	if err != nil {
		return "", nil, errors.Join(err, stop())
	}
	s := &server{name: "mysql", dir: filepath.Join(dir, "mysql"), port: ports[0], serverID: 1, cpu: -1}
	s.socket = socketPath(s.dir)
	reg := &registry{path: filepath.Join(dir, pidsFile)}
	if err := fl.startServers(ctx, reg, []*server{s}, defaultBufferPool, nil); err != nil {
		return "", nil, errors.Join(err, stop())
	}
	return s.addr(), stop, nil
}

// TestMySQL is the server a package's tests use: the one SHOAL_TEST_MYSQL
// names (host:port, left running), else one StartMySQL starts. A caller
// that gets an error fails its tests rather than skipping them: the
// project's scripts install the server, so a missing one is a failure.
func TestMySQL(ctx context.Context) (addr string, stop func() error, err error) {
	if a := os.Getenv("SHOAL_TEST_MYSQL"); a != "" {
		return a, func() error { return nil }, nil
	}
	return StartMySQL(ctx)
}
