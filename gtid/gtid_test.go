package gtid

import "testing"

// TestMinPosition: the replica-min floor is what every replica has
// applied. Take the highest sequence instead of the lowest (or keep a
// domain one replica lacks) and a fragment would wait for a position its
// replica never reached: a case fails.
func TestMinPosition(t *testing.T) {
	const (
		a = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
		b = "4d22fa47-71ca-11e1-9e33-c80aa9429562"
	)
	for _, c := range []struct {
		name    string
		mariadb bool
		in      []string
		want    string
	}{
		{"none", true, nil, ""},
		{"one", true, []string{"0-1-42"}, "0-1-42"},
		{"lowest sequence", true, []string{"0-1-42", "0-1-40", "0-1-50"}, "0-1-40"},
		{"per domain", true, []string{"0-1-42,1-2-7", "0-1-45,1-2-3"}, "0-1-42,1-2-3"},
		{"domain missing on one", true, []string{"0-1-42,1-2-7", "0-1-45"}, "0-1-42"},
		{"empty position", true, []string{"0-1-42", ""}, ""},
		{"mysql intersection", false, []string{a + ":1-100," + b + ":1-5", a + ":1-90"}, a + ":1-90"},
		{"mysql gaps", false, []string{a + ":1-10:20-30", a + ":1-25"}, a + ":1-10:20-25"},
	} {
		got, err := MinPosition(c.mariadb, c.in)
		if err != nil || got != c.want {
			t.Errorf("%s: MinPosition(%q) = %q, %v; want %q", c.name, c.in, got, err, c.want)
		}
	}
	if _, err := MinPosition(true, []string{"0-1-x"}); err == nil {
		t.Error("malformed position accepted")
	}
}
