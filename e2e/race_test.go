//go:build race

package e2e

// raceEnabled: the race detector's shadow memory grows with every
// goroutine and allocation, so RSS bounds do not hold under it.
const raceEnabled = true
