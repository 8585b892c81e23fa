package evalexpr

import (
	"crypto/sha256"
	"encoding/binary"
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"

	querypb "vitess.io/vitess/go/vt/proto/query"
)

// Compiled expressions are remembered per environment. A dashboard sends
// one statement shape with new literals again and again, and each text is
// planned anew: its final-stage expressions (select items over merged
// aggregates, HAVING, ORDER BY) and the pinned engine's select items and
// grouping keys are the same text over the same columns every time, and
// compiling one parses it with vitess' parser, translates it and probes it
// over sample rows — ~5% of the coordinator's CPU under 300 varied
// dashboard users (docs/benchmarks.md). Compile is a pure function of the
// source text, the layout (names, and each column's type, collation,
// nullability, length and scale: all it reads of a field) and the
// environment, and an *Expr is never changed once compiled, so one value
// serves every plan that asks for the same pair.
//
// The memo holds at most memoEntries expressions in two generations per
// shard: a shard whose current map fills becomes the previous one and the
// oldest generation is dropped, and a hit in the previous generation moves
// the entry forward. Expressions that carry a statement's literals (a
// WHERE conjunct the vectorized path cannot run) miss and age out without
// growing memory; each entry weighs a few KiB (the parsed and translated
// tree), so the bound keeps the memo to a few MiB.
const (
	memoShards  = 16
	memoEntries = 4096
)

type memoKey struct {
	layout [sha256.Size]byte
	src    string
}

type memoVal struct {
	x *Expr
}

type memoShard struct {
	mu       sync.Mutex
	cur, old map[memoKey]memoVal
}

type memo struct {
	shards       [memoShards]memoShard
	hits, misses atomic.Int64
	// gen counts clears: a compile that began before one is not kept.
	gen atomic.Uint64
}

func (m *memo) shard(k memoKey) *memoShard {
	h := maphash.Comparable(memoSeed, k)
	return &m.shards[h%memoShards]
}

var memoSeed = maphash.MakeSeed()

func (m *memo) get(k memoKey) (memoVal, bool) {
	if k.src == "" {
		return memoVal{}, false
	}
	s := m.shard(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.cur[k]; ok {
		m.hits.Add(1)
		return v, true
	}
	if v, ok := s.old[k]; ok {
		delete(s.old, k)
		s.putLocked(k, v)
		m.hits.Add(1)
		return v, true
	}
	m.misses.Add(1)
	return memoVal{}, false
}

// clear forgets every expression (the environment changed: SetCaseMaps).
func (m *memo) clear() {
	m.gen.Add(1)
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		s.cur, s.old = nil, nil
		s.mu.Unlock()
	}
}

func (m *memo) put(k memoKey, v memoVal, gen uint64) {
	if k.src == "" {
		return
	}
	s := m.shard(k)
	s.mu.Lock()
	if m.gen.Load() == gen {
		s.putLocked(k, v)
	}
	s.mu.Unlock()
}

func (s *memoShard) putLocked(k memoKey, v memoVal) {
	if s.cur == nil || len(s.cur) >= memoEntries/memoShards/2 {
		s.old, s.cur = s.cur, make(map[memoKey]memoVal)
	}
	s.cur[k] = v
}

// MemoStats returns how many Compile calls the memo answered and how many
// it did not.
func (e *Env) MemoStats() (hits, misses int64) {
	return e.memo.hits.Load(), e.memo.misses.Load()
}

// layoutKey digests what Compile reads of a layout: its width and, in
// order, each column's name and the field attributes vitess types it by
// (evalengine.NewTypeFromField) and probe samples it by.
func layoutKey(names []string, fields []*querypb.Field) [sha256.Size]byte {
	var b []byte
	b = binary.AppendUvarint(b, uint64(len(names)))
	for i, n := range names {
		b = append(b, strings.ToLower(n)...)
		b = append(b, 0)
		if i < len(fields) && fields[i] != nil {
			f := fields[i]
			b = append(b, 1)
			b = binary.AppendUvarint(b, uint64(f.Type))
			b = binary.AppendUvarint(b, uint64(f.Charset))
			b = binary.AppendUvarint(b, uint64(f.Flags))
			b = binary.AppendUvarint(b, uint64(f.ColumnLength))
			b = binary.AppendUvarint(b, uint64(f.Decimals))
		} else {
			b = append(b, 0)
		}
	}
	return sha256.Sum256(b)
}
