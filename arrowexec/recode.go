package arrowexec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"vitess.io/vitess/go/mysql/collations/charset"
)

// Recode converts the text columns c of rec with to[c] != nil from utf8mb4
// (how workers read every character column) to the charset to[c], the
// column's own: a latin1 column's values come back to latin1 bytes, so the
// merge groups, compares and evaluates them as MySQL does in that charset.
// Arrow strings are not required to be UTF-8 here: every consumer reads
// them as bytes under the column's collation. A character the charset
// cannot hold becomes '?', as MySQL converts it.
//
// The result is a new batch the caller must Release; rec is not released.
// Columns that need no conversion are shared with rec (retained).
func Recode(mem memory.Allocator, rec arrow.RecordBatch, to []charset.Charset) arrow.RecordBatch {
	cols := make([]arrow.Array, rec.NumCols())
	var built []arrow.Array
	for c := range cols {
		arr := rec.Column(c)
		var cs charset.Charset
		if c < len(to) {
			cs = to[c]
		}
		src, isString := arr.(*array.String)
		if cs == nil || !isString {
			cols[c] = arr
			continue
		}
		b := array.NewStringBuilder(mem)
		b.Reserve(src.Len())
		b.ReserveData(len(src.ValueBytes())) // latin1 is never longer than UTF-8
		var buf []byte
		for i := 0; i < src.Len(); i++ {
			if src.IsNull(i) {
				b.AppendNull()
				continue
			}
			buf = encode(buf[:0], cs, src.Value(i))
			b.BinaryBuilder.Append(buf)
		}
		out := b.NewArray()
		b.Release()
		cols[c] = out
		built = append(built, out)
	}
	res := array.NewRecordBatch(rec.Schema(), cols, rec.NumRows())
	for _, a := range built {
		a.Release() // the batch holds its own reference
	}
	return res
}

// encode appends the UTF-8 text s encoded in cs to dst; a character cs
// cannot hold, or a byte that is not UTF-8, becomes '?', as MySQL
// converts it.
func encode(dst []byte, cs charset.Charset, s string) []byte {
	var tmp [4]byte
	for _, r := range s { // invalid UTF-8 decodes as U+FFFD, which latin1 lacks
		n := cs.EncodeRune(tmp[:], r)
		if n < 0 {
			dst = append(dst, '?')
			continue
		}
		dst = append(dst, tmp[:n]...)
	}
	return dst
}
