package e2e

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/worker"
)

// workerProcessEnv, set, makes the test binary a worker process (see run
// in main_test.go): "listen,replica mysql address,cluster secret".
const workerProcessEnv = "SHOAL_E2E_WORKER_PROCESS"

// serveWorkerProcess runs a worker until the process is killed.
func serveWorkerProcess(spec string) int {
	parts := strings.SplitN(spec, ",", 3)
	if len(parts) != 3 {
		fmt.Fprintf(os.Stderr, "%s=%q: want listen,mysql,secret\n", workerProcessEnv, spec)
		return 2
	}
	w, err := worker.New(config.Worker{Listen: parts[0], MySQL: parts[1], User: "root", Slots: 2, ClusterSecret: parts[2]})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	lis, err := net.Listen("tcp", parts[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := w.Serve(lis); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestFaultWorkerProcessKilled: worker 1 is a separate process (this test
// binary re-executed as a worker) and is kill -9'd while its fragments are
// in flight (its replica is frozen, so they cannot finish). The
// coordinator sees its streams cut, reruns those fragments on worker 2,
// and answers exactly; SHOW SHOAL REPLICAS then reports worker 1
// unreachable. Without the retry in execute.go the query fails.
func TestFaultWorkerProcessKilled(t *testing.T) {
	checkLeaks(t)
	secret := "proc-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	free := func() string {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer lis.Close()
		return lis.Addr().String()
	}
	// Worker 1: a process of its own.
	addr1 := free()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), workerProcessEnv+"="+addr1+","+env.cluster.Replicas[0].MySQL+","+secret)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr1); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the worker process never listened")
		}
	}
	// Worker 2 in this process.
	lis2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	w2, err := worker.New(config.Worker{Listen: lis2.Addr().String(), MySQL: env.cluster.Replicas[1].MySQL, User: "root", Slots: 2, ClusterSecret: secret})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- w2.Serve(lis2) }()
	t.Cleanup(func() { w2.Stop(); <-served })

	_, db := serveCoordinator(t, config.Coordinator{
		Listen: "127.0.0.1:0", MinRowsPerFragment: 1000, ClusterSecret: secret,
		Replicas: []config.Replica{
			{Name: "replica1", MySQL: env.cluster.Replicas[0].MySQL, Worker: addr1},
			{Name: "replica2", MySQL: env.cluster.Replicas[1].MySQL, Worker: lis2.Addr().String()},
		},
		FragmentTimeout: config.Duration(time.Minute), // the frozen replica's fragments wait for the kill
		StatusInterval:  config.Duration(200 * time.Millisecond),
	}, nil)
	waitReplica(t, db, 0, 30*time.Second, "healthy", healthy)
	sameAnswer(t, db, faultQ)
	if ws := fragmentWorkers(t, db, faultQ); ws["replica1"] == 0 {
		t.Fatalf("fragments ran on %v: the worker process got none, the test proves nothing", ws)
	}

	cont := stopReplica(t, 0)
	ch := runAsync(db, faultQ)
	select {
	case r := <-ch:
		t.Fatalf("the query ended while replica1 was frozen (%v): no fragment was in flight on its worker", r.err)
	case <-time.After(time.Second):
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	r := await(t, ch, 60*time.Second)
	cont()
	want, _ := query(env.direct, faultQ)
	if r.err != nil || strings.Join(flat(r.rows), "|") != strings.Join(flat(want.rows), "|") {
		t.Fatalf("after kill -9 of the worker process: err %v\nshoal  %v\ndirect %v", r.err, r.rows, want.rows)
	}
	if err := <-exited; err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("worker process: %v, want killed", err)
	}
	exited <- nil // for the cleanup
	row := waitReplica(t, db, 0, 30*time.Second, "unhealthy", unhealthy)
	if !strings.Contains(row.lastErr.String, "unreachable") {
		t.Errorf("killed worker process: %+v", row)
	}
	sameAnswer(t, db, faultQ)
	sharedHealthy(t)
}
