package evalexpr

// Compiled expressions are remembered per environment (package
// exprmemo).

// MemoStats returns how many Compile calls the memo answered and how many
// it did not.
func (e *Env) MemoStats() (hits, misses int64) {
	return e.memo.Stats()
}
