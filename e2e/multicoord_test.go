package e2e

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/coordinator"
)

// Several coordinators over the same workers, as behind a TCP load
// balancer (docs/operations.md): each is stateless towards the workers, so
// they share them without interfering, and a client of one that dies
// reconnects to another and gets the same answer.

// startCoordinator starts one more coordinator over the shared workers.
func startCoordinator(t *testing.T) (*coordinator.Server, *sql.DB) {
	t.Helper()
	return serveCoordinator(t, config.Coordinator{
		Listen: "127.0.0.1:0", HTTPListen: new(""), Replicas: env.replicas, MinRowsPerFragment: 1000,
	}, nil)
}

// multiQueries is a mix of distributed statements (aggregate, top-N,
// rows) and a passthrough one.
var multiQueries = []string{
	faultQ,
	"SELECT DayOfWeek, COUNT(*), AVG(Distance) FROM ontime GROUP BY DayOfWeek ORDER BY DayOfWeek",
	"SELECT id, Origin, Dest FROM ontime ORDER BY ArrDelayMinutes DESC, id LIMIT 15",
	"SELECT id, Carrier FROM ontime WHERE Origin = 'SFO' AND DayOfWeek = 3 ORDER BY id",
	"SELECT code, name FROM carriers ORDER BY code",
}

// TestMultiCoordinatorShare runs the mix on two coordinators at once, over
// the same workers: every answer is the primary's. Without the worker's
// wait for a free slot (DoGet, worker/server.go: refusing when every slot
// is busy) fragments fail and this fails with 1105; so does one
// coordinator under the same load, as workers keep no per-coordinator
// state that a second one could disturb.
func TestMultiCoordinatorShare(t *testing.T) {
	checkLeaks(t)
	_, dbA := startCoordinator(t)
	_, dbB := startCoordinator(t)
	want := map[string]*result{}
	for _, q := range multiQueries {
		r, err := query(env.direct, q)
		if err != nil || r.err != nil {
			t.Fatal(q, err, r.err)
		}
		want[q] = r
	}
	var wg sync.WaitGroup
	for _, db := range []*sql.DB{dbA, dbB} {
		for c := range 4 {
			wg.Go(func() {
				for i := range 3 * len(multiQueries) {
					q := multiQueries[(c+i)%len(multiQueries)]
					got, err := query(db, q)
					if err != nil {
						t.Errorf("%s: %v", q, err)
						return
					}
					compare(t, q, got, want[q], false)
				}
			})
		}
	}
	wg.Wait()
}

// TestMultiCoordinatorFailover: a client whose coordinator is stopped in
// the middle of its query sees its connection break (not a wrong or
// partial answer), reconnects to the other coordinator and gets the
// primary's answer there. Without closeSessions in Close (server.go,
// limits.go) the client reads 1317 from a coordinator that goes on
// answering nothing else: this fails.
func TestMultiCoordinatorFailover(t *testing.T) {
	checkLeaks(t)
	defer sharedHealthy(t) // replica 0 is frozen for a while
	coA, dbA := startCoordinator(t)
	_, dbB := startCoordinator(t)
	sameAnswer(t, dbA, faultQ) // warm: plans, connections

	ctx := context.Background()
	conn, err := dbA.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	id := connID(t, conn)
	// Freeze replica 0 so the query is surely still running on A.
	cont := stopReplica(t, 0)
	done := make(chan error, 1)
	go func() {
		rows, err := conn.QueryContext(ctx, faultQ)
		if err == nil {
			for rows.Next() {
			}
			err = rows.Err()
			rows.Close()
		}
		done <- err
	}()
	waitRunningOn(t, dbA, id)
	coA.Close()
	var err2 error
	select {
	case err2 = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the query on the stopped coordinator did not end")
	}
	cont()
	var me *mysql.MySQLError
	if err2 == nil || errors.As(err2, &me) {
		t.Fatalf("query on the stopped coordinator: got %v, want a broken connection (not a MySQL error)", err2)
	}
	t.Logf("client saw: %v", err2)
	// The client reconnects, to B, and gets the exact answer.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		got, err := query(dbB, faultQ)
		if err == nil && got.err == nil {
			want, _ := query(env.direct, faultQ)
			compare(t, faultQ, got, want, true)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("coordinator B: %v %v", err, got)
		}
	}
}

// waitRunningOn waits until connection id's statement shows in db's
// processlist as running distributed fragments.
func waitRunningOn(t *testing.T, db *sql.DB, id int64) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if r, ok := findProc(processlist(t, db, true), id); ok && r.command == "Query" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the query never showed as running")
		}
	}
}
