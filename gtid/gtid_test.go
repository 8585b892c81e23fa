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

// TestCovers: a live pin's position against a statement's floor. Compare
// whole strings, or the server ids, or drop a domain check, and a case
// fails.
func TestCovers(t *testing.T) {
	const a = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
	for _, c := range []struct {
		name       string
		mariadb    bool
		pos, floor string
		want       bool
	}{
		{"no floor", true, "0-1-5", "", true},
		{"equal", true, "0-1-42", "0-1-42", true},
		{"ahead", true, "0-1-43", "0-1-42", true},
		{"behind", true, "0-1-41", "0-1-42", false},
		{"ahead numerically, not as text", true, "0-1-100", "0-1-99", true},
		{"other server id, same domain", true, "0-2-50", "0-1-42", true},
		{"domain missing", true, "0-1-50", "0-1-42,1-3-1", false},
		{"every domain", true, "0-1-50,1-3-2", "0-1-42,1-3-1", true},
		{"empty position", true, "", "0-1-1", false},
		{"mysql subset", false, a + ":1-100", a + ":1-90", true},
		{"mysql gap", false, a + ":1-10:20-30", a + ":1-25", false},
	} {
		got, err := Covers(c.mariadb, c.pos, c.floor)
		if err != nil || got != c.want {
			t.Errorf("%s: Covers(%q, %q) = %v, %v; want %v", c.name, c.pos, c.floor, got, err, c.want)
		}
	}
	if _, err := Covers(true, "0-1-5", "0-1-x"); err == nil {
		t.Error("malformed floor accepted")
	}
}
