package evalexpr

import (
	"errors"
	"testing"
)

// TestUncoded: the reason EXPLAIN shows for an expression vitess cannot
// translate reads as a sentence, without the "Code: UNIMPLEMENTED" line
// vitess' errors may print first (the coordinator's did), and the error
// still unwraps to vitess' own.
func TestUncoded(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Code: UNIMPLEMENTED\nexpr cannot be translated, not supported: timestampdiff(day, __a0, __a1)\n", "expr cannot be translated, not supported: timestampdiff(day, __a0, __a1)"},
		{"expr cannot be translated", "expr cannot be translated"},
		{"Code: INTERNAL", "Code: INTERNAL"},
	} {
		inner := errors.New(c.in)
		u := uncoded{inner}
		if got := u.Error(); got != c.want {
			t.Errorf("uncoded(%q) = %q, want %q", c.in, got, c.want)
		}
		if !errors.Is(u, inner) {
			t.Errorf("uncoded(%q) does not unwrap", c.in)
		}
	}
}
