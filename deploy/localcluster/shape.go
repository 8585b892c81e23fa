package localcluster

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/netshape"
)

// Shaped links (Options.Shape): the benchmark should show what a real
// network between the coordinator and its workers costs, and tc netem is
// not available everywhere, so each worker gets a `shoal netshape` proxy
// in front of it (package netshape: a user-space link of a given rate and
// delay) and two more coordinators reach the workers only through those
// proxies. The main coordinator keeps its direct loopback links, so one
// cluster measures both:
//
//	coordinator              → worker i                (loopback)
//	coordinator-shaped       → netshape i → worker i   (ipc_compression unset: the worker's own, none by default)
//	coordinator-shaped-lz4   → netshape i → worker i   (every replica ipc_compression: lz4)
//
// Only the Flight links are shaped: the coordinators still read the
// replicas' MySQL (catalog, passthrough) directly.

// Keys of Coordinator.Shaped.
const (
	ShapedNone = "none"
	ShapedLZ4  = "lz4"
)

// checkShape validates o.Shape before Up starts anything.
func checkShape(o Options) error {
	if o.Shape == "" {
		return nil
	}
	if _, err := netshape.ParseLink(o.Shape); err != nil {
		return fmt.Errorf("localcluster: Shape: %w", err)
	}
	if o.NoShoal {
		return errors.New("localcluster: Shape shapes the workers' links, and NoShoal starts no workers: drop one of them")
	}
	if o.BasePort != 0 && o.Replicas > 9 {
		return fmt.Errorf("localcluster: with BasePort and Shape at most 9 replicas fit (proxies on BasePort+111.., shaped coordinators on BasePort+120, +121); %d asked: use fewer or free ports (BasePort 0)", o.Replicas)
	}
	return nil
}

// startShaped starts netshape<i> in front of worker i (pinned like the
// worker), then coordinator-shaped and coordinator-shaped-lz4, copies of
// main (the main coordinator's configuration: same users, secret and TLS)
// whose replicas' workers are the proxies. It records their addresses in
// c.Coordinator. Ports with BasePort: proxy i on BasePort+110+i, the two
// coordinators on BasePort+120 and +121.
func startShaped(reg *registry, c *Cluster, o Options, dir, bin string, pin *pinner, main config.Coordinator, logf func(string, ...any)) error {
	n := len(c.Replicas)
	var ports []int
	if o.BasePort != 0 {
		for i := range n {
			ports = append(ports, o.BasePort+111+i)
		}
		ports = append(ports, o.BasePort+120, o.BasePort+121)
	} else {
		var err error
		if ports, err = freePorts(n + 2); err != nil {
			return err
		}
	}
	proxies := make([]string, n)
	for i, r := range c.Replicas {
		name := "netshape" + strconv.Itoa(i+1)
		listen := fmt.Sprintf("127.0.0.1:%d", ports[i])
		cpu := -1
		if r.CPU != nil {
			cpu = *r.CPU
		}
		argv := append(pin.wrap(cpu, []string{bin}), "netshape", "--listen", listen, "--to", r.Worker, "--link", o.Shape)
		// netshape has no configuration file: its listen address, unique
		// on this machine while it runs, identifies it in /proc.
		if err := launch(reg, name, listen, dir, listen, argv); err != nil {
			return err
		}
		proxies[i] = listen
	}
	c.Coordinator.Shape = o.Shape
	c.Coordinator.Shaped = map[string]string{}
	for k, v := range []struct{ key, name, compression string }{
		{ShapedNone, "coordinator-shaped", ""},
		{ShapedLZ4, "coordinator-shaped-lz4", "lz4"},
	} {
		// Each its own HTTP port: unset, both would try the main
		// coordinator's default one.
		hp, err := freePorts(1)
		if err != nil {
			return err
		}
		cfg := main
		cfg.Listen = fmt.Sprintf("127.0.0.1:%d", ports[n+k])
		cfg.HTTPListen = new(fmt.Sprintf("127.0.0.1:%d", hp[0]))
		cfg.FlightSQLListen = ""
		cfg.Replicas = slices.Clone(main.Replicas)
		for i := range cfg.Replicas {
			cfg.Replicas[i].Worker = proxies[i]
			cfg.Replicas[i].IPCCompression = v.compression
		}
		if err := startOne(reg, []string{bin}, "coordinator", v.name, dir, cfg.Listen, cfg); err != nil {
			return err
		}
		c.Coordinator.Shaped[v.key] = cfg.Listen
	}
	logf("shaped links (%s): proxies %v; coordinator-shaped on %s, coordinator-shaped-lz4 on %s",
		o.Shape, proxies, c.Coordinator.Shaped[ShapedNone], c.Coordinator.Shaped[ShapedLZ4])
	return nil
}
