//go:build !unix

package replica

import "net"

// connCheck has no cheap peer-close test here; the ping after idleCheck
// covers pooled connections.
func connCheck(net.Conn) error { return nil }
