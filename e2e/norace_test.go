//go:build !race

package e2e

const raceEnabled = false

// raceShare: see race_test.go; without the race detector every case runs.
const raceShare = 1
