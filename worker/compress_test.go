package worker

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/ticket"
)

// TestIPCCompressionOptions writes one repetitive batch with each
// ipc_compression setting into an IPC stream: the compressed streams must
// be much smaller than the plain one and read back to the same values.
func TestIPCCompressionOptions(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}, {Name: "n", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i := range 20000 {
		b.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("carrier-%d", i%7))
		b.Field(1).(*array.Int64Builder).Append(int64(i % 100))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()

	size := map[string]int{}
	for _, codec := range []string{"none", "lz4", "zstd"} {
		s := &Server{cfg: config.Worker{IPCCompression: codec}, mem: mem}
		var buf bytes.Buffer
		w := ipc.NewWriter(&buf, s.ipcOptions(schema)...)
		if err := w.Write(rec); err != nil {
			t.Fatal(codec, err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(codec, err)
		}
		size[codec] = buf.Len()
		r, err := ipc.NewReader(&buf, ipc.WithAllocator(mem))
		if err != nil {
			t.Fatal(codec, err)
		}
		if !r.Next() {
			t.Fatalf("%s: no batch read back: %v", codec, r.Err())
		}
		if !array.RecordEqual(rec, r.RecordBatch()) {
			t.Errorf("%s: the batch read back differs", codec)
		}
		r.Release()
	}
	for _, codec := range []string{"lz4", "zstd"} {
		if size[codec]*4 > size["none"] {
			t.Errorf("%s stream is %d bytes, plain %d: not compressed", codec, size[codec], size["none"])
		}
	}
	t.Logf("IPC stream bytes: %v", size)
}

// TestCompressedFragment runs a fragment through a worker with each codec
// and requires the rows the uncompressed worker returns.
func TestCompressedFragment(t *testing.T) {
	const query = "SELECT seq, CONCAT('v', seq % 13), seq / 7 FROM " + testDB + ".seq_1_to_30000"
	read := func(codec string) string {
		ts := startServer(t, func(c *config.Worker) { c.IPCCompression = codec })
		s, err := ts.client.Fragment(context.Background(), ticket.Ticket{SQL: query}, ts.mem)
		if err != nil {
			t.Fatal(codec, err)
		}
		defer s.Release()
		var out bytes.Buffer
		for s.Next() {
			out.WriteString(fmt.Sprint(s.RecordBatch()))
		}
		if err := s.Err(); err != nil {
			t.Fatal(codec, err)
		}
		return out.String()
	}
	plain := read("none")
	if len(plain) < 30000 {
		t.Fatalf("plain result too short: %d bytes", len(plain))
	}
	for _, codec := range []string{"lz4", "zstd"} {
		if got := read(codec); got != plain {
			t.Errorf("%s: rows differ from the uncompressed stream", codec)
		}
	}
}

func TestIPCCompressionConfig(t *testing.T) {
	w := config.Worker{MySQL: "127.0.0.1:3306", IPCCompression: "snappy"}
	if err := w.Validate(); err == nil {
		t.Fatal("ipc_compression: snappy accepted")
	}
}
