// Package exprmemo remembers compiled expressions per environment
// (evalexpr's Compile), keyed by the layout's digest and the source text.
//
// A dashboard sends
// one statement shape with new literals again and again, and each text is
// planned anew: its final-stage expressions (select items over merged
// aggregates, HAVING, ORDER BY) and the pinned engine's select items and
// grouping keys are the same text over the same columns every time, and
// compiling one parses it with vitess' parser, translates it and probes it
// over sample rows — ~5% of the coordinator's CPU under 300 varied
// dashboard users (docs/benchmarks.md). Compile is a pure function of the
// source text, the layout (names, and each column's type, collation,
// nullability, length and scale: all it reads of a field) and the
// environment, and an *Expr is not changed once compiled (vitess' GREATEST
// and LEAST, which write to theirs, are serialized), so one value
// serves every plan that asks for the same pair.
//
// The memo holds at most Entries expressions in two generations per
// shard: a shard whose current map fills becomes the previous one and the
// oldest generation is dropped, and a hit in the previous generation moves
// the entry forward. Expressions that carry a statement's literals (a
// WHERE conjunct the vectorized path cannot run) miss and age out without
// growing memory; each entry weighs a few KiB (the parsed and translated
// tree), so the bound keeps the memo to a few MiB.
package exprmemo

import (
	"crypto/sha256"
	"encoding/binary"
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"

	querypb "vitess.io/vitess/go/vt/proto/query"
)

// Bounds: shards and the entries all of them hold together.
const (
	Shards  = 16
	Entries = 4096
)

// Key is a compiled expression's: its layout's digest (LayoutKey) and
// its source text.
type Key struct {
	Layout [sha256.Size]byte
	Src    string
}

type shard[V any] struct {
	mu       sync.Mutex
	cur, old map[Key]V
}

// Cache is the memo of values V. The zero value is ready; it is safe for
// concurrent use.
type Cache[V any] struct {
	shards       [Shards]shard[V]
	hits, misses atomic.Int64
	// gen counts clears: a compile that began before one is not kept.
	gen atomic.Uint64
}

var seed = maphash.MakeSeed()

func (m *Cache[V]) shard(k Key) *shard[V] {
	return &m.shards[maphash.Comparable(seed, k)%Shards]
}

// Get returns k's value; a key without source text is never held.
func (m *Cache[V]) Get(k Key) (V, bool) {
	var zero V
	if k.Src == "" {
		return zero, false
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
	return zero, false
}

// Gen is the clear count to pass to Put for a value computed from now.
func (m *Cache[V]) Gen() uint64 { return m.gen.Load() }

// Clear forgets every value (the environment changed).
func (m *Cache[V]) Clear() {
	m.gen.Add(1)
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		s.cur, s.old = nil, nil
		s.mu.Unlock()
	}
}

// Put keeps v for k unless a Clear came after gen (Gen when its
// computation began).
func (m *Cache[V]) Put(k Key, v V, gen uint64) {
	if k.Src == "" {
		return
	}
	s := m.shard(k)
	s.mu.Lock()
	if m.gen.Load() == gen {
		s.putLocked(k, v)
	}
	s.mu.Unlock()
}

func (s *shard[V]) putLocked(k Key, v V) {
	if s.cur == nil || len(s.cur) >= Entries/Shards/2 {
		s.old, s.cur = s.cur, make(map[Key]V)
	}
	s.cur[k] = v
}

// Stats returns how many Gets found a value and how many did not.
func (m *Cache[V]) Stats() (hits, misses int64) { return m.hits.Load(), m.misses.Load() }

// Held is how many values the shards hold.
func (m *Cache[V]) Held() int {
	n := 0
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		n += len(s.cur) + len(s.old)
		s.mu.Unlock()
	}
	return n
}

// LayoutKey digests what Compile reads of a layout: its width and, in
// order, each column's name and the field attributes vitess types it by
// (evalengine.NewTypeFromField) and probe samples it by.
func LayoutKey(names []string, fields []*querypb.Field) [sha256.Size]byte {
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
