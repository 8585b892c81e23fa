package arrowexec

import (
	"bytes"
	"fmt"
	"strings"

	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/mysql/collations/colldata"
)

// collator compares and keys strings the way MySQL does under one collation.
//
// vitess' colldata collations compare strings as they are (VARCHAR weight
// strings without padding), so 'a' and 'a ' differ under them. MySQL's PAD
// SPACE collations (every collation except binary, the *_0900_* ones and
// MariaDB's *_nopad_* ones) compare as if the shorter string were padded with
// spaces. The collator restores that: equality and grouping keys work on the
// string with trailing spaces removed, and ordering compares weight strings
// padded with the weight of a space in the one case where padding changes
// the answer (one trimmed string is a prefix of the other, e.g. 'a' versus
// 'a\t').
type collator struct {
	coll     colldata.Collation // nil: compare bytes
	padSpace bool               // trailing spaces are insignificant
	spaceW   []byte             // weight string of one space, for PAD SPACE
}

// newCollator resolves id. id 0 and the binary collation compare bytes.
func newCollator(env *collations.Environment, id collations.ID) (collator, error) {
	if id == 0 || id == collations.CollationBinaryID {
		return collator{}, nil
	}
	coll := colldata.Lookup(id)
	if coll == nil {
		return collator{}, fmt.Errorf("arrowexec: collation %d is not supported", id)
	}
	if env == nil {
		env = collations.MySQL8()
	}
	name := env.LookupName(id)
	if name == "" {
		name = coll.Name()
	}
	c := collator{coll: coll}
	switch {
	case strings.Contains(name, "_0900_"), strings.Contains(name, "nopad"):
		// NO PAD collations.
	case strings.HasPrefix(name, "ucs2"), strings.HasPrefix(name, "utf16"), strings.HasPrefix(name, "utf32"):
		// A space is not the byte 0x20 in these charsets; trailing
		// spaces stay significant here (a documented gap).
	default:
		c.padSpace = true
		c.spaceW = coll.WeightString(nil, []byte(" "), 0)
	}
	return c, nil
}

func trimSpaces(b []byte) []byte {
	n := len(b)
	for n > 0 && b[n-1] == ' ' {
		n--
	}
	return b[:n]
}

// appendKey appends a byte string that is equal for two strings exactly when
// the collation calls them equal. It is not length-prefixed.
func (c *collator) appendKey(dst, s []byte) []byte {
	if c.coll == nil {
		return append(dst, s...)
	}
	if c.padSpace {
		s = trimSpaces(s)
	}
	return c.coll.WeightString(dst, s, 0)
}

// compare orders a and b under the collation: -1, 0 or 1.
func (c *collator) compare(a, b []byte) int {
	if c.coll == nil {
		return bytes.Compare(a, b)
	}
	if !c.padSpace {
		return sign(c.coll.Collate(a, b, false))
	}
	a, b = trimSpaces(a), trimSpaces(b)
	r := c.coll.Collate(a, b, false)
	switch {
	case r == 0:
		return 0
	case r < 0 && c.coll.Collate(b, a, true) != 0:
		return -1 // a is not a prefix of b: padding cannot matter
	case r > 0 && c.coll.Collate(a, b, true) != 0:
		return 1
	}
	// The shorter string is a prefix of the longer one: compare as MySQL
	// does, as if the shorter were padded with spaces.
	return c.compareKeys(c.appendKey(nil, a), c.appendKey(nil, b))
}

// compareKeys orders two keys made by appendKey as compare orders their
// strings: under PAD SPACE the shorter key is extended with the weight of a
// space, so 'a' sorts after 'a\t' as in MySQL.
func (c *collator) compareKeys(a, b []byte) int {
	n := min(len(a), len(b))
	if r := bytes.Compare(a[:n], b[:n]); r != 0 || len(a) == len(b) {
		return r
	}
	if !c.padSpace || len(c.spaceW) == 0 {
		return cmpInt(len(a), len(b))
	}
	r := 1
	rest := a[n:]
	if len(b) > len(a) {
		r, rest = -1, b[n:]
	}
	// rest is the longer key's tail; compare it with spaces.
	for i, w := range rest {
		if s := c.spaceW[i%len(c.spaceW)]; w != s {
			if w > s {
				return r
			}
			return -r
		}
	}
	return 0
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func sign(r int) int {
	switch {
	case r < 0:
		return -1
	case r > 0:
		return 1
	}
	return 0
}
