package replicaset

import (
	"fmt"
	"slices"
	"testing"
)

// TestSetLogReplaysFinalState: the replay leaves the session as the
// client's SETs did. The old log replaced a repeated statement in place,
// so SET x = 1, SET x = DEFAULT, SET x = 2, SET x = DEFAULT replayed x = 2;
// and it dropped every SET past 256, so a pool's SET @request = '…' per
// checkout replayed a stale value.
func TestSetLogReplaysFinalState(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []string
		want []string
	}{
		{"a repeat moves to the end", []string{"SET SESSION x = 1", "SET SESSION x = DEFAULT", "SET SESSION x = 2", "SET SESSION x = DEFAULT"},
			[]string{"SET SESSION x = DEFAULT"}},
		{"other variables stay", []string{"SET SESSION x = 1", "SET @a = 'p'", "SET SESSION x = 2"},
			[]string{"SET @a = 'p'", "SET SESSION x = 2"}},
		{"a wider earlier SET stays", []string{"SET SESSION x = 1, y = 2", "SET SESSION x = 3"},
			[]string{"SET SESSION x = 1, y = 2", "SET SESSION x = 3"}},
		{"a relative SET keeps what it may read", []string{"SET @a = 1", "SET @b = @a + 1", "SET @a = 5", "SET @a = -6"},
			[]string{"SET @a = 1", "SET @b = @a + 1", "SET @a = -6"}},
		{"relative SETs repeat", []string{"SET @n = @n + 1", "SET @n = @n + 1"},
			[]string{"SET @n = @n + 1", "SET @n = @n + 1"}},
		{"unparsed text replaces itself only", []string{"SET NAMES cp1251", "SET NAMES utf8mb4", "SET NAMES cp1251"},
			[]string{"SET NAMES utf8mb4", "SET NAMES cp1251"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var l setLog
			for _, s := range c.in {
				l.add(s)
			}
			if got := l.statements(); !slices.Equal(got, c.want) {
				t.Errorf("replay %q, want %q", got, c.want)
			}
		})
	}

	var l setLog
	for i := range 10 * maxSetLog {
		s := fmt.Sprintf("SET @request = 'r%d'", i)
		if err := l.admits(s); err != nil {
			t.Fatalf("SET %d: %v", i, err)
		}
		l.add(s)
	}
	if got := l.statements(); len(got) != 1 || got[0] != fmt.Sprintf("SET @request = 'r%d'", 10*maxSetLog-1) {
		t.Errorf("after %d SETs of one variable: %q", 10*maxSetLog, got)
	}
	for range maxSetLog {
		l.add("SET @n = @n + 1")
	}
	if err := l.admits("SET @n = @n + 1"); err == nil {
		t.Errorf("%d relative SETs: the next one admitted", maxSetLog)
	}
}
