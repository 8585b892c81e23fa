package measure

import "testing"

func TestFmtRatio(t *testing.T) {
	for v, want := range map[float64]string{2.3249: "2.32x", 0.5: "0.50x", 3922.31: "3922.31x", 0.00064321: "0.00064x", 0.099: "0.099x"} {
		if got := FmtRatio(v); got != want {
			t.Errorf("FmtRatio(%v) = %s, want %s", v, got, want)
		}
	}
}
