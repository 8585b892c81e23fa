package measure

import (
	"database/sql"
	"fmt"

	_ "github.com/go-sql-driver/mysql" // the "mysql" driver of sql.Open

	"github.com/shoaldb/shoal/deploy/localcluster"
)

// LoadCluster loads the local cluster in dir; its error says how to
// start one.
func LoadCluster(dir string) (*localcluster.Cluster, error) {
	c, err := localcluster.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("%w (start one with: shoal local up --dir %s)", err, dir)
	}
	return c, nil
}

// OpenCluster opens the first replica (direct) and the coordinator (shoal)
// of the local cluster in dir, each allowing conns open connections.
func OpenCluster(dir string, conns int) (c *localcluster.Cluster, direct, shoal *sql.DB, err error) {
	if c, err = LoadCluster(dir); err != nil {
		return nil, nil, nil, err
	}
	if direct, shoal, err = OpenSides(c, c.Coordinator.MySQL, conns); err != nil {
		return nil, nil, nil, err
	}
	return c, direct, shoal, nil
}

// OpenSides opens c's first replica (direct) and the coordinator at addr
// (shoal), each allowing conns open connections.
func OpenSides(c *localcluster.Cluster, addr string, conns int) (direct, shoal *sql.DB, err error) {
	if direct, err = sql.Open("mysql", c.DSN(c.Replicas[0].MySQL)); err != nil {
		return nil, nil, err
	}
	if shoal, err = sql.Open("mysql", c.DSN(addr)); err != nil {
		direct.Close()
		return nil, nil, err
	}
	for _, db := range []*sql.DB{direct, shoal} {
		db.SetMaxOpenConns(conns)
		db.SetMaxIdleConns(conns)
	}
	return direct, shoal, nil
}
