//go:build race

package e2e

// raceEnabled: the race detector's shadow memory grows with every
// goroutine and allocation, so RSS bounds do not hold under it.
const raceEnabled = true

// raceShare: under the race detector (5–10× slower) the long differential
// sweeps — the function matrix, the generated queries and those over pins,
// the live pins' WHERE hunt, the type matrix, TestTPCH's statements over
// lineitem and orders, the pin churn, the soak — run one case in raceShare (every class still reaches the detector); scripts/test.sh
// runs them whole without it in a stage of their own, so every case still
// runs in CI.
const raceShare = 4
