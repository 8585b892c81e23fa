// Package gtid knows the two GTID dialects Shoal meets: MariaDB's
// domain-server-sequence positions and MySQL's GTID sets. The worker, the
// engine's freshness floors and the local cluster all need to tell the
// flavours apart and compare positions; this leaf package is the one copy.
package gtid

import (
	"strings"

	"vitess.io/vitess/go/mysql/replication"
)

// WaitFunction is the SQL function that waits until a server has applied a
// position: MASTER_GTID_WAIT on MariaDB, WAIT_FOR_EXECUTED_GTID_SET on
// MySQL. Both take (position, timeout in seconds) and return 0 when reached.
func WaitFunction(mariadb bool) string {
	if mariadb {
		return "MASTER_GTID_WAIT"
	}
	return "WAIT_FOR_EXECUTED_GTID_SET"
}

// MinPosition is the lowest of GTID positions: what every one of them has
// applied. MariaDB: per domain present in all, the lowest sequence number.
// MySQL: the intersection of the GTID sets.
func MinPosition(mariadb bool, positions []string) (string, error) {
	if len(positions) == 0 {
		return "", nil
	}
	if mariadb {
		var low replication.MariadbGTIDSet
		for i, p := range positions {
			set, err := replication.ParseMariadbGTIDSet(p)
			if err != nil {
				return "", err
			}
			cur := set.(replication.MariadbGTIDSet)
			if i == 0 {
				low = cur
				continue
			}
			for d, g := range low {
				c, ok := cur[d]
				switch {
				case !ok:
					delete(low, d)
				case c.Sequence < g.Sequence:
					low[d] = c
				}
			}
		}
		return low.String(), nil
	}
	var low replication.Mysql56GTIDSet
	for i, p := range positions {
		cur, err := replication.ParseMysql56GTIDSet(p)
		if err != nil {
			return "", err
		}
		if i == 0 {
			low = cur
			continue
		}
		low = low.Difference(low.Difference(cur)) // low ∩ cur
	}
	return low.String(), nil
}

// IsMariaDB tells MariaDB from MySQL by a version string
// ("10.11.6-MariaDB-0+deb12u1", "8.4.3").
func IsMariaDB(version string) bool {
	return strings.Contains(strings.ToLower(version), "mariadb")
}

// Covers reports whether a server at position pos has applied everything
// in floor: what MASTER_GTID_WAIT(floor) and WAIT_FOR_EXECUTED_GTID_SET
// wait for. MariaDB: every domain of floor is in pos with a sequence
// number at least as high (the server id is not compared, as MariaDB does
// not). MySQL: floor is a subset of pos. An empty floor is always covered.
func Covers(mariadb bool, pos, floor string) (bool, error) {
	if strings.TrimSpace(floor) == "" {
		return true, nil
	}
	if mariadb {
		f, err := replication.ParseMariadbGTIDSet(floor)
		if err != nil {
			return false, err
		}
		p, err := replication.ParseMariadbGTIDSet(pos)
		if err != nil {
			return false, err
		}
		return p.Contains(f), nil
	}
	f, err := replication.ParseMysql56GTIDSet(floor)
	if err != nil {
		return false, err
	}
	p, err := replication.ParseMysql56GTIDSet(pos)
	if err != nil {
		return false, err
	}
	return p.Contains(f), nil
}
