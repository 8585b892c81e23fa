package measure

import (
	"strings"
	"testing"
)

// TestParseMetrics reads unlabelled samples and skips labelled ones and
// prefixes of other names.
func TestParseMetrics(t *testing.T) {
	text := `# HELP process_resident_memory_bytes Resident memory size in bytes.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 1.2345e+08
process_resident_memory_bytes_max 9
go_memstats_heap_inuse_bytes 5.5e+07
go_gc_duration_seconds{quantile="0.5"} 0.001
`
	m, err := parseMetrics(strings.NewReader(text), "process_resident_memory_bytes", "go_memstats_heap_inuse_bytes", "go_gc_duration_seconds")
	if err != nil {
		t.Fatal(err)
	}
	if m["process_resident_memory_bytes"] != 1.2345e8 || m["go_memstats_heap_inuse_bytes"] != 5.5e7 || len(m) != 2 {
		t.Fatalf("parsed %v", m)
	}
}
