package pinstore

import (
	"maps"
	"testing"
)

func TestPinOptions(t *testing.T) {
	for _, c := range []struct {
		in   string
		want map[string]string
		bad  bool
	}{
		{"", map[string]string{}, false},
		{"'refresh' = 'live'", map[string]string{"refresh": "live"}, false},
		{" 'Refresh'='live' , 'x' = 'it''s' ", map[string]string{"refresh": "live", "x": "it's"}, false},
		{"refresh = live", map[string]string{"refresh": "live"}, false},
		{"'refresh' 'live'", nil, true},
		{"'a' = 'b' 'c' = 'd'", nil, true},
	} {
		got, err := PinOptions(c.in)
		if (err != nil) != c.bad || (!c.bad && !maps.Equal(got, c.want)) {
			t.Errorf("PinOptions(%q) = %v, %v", c.in, got, err)
		}
	}
	if live, err := liveOption(map[string]string{"refresh": "LIVE"}); !live || err != nil {
		t.Errorf("'refresh' = 'LIVE': %v %v", live, err)
	}
	if _, err := liveOption(map[string]string{"refresh": "hourly"}); err == nil {
		t.Error("'refresh' = 'hourly' accepted")
	}
	if _, err := liveOption(map[string]string{"ttl": "1"}); err == nil {
		t.Error("an unknown option accepted")
	}
}
