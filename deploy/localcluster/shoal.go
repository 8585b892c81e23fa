package localcluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/internal/certs"
)

// startShoal writes the worker and coordinator configurations, starts one
// worker per replica and the coordinator, and fills in their addresses in
// c. ports holds the coordinator's port, then one per worker.
func startShoal(reg *registry, c *Cluster, o Options, dir string, ports []int, logf func(string, ...any)) error {
	bin := o.ShoalBinary
	if bin == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("localcluster: find the shoal binary: %w", err)
		}
		bin = exe
	}
	// The coordinator authenticates to the workers with a secret made for
	// this cluster, written (0600) into both configurations.
	secret := randomPassword() + randomPassword()
	// Clients may use TLS with a certificate made for this cluster
	// (c.TLSCA verifies it); plain connections stay allowed.
	certFile, keyFile, err := SelfSignedCert(dir)
	if err != nil {
		return err
	}
	c.TLSCA = certFile
	// The coordinator's HTTP listener (status page, /metrics, /healthz)
	// on a free port too: the default one would go to the first cluster
	// on the machine only.
	hp, err := freePorts(1)
	if err != nil {
		return err
	}
	// The coordinator and the workers talk mutual TLS with certificates
	// from a CA made for this cluster (certs/).
	certsDir := filepath.Join(dir, "certs")
	ca, err := certs.NewCA(certsDir, "shoal local cluster CA")
	if err != nil {
		return err
	}
	loopback := []string{"127.0.0.1", "::1", "localhost"}
	cCert, cKey, err := ca.Issue(certsDir, "coordinator", loopback)
	if err != nil {
		return err
	}
	coord := config.Coordinator{Listen: fmt.Sprintf("127.0.0.1:%d", ports[0]), ReplicaUser: c.User, ClusterSecret: secret,
		TLSCert: certFile, TLSKey: keyFile, HTTPListen: new(fmt.Sprintf("127.0.0.1:%d", hp[0])),
		WorkerTLSCA: ca.CertFile, WorkerTLSCert: cCert, WorkerTLSKey: cKey,
		// Live pins follow the primary's binary log: replication's lag,
		// whose tail under write load is seconds on a shared host, is
		// then not part of a pin's staleness (docs/operations.md, "Live
		// pins: whom to follow"). OPTIONS ('follow' = 'replica') still
		// follows a replica.
		Primary: c.Primary, LiveFollow: config.LiveFollowPrimary}
	var pin *pinner // worker i runs on replica i's CPU (pin.go)
	if o.PinCPUs {
		if pin, err = newPinner(); err != nil {
			return err
		}
	}
	for i := range c.Replicas {
		name := "worker" + strconv.Itoa(i+1)
		// Each worker's /metrics on a port of its own (the default port
		// would go to the first worker only).
		hp, err := freePorts(1)
		if err != nil {
			return err
		}
		httpAddr := fmt.Sprintf("127.0.0.1:%d", hp[0])
		wCert, wKey, err := ca.Issue(certsDir, name, loopback)
		if err != nil {
			return err
		}
		w := config.Worker{
			HTTPListen: &httpAddr,
			Listen:     fmt.Sprintf("127.0.0.1:%d", ports[1+i]),
			MySQL:      c.Replicas[i].MySQL,
			User:       c.User,
			Slots:      o.WorkerSlots,

			ClusterSecret: secret,
			TLSCert:       wCert, TLSKey: wKey, TLSClientCA: ca.CertFile,
		}
		cpu := -1
		if c.Replicas[i].CPU != nil {
			cpu = *c.Replicas[i].CPU
		}
		if err := startOne(reg, pin.wrap(cpu, []string{bin}), "worker", name, dir, w.Listen, w); err != nil {
			return err
		}
		c.Replicas[i].Worker = w.Listen
		c.Replicas[i].WorkerHTTP = httpAddr
		coord.Replicas = append(coord.Replicas, config.Replica{
			Name: fmt.Sprintf("replica%d", i+1), MySQL: c.Replicas[i].MySQL, Worker: w.Listen,
		})
	}
	if err := startOne(reg, []string{bin}, "coordinator", "coordinator", dir, coord.Listen, coord); err != nil {
		return err
	}
	c.Coordinator.MySQL = coord.Listen
	c.Coordinator.HTTP = *coord.HTTPListen
	logf("coordinator on %s, workers on %d replicas", coord.Listen, len(c.Replicas))
	if o.Shape != "" {
		return startShaped(reg, c, o, dir, bin, pin, coord, logf) // shape.go
	}
	return nil
}

// startOne writes name.yaml, runs `bin... role --config name.yaml` (bin
// is the shoal binary, maybe behind taskset) with its output in name.log
// and its pid in name.pid, and waits for listen.
func startOne(reg *registry, bin []string, role, name, dir, listen string, cfg any) error {
	cfgPath := filepath.Join(dir, name+".yaml")
	if err := config.Write(cfgPath, cfg); err != nil {
		return fmt.Errorf("localcluster: %w", err)
	}
	return launch(reg, name, cfgPath, dir, listen, append(bin, role, "--config", cfgPath))
}

// launch runs argv as name (see registry.start; match identifies it in
// /proc) with its output in name.log and its pid in name.pid, and waits
// for listen.
func launch(reg *registry, name, match, dir, listen string, argv []string) error {
	logPath := filepath.Join(dir, name+".log")
	p, err := reg.start(name, match, logPath, argv...)
	if err != nil {
		return fmt.Errorf("localcluster: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".pid"), []byte(strconv.Itoa(p.pid)+"\n"), 0o644); err != nil {
		return fmt.Errorf("localcluster: %w", err)
	}
	if err := waitTCP(p, listen, logPath, 30*time.Second); err != nil {
		return fmt.Errorf("localcluster: %w", err)
	}
	return nil
}
