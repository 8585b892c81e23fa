package schedule

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/shoaldb/shoal/observe"
)

// progress counts the n fragments of a distributed execution in its
// statement's activity and returns sink wrapped to count each fragment as
// done, with its rows and bytes, once its output is merged. Without an
// activity in ctx (a statement not started by startStatement) sink is
// returned as is.
func progress(ctx context.Context, n int, sink Sink) Sink {
	act, ok := observe.ActivityFrom(ctx)
	if !ok {
		return sink
	}
	act.Total.Add(int64(n))
	return func(rank int, batches []arrow.RecordBatch) error {
		var rows, bytes int64
		for _, b := range batches {
			rows += b.NumRows()
			bytes += recordBytes(b)
		}
		if err := sink(rank, batches); err != nil {
			return err
		}
		act.Rows.Add(rows)
		act.Bytes.Add(bytes)
		act.Done.Add(1)
		return nil
	}
}
