package dashboard

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoaldb/shoal/bench/measure"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// sampleSteps is a made-up dashboard run: three steps, both sides, with
// errors at the last one.
func sampleSteps() []StepResult {
	lat := func(mean, p50, p95, p99, max float64) measure.Latency {
		d := func(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }
		return measure.Latency{Mean: d(mean), P50: d(p50), P95: d(p95), P99: d(p99), Max: d(max)}
	}
	return []StepResult{
		{Side: SideShoal, Users: 10, Duration: 10 * time.Second, Elapsed: 10020 * time.Millisecond, OK: 4210, Latency: lat(23.7, 21.2, 41.9, 60.4, 131.5)},
		{Side: SideDirect, Users: 10, Duration: 10 * time.Second, Elapsed: 10005 * time.Millisecond, OK: 3105, Latency: lat(32.2, 28.9, 62.3, 88.1, 170)},
		{Side: SideShoal, Users: 50, Duration: 10 * time.Second, Elapsed: 10110 * time.Millisecond, OK: 8120, Latency: lat(62.2, 55.1, 120.4, 190.2, 402.7)},
		{Side: SideDirect, Users: 50, Duration: 10 * time.Second, Elapsed: 10090 * time.Millisecond, OK: 4020, Latency: lat(125.5, 110.3, 260.1, 388.6, 611)},
		{Side: SideShoal, Users: 150, Duration: 10 * time.Second, Elapsed: 10400 * time.Millisecond, OK: 9001, Errors: 12, Latency: lat(171.3, 150.2, 350.9, 520.5, 1200.25),
			FirstErrors: []string{"Error 1040 (08004): Too many connections"}},
		{Side: SideDirect, Users: 150, Duration: 10 * time.Second, Elapsed: 10350 * time.Millisecond, OK: 4100, Latency: lat(378.6, 340, 720, 1010.3, 1450)},
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./bench/dashboard -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (go test ./bench -update rewrites it); got:\n%s", path, got)
	}
}

func TestWriteCSV(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCSV(&b, sampleSteps()); err != nil {
		t.Fatal(err)
	}
	golden(t, "dashboard.csv", b.Bytes())
}

func TestWriteSVG(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSVG(&b, "shoal bench dashboard: 15 charts, ontime WHERE YearD >= 2015 & <sample>", sampleSteps()); err != nil {
		t.Fatal(err)
	}
	golden(t, "dashboard.svg", b.Bytes())
}

func TestPrintSteps(t *testing.T) {
	var b bytes.Buffer
	PrintSteps(&b, sampleSteps())
	golden(t, "dashboard.txt", b.Bytes())
}

// A pinned copy a thousand times faster than the replica: both value axes
// are logarithmic (numbers from a 200k-row local run).
func TestWriteSVGLogScale(t *testing.T) {
	lat := func(p99 float64) measure.Latency {
		return measure.Latency{P99: time.Duration(p99 * float64(time.Millisecond))}
	}
	rs := []StepResult{
		{Side: SideShoal, Users: 10, Elapsed: 3 * time.Second, OK: 31647, Latency: lat(9.13)},
		{Side: SideDirect, Users: 10, Elapsed: 6 * time.Second, OK: 34, Latency: lat(4363)},
		{Side: SideShoal, Users: 50, Elapsed: 3 * time.Second, OK: 32172, Latency: lat(41.16)},
		{Side: SideDirect, Users: 50, Elapsed: 10800 * time.Millisecond, OK: 69, Latency: lat(10740)},
		{Side: SideShoal, Users: 150, Elapsed: 3 * time.Second, OK: 29466, Latency: lat(74.77)},
		{Side: SideDirect, Users: 150, Elapsed: 23500 * time.Millisecond, OK: 160, Latency: lat(23440)},
	}
	var b bytes.Buffer
	if err := WriteSVG(&b, "pinned copy vs replica", rs); err != nil {
		t.Fatal(err)
	}
	golden(t, "dashboard-log.svg", b.Bytes())
}

// An empty run still gives a valid document: axes from 0 to 1.
func TestWriteSVGEmpty(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSVG(&b, "empty", nil); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b.Bytes(), []byte("<svg ")) || !bytes.HasSuffix(b.Bytes(), []byte("</svg>\n")) {
		t.Errorf("not an SVG document:\n%s", b.Bytes())
	}
}

func TestAxes(t *testing.T) {
	for _, c := range []struct {
		vs     []float64
		log    bool
		labels string // of the ticks
	}{
		{[]float64{300}, false, "0 100 200 300"},
		{[]float64{10, 150}, false, "0 50 100 150"},
		{[]float64{0.37}, false, "0.0 0.1 0.2 0.3 0.4"},
		{[]float64{1234.5, 30}, false, "0 500 1000 1500"},
		{[]float64{0, 10}, false, "0 2 4 6 8 10"},
		{nil, false, "0.0 0.2 0.4 0.6 0.8 1.0"},
		{[]float64{5.6, 10547.1, 0}, true, "1 10 100 1000 10000 100000"},
		{[]float64{0.0913, 23440}, true, "0.01 0.1 1 10 100 1000 10000 100000"},
		{[]float64{100, 10000}, true, "100 1000 10000"},
	} {
		a := valueAxis(c.vs)
		var labels []string
		for _, v := range a.ticks {
			labels = append(labels, a.label(v))
		}
		if got := strings.Join(labels, " "); a.log != c.log || got != c.labels {
			t.Errorf("valueAxis(%v): log %v, ticks %s; want log %v, ticks %s", c.vs, a.log, got, c.log, c.labels)
		}
		if f := a.frac(a.ticks[0]); f != 0 {
			t.Errorf("valueAxis(%v): first tick at %v, want 0", c.vs, f)
		}
		if f := a.frac(a.ticks[len(a.ticks)-1]); math.Abs(f-1) > 1e-12 {
			t.Errorf("valueAxis(%v): last tick at %v, want 1", c.vs, f)
		}
	}
}
