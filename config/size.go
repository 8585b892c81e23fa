package config

import (
	"fmt"
	"math"
	"net"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Byte sizes in the configuration (fields tagged size:"bytes") accept
// units as operators write them: "8GiB", "512 MiB", "64M", "1.5GiB", or
// plain bytes ("67108864", and negative numbers where the key gives them a
// meaning). Binary units: KiB MiB GiB TiB and MySQL's K M G T (as in
// innodb_buffer_pool_size=8G); decimal: KB MB GB TB; B is bytes. Case is
// ignored. The fields stay int64 (int) in Go: Load rewrites the values to
// bytes before decoding, on the same line, so errors keep their line
// numbers.

var sizeUnits = map[string]float64{
	"": 1, "b": 1,
	"k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20,
	"g": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "tib": 1 << 40,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
}

// ParseSize reads a byte size: plain bytes or a number with a unit (see
// above). A fraction of a byte is dropped.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		return n, nil
	}
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i <= 0 {
		return 0, fmt.Errorf("size %q: want bytes or a number with a unit (KiB, MiB, GiB, TiB; K, M, G, T as MySQL; KB, MB, GB, TB decimal)", s)
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	mult, ok := sizeUnits[unit]
	f, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil {
		return 0, fmt.Errorf("size %q: want bytes or a number with a unit (KiB, MiB, GiB, TiB; K, M, G, T as MySQL; KB, MB, GB, TB decimal)", s)
	}
	v := f * mult
	if v >= math.MaxInt64 {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return int64(v), nil
}

// expandSizes returns src with every size-tagged value of t's YAML that
// is not plain bytes rewritten as bytes. src that does not parse is
// returned as it is, for the decoder to report.
func expandSizes(src []byte, t reflect.Type) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil || len(doc.Content) == 0 {
		return src, nil
	}
	var edits []sizeEdit
	if err := collectSizes(doc.Content[0], t, &edits); err != nil {
		return nil, err
	}
	if len(edits) == 0 {
		return src, nil
	}
	lines := strings.SplitAfter(string(src), "\n")
	for _, e := range edits {
		if e.line < 1 || e.line > len(lines) {
			return nil, fmt.Errorf("line %d: cannot place size %q", e.line, e.token)
		}
		l := lines[e.line-1]
		at := byteOffset(l, e.column-1)
		i := strings.Index(l[at:], e.token)
		if i < 0 {
			return nil, fmt.Errorf("line %d: cannot place size %q", e.line, e.token)
		}
		lines[e.line-1] = l[:at+i] + e.bytes + l[at+i+len(e.token):]
	}
	return []byte(strings.Join(lines, "")), nil
}

// sizeEdit replaces token (the value as written, quotes included) at
// line:column by bytes.
type sizeEdit struct {
	line, column int
	token, bytes string
}

// byteOffset is the byte offset of rune index n in l (yaml's columns
// count characters).
func byteOffset(l string, n int) int {
	off := 0
	for i := 0; i < n && off < len(l); i++ {
		_, w := utf8.DecodeRuneInString(l[off:])
		off += w
	}
	return off
}

// collectSizes walks n, YAML for a value of type t, and records the edits
// of its size fields.
func collectSizes(n *yaml.Node, t reflect.Type, edits *[]sizeEdit) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t.Kind() == reflect.Slice && n.Kind == yaml.SequenceNode:
		for _, c := range n.Content {
			if err := collectSizes(c, t.Elem(), edits); err != nil {
				return err
			}
		}
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		fields := map[string]reflect.StructField{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); name != "" && name != "-" {
				fields[name] = f
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			f, ok := fields[n.Content[i].Value]
			if !ok {
				continue // unknown keys are the decoder's to report
			}
			v := n.Content[i+1]
			if f.Tag.Get("size") != "bytes" {
				if err := collectSizes(v, f.Type, edits); err != nil {
					return err
				}
				continue
			}
			if v.Kind != yaml.ScalarNode || v.Tag == "!!int" {
				continue
			}
			b, err := ParseSize(v.Value)
			if err != nil {
				return fmt.Errorf("line %d: %s: %w", v.Line, n.Content[i].Value, err)
			}
			token := v.Value
			switch v.Style {
			case yaml.DoubleQuotedStyle:
				token = `"` + v.Value + `"`
			case yaml.SingleQuotedStyle:
				token = "'" + v.Value + "'"
			case 0, yaml.TaggedStyle:
			default:
				return fmt.Errorf("line %d: %s: write the size on one line", v.Line, n.Content[i].Value)
			}
			*edits = append(*edits, sizeEdit{line: v.Line, column: v.Column, token: token, bytes: strconv.FormatInt(b, 10)})
		}
	}
	return nil
}

// isLoopback reports whether a listen address (host:port) only accepts
// connections from this machine.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Warnings lists settings that work but that an operator most likely does
// not want: an account root without a password on a listener other
// machines reach, an HTTP listener (status page with statement text,
// /debug/pprof) beyond loopback, plain text to workers on other hosts. Call it after Defaults; the coordinator
// logs each at start.
func (c *Coordinator) Warnings() []string {
	var w []string
	var open []string
	for _, l := range []struct{ key, addr string }{{"listen", c.Listen}, {"flight_sql_listen", c.FlightSQLListen}} {
		if l.addr != "" && !isLoopback(l.addr) {
			open = append(open, fmt.Sprintf("%s %s", l.key, l.addr))
		}
	}
	if len(open) > 0 {
		for _, u := range c.Users {
			if u.Name == "root" && u.Password == "" {
				w = append(w, fmt.Sprintf("config: %s is not loopback and account root has no password: whoever reaches the port logs in as root; "+
					"set a password under users: (or listen on 127.0.0.1)", strings.Join(open, " and ")))
				break
			}
		}
	}
	if c.HTTPListen != nil && *c.HTTPListen != "" && !isLoopback(*c.HTTPListen) {
		what := "the status page (statement text) is"
		if c.PProf {
			what = "the status page (statement text) and /debug/pprof are"
		}
		w = append(w, fmt.Sprintf("config: http_listen %s is not loopback: %s open to whoever reaches it", *c.HTTPListen, what))
	}
	if c.WorkerPlaintext {
		for _, r := range c.Replicas {
			if !isLoopback(r.Worker) {
				w = append(w, fmt.Sprintf("config: worker_plaintext: the cluster secret and fragment results go to worker %s in clear unless TLS is terminated in front of it", r.Worker))
			}
		}
	}
	return w
}
