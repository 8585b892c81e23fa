package worker

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/ticket"
)

// TestClusterSecret: with cluster_secret set, every RPC (status action,
// action listing, fragments) without the secret or with a wrong one is
// refused with Unauthenticated before the worker looks at it; the right
// secret is served. Remove the interceptors in New and this fails.
func TestClusterSecret(t *testing.T) {
	ts := startServer(t, func(c *config.Worker) { c.ClusterSecret = "correct horse" })
	addr := ts.client.Addr()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	dial := func(opts ...DialOption) *Client {
		c, err := Dial(ctx, addr, opts...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	refused := func(name string, err error) {
		t.Helper()
		if status.Code(err) != codes.Unauthenticated {
			t.Errorf("%s: got %v, want Unauthenticated", name, err)
		}
	}
	for name, c := range map[string]*Client{
		"no secret":    ts.client, // startServer's client sends none
		"wrong secret": dial(WithSecret("correct horsf")),
		"empty secret": dial(WithSecret("")),
	} {
		_, err := c.Status(ctx)
		refused(name+": status", err)
		la, err := c.fc.ListActions(ctx, &flight.Empty{})
		if err == nil {
			_, err = la.Recv()
		}
		refused(name+": list actions", err)
		_, err = c.Fragment(ctx, tk("SELECT 1"), memory.DefaultAllocator)
		refused(name+": fragment", err)
		// A malformed ticket is not even decoded: no InvalidArgument leak.
		g, err := c.fc.DoGet(ctx, &flight.Ticket{Ticket: []byte("{garbage")})
		if err == nil {
			_, err = g.Recv()
		}
		refused(name+": bad ticket", err)
	}

	good := dial(WithSecret("correct horse"))
	la, err := good.fc.ListActions(ctx, &flight.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	if a, err := la.Recv(); err != nil || a.GetType() != ActionStatus {
		t.Fatalf("with the secret: %v %v", a, err)
	}
	rd, err := good.Fragment(ctx, ticket.Ticket{SQL: "SELECT 1 AS one"}, ts.mem)
	if err != nil {
		t.Fatalf("fragment with the secret: %v", err)
	}
	for rd.Next() {
	}
	if err := rd.Err(); err != nil {
		t.Fatalf("fragment with the secret: %v", err)
	}
	rd.Release()
}

// TestLoopbackOnlyWithoutSecret: a worker without a cluster secret serves
// loopback callers and refuses any other peer.
func TestLoopbackOnlyWithoutSecret(t *testing.T) {
	a := authorizer{}
	for _, c := range []struct {
		addr net.Addr
		ok   bool
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 5000}, true},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 5000}, true},
		{&net.TCPAddr{IP: net.IPv4(10, 1, 2, 3), Port: 5000}, false},
		{&net.TCPAddr{IP: net.IPv4(192, 168, 0, 7), Port: 5000}, false},
	} {
		ctx := peer.NewContext(context.Background(), &peer.Peer{Addr: c.addr})
		err := a.check(ctx)
		if (err == nil) != c.ok || err != nil && status.Code(err) != codes.Unauthenticated {
			t.Errorf("peer %s: %v, want allowed=%v", c.addr, err, c.ok)
		}
	}
	if err := a.check(context.Background()); status.Code(err) != codes.Unauthenticated {
		t.Errorf("no peer: %v", err)
	}
	// With a secret the peer's address does not matter, the secret does.
	s := authorizer{secret: []byte("x")}
	ctx := peer.NewContext(context.Background(), &peer.Peer{Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}})
	if err := s.check(ctx); status.Code(err) != codes.Unauthenticated {
		t.Errorf("loopback without the secret: %v", err)
	}
}

// TestHostileTicketSQL: SQL on which the TiDB parser itself panics (an
// over-long numeric literal, found by FuzzPlan) is refused with an error
// and the worker keeps serving. Before sqlparse.Parse recovered, the panic
// in the gRPC handler killed the whole worker process.
func TestHostileTicketSQL(t *testing.T) {
	ts := startServer(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, _, err := fetch(ctx, ts, tk("SELECT 0000000000000000000000000000000000000000000000000000000000000020000000000000000000"))
	if err == nil {
		t.Fatal("hostile SQL accepted")
	}
	_, recs, err := fetch(ctx, ts, tk("SELECT 1 AS one"))
	if err != nil {
		t.Fatalf("worker after hostile SQL: %v", err)
	}
	releaseAll(recs)
}
