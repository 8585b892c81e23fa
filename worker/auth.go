package worker

import (
	"context"
	"crypto/subtle"
	"net"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

// SecretHeader is the gRPC metadata key carrying the cluster secret.
const SecretHeader = "x-shoal-cluster-secret"

// authorizer checks every RPC before the worker does anything with it:
//
//   - with a cluster secret configured, the call must carry it in the
//     SecretHeader metadata (compared in constant time);
//   - without one, only loopback peers are served, so a worker that was
//     given a public address by mistake is not an open door.
//
// Refusals are codes.Unauthenticated and say what to configure, never what
// the secret is.
type authorizer struct{ secret []byte }

func (a authorizer) check(ctx context.Context) error {
	if len(a.secret) == 0 {
		p, ok := peer.FromContext(ctx)
		if !ok || !loopback(p.Addr) {
			return status.Error(codes.Unauthenticated, "worker: no cluster_secret is configured, so only loopback callers are served; set the same cluster_secret (or SHOAL_CLUSTER_SECRET) on the worker and the coordinator")
		}
		return nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	got := md.Get(SecretHeader)
	if len(got) != 1 || subtle.ConstantTimeCompare([]byte(got[0]), a.secret) != 1 {
		return status.Error(codes.Unauthenticated, "worker: missing or wrong cluster secret; the coordinator's cluster_secret must equal the worker's")
	}
	return nil
}

func loopback(a net.Addr) bool {
	switch a := a.(type) {
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UnixAddr:
		return true
	case nil:
		return false
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return false
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

func (a authorizer) unary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	if err := a.check(ctx); err != nil {
		return nil, err
	}
	return h(ctx, req)
}

func (a authorizer) stream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	if err := a.check(ss.Context()); err != nil {
		return err
	}
	return h(srv, ss)
}

// secretCreds sends the cluster secret with every call.
type secretCreds struct{ secret string }

func (c secretCreds) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{SecretHeader: c.secret}, nil
}

// RequireTransportSecurity is false: the secret authenticates the caller on
// a trusted network; use WithTransportCredentials (TLS) to also hide it on
// the wire.
func (secretCreds) RequireTransportSecurity() bool { return false }

var _ credentials.PerRPCCredentials = secretCreds{}

// WithSecret makes the client present the cluster secret on every call.
// An empty secret sends nothing (the worker then serves loopback callers
// only).
func WithSecret(secret string) DialOption {
	return func(d *dialConfig) {
		if secret != "" {
			d.grpc = append(d.grpc, grpc.WithPerRPCCredentials(secretCreds{secret: secret}))
		}
	}
}
