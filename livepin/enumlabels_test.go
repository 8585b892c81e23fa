package livepin

import (
	"slices"
	"testing"
)

func TestEnumLabels(t *testing.T) {
	for in, want := range map[string][]string{
		"enum('a','B','it''s','Ä ü','10','')": {"a", "B", "it's", "Ä ü", "10", ""},
		"set('ö','p q')":                      {"ö", "p q"},
	} {
		got, ok := enumLabels(in)
		if !ok || !slices.Equal(got, want) {
			t.Errorf("%s: %q %v, want %q", in, got, ok, want)
		}
	}
	for _, bad := range []string{"int(11)", "enum('a", "enum('a'b)", `enum('a\\b')`} {
		if _, ok := enumLabels(bad); ok {
			t.Errorf("%s: read", bad)
		}
	}
}
