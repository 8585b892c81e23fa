package engine

import "context"

// binaryRowsKey marks a statement whose rows go out in the binary
// protocol (COM_STMT_EXECUTE).
type binaryRowsKey struct{}

// WithBinaryRows marks ctx's statement as answered in the binary protocol:
// a DOUBLE or FLOAT with fixed decimals (STDDEV, VARIANCE, DOUBLE(M,D))
// is then sent at full precision, as MySQL does there (the text protocol
// writes it with the column's decimals).
func WithBinaryRows(ctx context.Context) context.Context {
	return context.WithValue(ctx, binaryRowsKey{}, true)
}

func binaryRows(ctx context.Context) bool { b, _ := ctx.Value(binaryRowsKey{}).(bool); return b }
