package flightwire

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/sqlerr"
)

// Flight SQL authentication, with the coordinator's accounts (users:).
//
// Every RPC carries an "authorization" header:
//
//	Basic base64(user:password)  on Handshake: the password is checked and
//	      the reply's "authorization" header carries "Bearer <token>" for the
//	      calls that follow (the Flight SQL JDBC driver, ADBC, arrow-go's
//	      AuthenticateBasicToken). On any other call it is checked there and
//	      then (grpcurl, scripts).
//	Bearer <token>  on any call but Handshake.
//
// Anything else is refused with Unauthenticated before a handler runs. A
// wrong password and an unknown account get the same answer, MySQL's 1045
// text, after the same work. Tokens are 32 random bytes held in memory as
// their SHA-256 (a restart asks clients to log in again), valid until
// flightTokenIdle passes without a call using them. The account's plugin
// does not matter here: the password is compared, not a scramble.

const (
	flightTokenIdle = 8 * time.Hour
	maxFlightTokens = 100000
)

// flightAuth checks credentials and issues tokens. Safe for concurrent use.
type flightAuth struct {
	// passwords maps account → SHA-256 of its password.
	passwords map[string][32]byte

	mu     sync.Mutex
	tokens map[[32]byte]*flightToken // SHA-256 of the token → its session
	now    func() time.Time
}

type flightToken struct {
	user     string
	lastUsed time.Time
}

func newFlightAuth(users []config.User) *flightAuth {
	a := &flightAuth{passwords: map[string][32]byte{}, tokens: map[[32]byte]*flightToken{}, now: time.Now}
	for _, u := range users {
		a.passwords[u.Name] = sha256.Sum256([]byte(u.Password))
	}
	return a
}

// flightUserKey carries the authenticated account in an RPC's context.
type flightUserKey struct{}

// flightUser is the account an RPC was authenticated as ("" outside the
// interceptors, which never lets a handler run).
func flightUser(ctx context.Context) string {
	u, _ := ctx.Value(flightUserKey{}).(string)
	return u
}

func errAccessDenied(user, password string) error {
	using := "YES"
	if password == "" {
		using = "NO"
	}
	return flightStatus(codes.Unauthenticated, sqlerr.New(sqlerr.ErrAccessDenied, "28000", "Access denied for user '%s' (using password: %s)", user, using))
}

// password checks user's password in constant time; an unknown account
// costs the same as a known one.
func (a *flightAuth) password(user, password string) error {
	want, ok := a.passwords[user]
	got := sha256.Sum256([]byte(password))
	if subtle.ConstantTimeCompare(got[:], want[:]) != 1 || !ok {
		return errAccessDenied(user, password)
	}
	return nil
}

// issue returns a new token for user.
func (a *flightAuth) issue(user string) (string, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", status.Errorf(codes.Internal, "generating a token: %v", err)
	}
	tok := base64.RawURLEncoding.EncodeToString(raw[:])
	now := a.now()
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.tokens) >= maxFlightTokens {
		for k, t := range a.tokens {
			if now.Sub(t.lastUsed) > flightTokenIdle {
				delete(a.tokens, k)
			}
		}
		if len(a.tokens) >= maxFlightTokens {
			return "", status.Errorf(codes.ResourceExhausted, "too many Flight SQL sessions (%d): reuse tokens rather than logging in for every call", maxFlightTokens)
		}
	}
	a.tokens[sha256.Sum256([]byte(tok))] = &flightToken{user: user, lastUsed: now}
	return tok, nil
}

// bearer returns the account of a token and renews it.
func (a *flightAuth) bearer(tok string) (string, error) {
	key := sha256.Sum256([]byte(tok))
	now := a.now()
	a.mu.Lock()
	defer a.mu.Unlock()
	t, ok := a.tokens[key]
	if ok && now.Sub(t.lastUsed) > flightTokenIdle {
		delete(a.tokens, key)
		ok = false
	}
	if !ok {
		return "", status.Error(codes.Unauthenticated, "invalid or expired token: authenticate again (Handshake with Basic credentials)")
	}
	t.lastUsed = now
	return t.user, nil
}

// authorization reads the authorization header: scheme and credential.
func authorization(ctx context.Context) (scheme, cred string) {
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get("authorization")
	if len(vals) == 0 {
		return "", ""
	}
	scheme, cred, _ = strings.Cut(strings.TrimSpace(vals[0]), " ")
	return scheme, strings.TrimLeft(cred, " ")
}

// basic checks Basic credentials and returns the account.
func (a *flightAuth) basic(cred string) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(cred)
	if err != nil {
		if raw, err = base64.RawStdEncoding.DecodeString(cred); err != nil {
			return "", status.Error(codes.Unauthenticated, "authorization: Basic credentials are not base64")
		}
	}
	user, password, ok := strings.Cut(string(raw), ":")
	if !ok {
		return "", status.Error(codes.Unauthenticated, "authorization: Basic credentials are not user:password")
	}
	if err := a.password(user, password); err != nil {
		return "", err
	}
	return user, nil
}

// authenticate returns the account of a call that is not a Handshake.
func (a *flightAuth) authenticate(ctx context.Context) (string, error) {
	switch scheme, cred := authorization(ctx); {
	case strings.EqualFold(scheme, "Bearer") && cred != "":
		return a.bearer(cred)
	case strings.EqualFold(scheme, "Basic") && cred != "":
		return a.basic(cred)
	}
	return "", status.Error(codes.Unauthenticated, "authenticate first: Handshake with an authorization: Basic header, then send the Bearer token it returns")
}

func (a *flightAuth) unary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	user, err := a.authenticate(ctx)
	if err != nil {
		return nil, err
	}
	return handler(context.WithValue(ctx, flightUserKey{}, user), req)
}

func (a *flightAuth) stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	ctx := ss.Context()
	if strings.HasSuffix(info.FullMethod, "/Handshake") {
		scheme, cred := authorization(ctx)
		if !strings.EqualFold(scheme, "Basic") || cred == "" {
			return status.Error(codes.Unauthenticated, "Handshake needs an authorization: Basic header with an account of the coordinator")
		}
		user, err := a.basic(cred)
		if err != nil {
			return err
		}
		tok, err := a.issue(user)
		if err != nil {
			return err
		}
		// A header, not a trailer: clients that read the token from the
		// response headers (the Java Flight client) see it too.
		if err := ss.SendHeader(metadata.Pairs("authorization", "Bearer "+tok)); err != nil {
			return err
		}
		return handler(srv, ss)
	}
	user, err := a.authenticate(ctx)
	if err != nil {
		return err
	}
	return handler(srv, &userStream{ServerStream: ss, ctx: context.WithValue(ctx, flightUserKey{}, user)})
}

// userStream is a server stream whose context carries the account.
type userStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *userStream) Context() context.Context { return s.ctx }
