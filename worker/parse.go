package worker

import (
	"errors"
	"math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/shoaldb/shoal/pushdown"
)

// Parsers for the text MySQL sends, straight from the driver's buffer. None
// of them allocates: they run once per value on the hot path.

var (
	errSyntax   = errors.New("malformed value")
	errRange    = errors.New("value out of range")
	errZeroDate = errors.New("zero date")
)

func parseInt(b []byte) (int64, error) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	u, err := parseUint(b)
	if err != nil {
		return 0, err
	}
	if neg {
		if u > 1<<63 {
			return 0, errRange
		}
		return -int64(u), nil
	}
	if u > 1<<63-1 {
		return 0, errRange
	}
	return int64(u), nil
}

func parseUint(b []byte) (uint64, error) {
	if len(b) == 0 {
		return 0, errSyntax
	}
	var u uint64
	for _, c := range b {
		d := uint64(c - '0')
		if d > 9 {
			return 0, errSyntax
		}
		hi, lo := bits.Mul64(u, 10)
		lo, carry := bits.Add64(lo, d, 0)
		if hi != 0 || carry != 0 {
			return 0, errRange
		}
		u = lo
	}
	return u, nil
}

var pow10 = [20]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// mulAdd sets w = w*m + a (w little-endian words) and reports overflow.
func mulAdd(w []uint64, m, a uint64) bool {
	carry := a
	for i := range w {
		hi, lo := bits.Mul64(w[i], m)
		lo, c := bits.Add64(lo, carry, 0)
		w[i] = lo
		carry = hi + c
	}
	return carry != 0
}

func negate(w []uint64) {
	var c uint64 = 1
	for i := range w {
		w[i], c = bits.Add64(^w[i], 0, c)
	}
}

// parseDecimalWords parses MySQL decimal text ("-123.45") into w as a two's
// complement integer scaled by 10^scale. maxDigits bounds the digits that
// fit in w with room for the sign.
func parseDecimalWords(b []byte, scale int32, w []uint64, maxDigits int) error {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 {
		return errSyntax
	}
	var (
		chunk    uint64
		chunkN   int
		digits   int
		frac     int32
		seenDot  bool
		anyDigit bool
	)
	for _, c := range b {
		if c == '.' {
			if seenDot {
				return errSyntax
			}
			seenDot = true
			continue
		}
		d := uint64(c - '0')
		if d > 9 {
			return errSyntax
		}
		anyDigit = true
		if seenDot {
			frac++
			if frac > scale {
				// More fraction than the column declares: MySQL never sends
				// this; refuse rather than round.
				if d != 0 {
					return errRange
				}
				continue
			}
		}
		if digits == 0 && d == 0 {
			continue // leading zeros add nothing; frac already counted
		}
		digits++
		if digits > maxDigits {
			return errRange
		}
		chunk = chunk*10 + d
		chunkN++
		if chunkN == 19 {
			if mulAdd(w, pow10[chunkN], chunk) {
				return errRange
			}
			chunk, chunkN = 0, 0
		}
	}
	if !anyDigit {
		return errSyntax
	}
	if chunkN > 0 && mulAdd(w, pow10[chunkN], chunk) {
		return errRange
	}
	if frac > scale {
		frac = scale
	}
	for pad := int(scale - frac); pad > 0; {
		k := min(pad, 19)
		if mulAdd(w, pow10[k], 0) {
			return errRange
		}
		pad -= k
	}
	if w[len(w)-1]>>63 != 0 {
		return errRange
	}
	if neg {
		negate(w)
	}
	return nil
}

func parseDecimal128(b []byte, scale int32) (decimal128.Num, error) {
	var w [2]uint64
	if err := parseDecimalWords(b, scale, w[:], 38); err != nil {
		return decimal128.Num{}, err
	}
	return decimal128.New(int64(w[1]), w[0]), nil
}

func parseDecimal256(b []byte, scale int32) (decimal256.Num, error) {
	var w [4]uint64
	if err := parseDecimalWords(b, scale, w[:], 76); err != nil {
		return decimal256.Num{}, err
	}
	return decimal256.New(w[3], w[2], w[1], w[0]), nil
}

// digitsN reads a fixed-width unsigned decimal field.
func digitsN(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		d := int(c - '0')
		if d < 0 || d > 9 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

var daysIn = [13]int{0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

// parseDate parses "YYYY-MM-DD" into days since the epoch. Dates with a zero
// month or day (MySQL's '0000-00-00' and friends) return errZeroDate.
func parseDate(b []byte) (int32, error) {
	if len(b) != 10 || b[4] != '-' || b[7] != '-' {
		return 0, errSyntax
	}
	y, ok1 := digitsN(b[0:4])
	m, ok2 := digitsN(b[5:7])
	d, ok3 := digitsN(b[8:10])
	if !ok1 || !ok2 || !ok3 {
		return 0, errSyntax
	}
	if m == 0 || d == 0 {
		return 0, errZeroDate
	}
	if m > 12 || d > daysIn[m] {
		return 0, errRange
	}
	return int32(pushdown.DaysFromCivil(y, m, d)), nil
}

// parseDatetime parses "YYYY-MM-DD HH:MM:SS[.ffffff]" into microseconds
// since the epoch, wall clock, no time zone.
func parseDatetime(b []byte) (int64, error) {
	if len(b) < 19 || b[10] != ' ' || b[13] != ':' || b[16] != ':' {
		if len(b) == 10 {
			days, err := parseDate(b)
			return int64(days) * 86400e6, err
		}
		return 0, errSyntax
	}
	days, err := parseDate(b[:10])
	if err != nil {
		return 0, err
	}
	h, ok1 := digitsN(b[11:13])
	mi, ok2 := digitsN(b[14:16])
	s, ok3 := digitsN(b[17:19])
	if !ok1 || !ok2 || !ok3 || h > 23 || mi > 59 || s > 59 {
		return 0, errSyntax
	}
	var us int
	if len(b) > 19 {
		f := b[20:]
		if b[19] != '.' || len(f) == 0 || len(f) > 6 {
			return 0, errSyntax
		}
		v, ok := digitsN(f)
		if !ok {
			return 0, errSyntax
		}
		us = v * int(pow10[6-len(f)])
	}
	sec := int64(days)*86400 + int64(h*3600+mi*60+s)
	return sec*1e6 + int64(us), nil
}

// bytesString views b as a string without copying, for parsers that do not
// keep their argument (strconv copies it into any error it returns).
func bytesString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}
