package observe

import (
	"bytes"
	"cmp"
	"html/template"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// The status page (GET / and GET /status on the HTTP listener): one HTML
// page, rendered on the server with html/template, no script. It shows the
// replicas as the coordinator sees them (SHOW SHOAL REPLICAS), the
// statements running now (SHOW PROCESSLIST, every account) and the recent
// ones, each with the plans of its executions and a per-worker timeline
// of its fragment attempts (status_queries.go), the recent slow
// statements and the pinned tables (SHOW CACHED TABLES). ?query=ID shows
// one statement's plans and timeline at the top. It is meant for an
// operator on the HTTP listener's network (loopback by default):
// statements are shown with their literals.

// statusView is what the template renders.
type statusView struct {
	Now         time.Time
	Refresh     int // seconds; 0: no automatic refresh
	MySQL       string
	Version     string
	Tables      int
	Replicas    []replicaView
	Healthy     int
	Sessions    int
	Active      []ProcRow
	Running     []queryView // the running statements' traces
	Recent      []queryView // finished statements, newest first
	Selected    *queryView  // ?query=ID, running or recent
	SelectedID  string      // ?query= as given, when not found
	Slow        []slowEntry
	Pins        []pinView
	LongQuery   time.Duration
	SlowLogPath string
}

// replicaView is one replica row.
type replicaView struct {
	Name, MySQL, Worker string
	Healthy             bool
	Lag                 string // "" when unknown
	Replicating         string // "yes", "no (io …, sql …)", "" when unknown
	Slots, Running      string
	LastError           string
	Checked             string
}

// pinView is one pinned table.
type pinView struct {
	DB, Name, Kind, Source string
	Rows, Bytes, Hits      int64
	Version                uint64
	Loaded                 time.Time
	LoadTook               time.Duration
}

// maxShownStatement bounds a statement's text on the page.
const maxShownStatement = 2000

var statusTemplate = template.Must(template.New("status").Funcs(template.FuncMap{
	"dur": func(d time.Duration) string {
		switch {
		case d >= time.Second:
			return d.Round(100 * time.Millisecond).String()
		case d >= time.Millisecond:
			return d.Round(time.Millisecond).String()
		}
		return d.Round(time.Microsecond).String()
	},
	"secs": func(s float64) string { return strconv.FormatFloat(s, 'f', 3, 64) + " s" },
	"stmt": func(s string) string { return TruncateRunes(s, maxShownStatement) },
	"pct":  func(p float64) string { return strconv.FormatFloat(p, 'f', 0, 64) },
	"ts":   func(t time.Time) string { return t.Local().Format("2006-01-02 15:04:05") },
	"f1":   func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) },
	"ms":   func(s float64) string { return msLabel(s * 1000) },
	"mib":  func(b int64) string { return strconv.FormatFloat(float64(b)/(1<<20), 'f', 1, 64) + " MiB" },
}).Parse(statusHTML))

// statusHTML is the page's template; "trace" draws one statement's plans
// and timeline.
const statusHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Shoal coordinator</title>
{{- if .Refresh}}
<meta http-equiv="refresh" content="{{.Refresh}}">
{{- end}}
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em 2em; color: #1d2733; background: #fbfcfd; }
h1 { font-size: 1.4em; margin: 0 0 .2em; }
h2 { font-size: 1.1em; margin: 1.6em 0 .5em; border-bottom: 1px solid #d5dde5; padding-bottom: .2em; }
.meta { color: #5a6b7c; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .3em .6em; border-bottom: 1px solid #e3e8ee; vertical-align: top; }
th { background: #eef2f6; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code, .sql { font-family: ui-monospace, monospace; font-size: 12.5px; white-space: pre-wrap; word-break: break-word; }
.ok { color: #17803d; font-weight: 600; }
.bad { color: #b42318; font-weight: 600; }
.empty { color: #5a6b7c; font-style: italic; }
progress { width: 8em; vertical-align: middle; }
.nw, .nw code { white-space: nowrap; }
details { margin: .4em 0 .8em; }
summary { cursor: pointer; }
.plan { margin: .3em 0 .5em 1em; }
svg.tl { display: block; margin: .4em 0; background: #fff; border: 1px solid #e3e8ee; }
svg.tl text { font: 11px system-ui, sans-serif; fill: #1d2733; }
svg.tl .lane { fill: #f4f7fa; }
svg.tl .tick { stroke: #d5dde5; stroke-width: 1; }
svg.tl text.axis { fill: #5a6b7c; }
.b-ok { fill: #2e9e5b; } .b-retried { fill: #e8a33d; } .b-failed { fill: #d64545; }
.b-cancelled { fill: #9aa5b1; } .b-running { fill: #3b82f6; }
.key span { display: inline-block; width: .9em; height: .9em; vertical-align: middle; margin: 0 .2em 0 .8em; }
.key .b-ok { background: #2e9e5b; } .key .b-retried { background: #e8a33d; } .key .b-failed { background: #d64545; }
.key .b-cancelled { background: #9aa5b1; } .key .b-running { background: #3b82f6; }
.sel { border: 1px solid #d5dde5; background: #fff; padding: .2em 1em .6em; }
</style>
</head>
<body>
<h1>Shoal coordinator</h1>
<p class="meta">MySQL protocol on <code>{{.MySQL}}</code> · replicas run {{.Version}} · {{.Tables}} tables in the catalog ·
{{.Healthy}} of {{len .Replicas}} replicas healthy · {{.Sessions}} client sessions · {{ts .Now}}
{{- if not .Refresh}} · <a class="nw" href="?refresh=5">refresh every 5 s</a>{{else}} · <a class="nw" href="?">stop refreshing</a>{{end}}</p>

<h2 id="replicas">Replicas and workers</h2>
<table>
<tr><th>name</th><th>replica</th><th>worker</th><th>health</th><th>lag</th><th>replication</th><th>slots</th><th>running</th><th>last checked</th><th>why unhealthy</th></tr>
{{- range .Replicas}}
<tr><td>{{.Name}}</td><td class="nw"><code>{{.MySQL}}</code></td><td class="nw"><code>{{.Worker}}</code></td>
<td>{{if .Healthy}}<span class="ok">healthy</span>{{else}}<span class="bad">unhealthy</span>{{end}}</td>
<td class="num">{{if .Lag}}{{.Lag}}{{else}}–{{end}}</td><td>{{if .Replicating}}{{.Replicating}}{{else}}–{{end}}</td>
<td class="num">{{.Slots}}</td><td class="num">{{.Running}}</td><td>{{.Checked}}</td><td>{{.LastError}}</td></tr>
{{- end}}
</table>

<h2 id="active">Running statements</h2>
{{- if .Active}}
<table>
<tr><th>id</th><th>user</th><th>client</th><th>db</th><th>time</th><th>state</th><th>progress</th><th>statement</th></tr>
{{- range .Active}}
<tr><td class="num">{{.ID}}</td><td>{{.User}}</td><td class="nw"><code>{{.Host}}</code></td><td>{{.DB}}</td><td class="num nw">{{dur .Time}}</td>
<td class="nw">{{.State}}</td><td class="nw">{{if .Fragments}}<progress max="{{.Fragments}}" value="{{.Done}}">{{pct .Progress}} %</progress> {{pct .Progress}} %{{end}}</td>
<td class="sql">{{stmt .Info}}</td></tr>
{{- end}}
</table>
{{- range .Running}}{{if or .Plans .Attempts}}
<details open><summary>query {{.QueryID}} (session {{.Session}}): plan and fragments</summary>{{template "trace" .}}</details>
{{- end}}{{end}}
{{- else}}
<p class="empty">No statement is running.</p>
{{- end}}
{{- if .Selected}}{{with .Selected}}

<h2 id="selected">Query {{.QueryID}}</h2>
<div class="sel">
<p class="meta">session {{.Session}} · {{.User}}{{if .DB}} · {{.DB}}{{end}} · started {{ts .Start}} ·
{{if .Running}}running for {{secs .Duration}} · {{.State}}{{else}}{{secs .Duration}} · {{.Path}}{{end}} ·
{{.RowsSent}} rows sent · {{.Fragments}} fragments, {{.RowsShipped}} rows shipped</p>
<p class="sql">{{stmt .Statement}}</p>
{{- if .Error}}<p><span class="bad">{{.Errno}}</span> {{.Error}}</p>{{end}}
{{template "trace" .}}
</div>
{{- end}}{{else if .SelectedID}}
<h2 id="selected">Query {{.SelectedID}}</h2>
<p class="empty">No running or recent statement has query id {{.SelectedID}}; only the last {{len .Recent}} finished statements are kept.</p>
{{- end}}

<h2 id="recent">Recent statements</h2>
<p class="meta">The last statements to finish, of any duration, newest first; open one for its plan and the timeline of its fragments on the workers.</p>
{{- if .Recent}}
<table>
<tr><th>query</th><th>session</th><th>user</th><th>started</th><th>duration</th><th>path</th><th>rows sent</th><th>fragments</th><th>statement</th><th>error</th></tr>
{{- range .Recent}}
<tr><td class="num"><a href="?query={{.QueryID}}#selected">{{.QueryID}}</a></td><td class="num">{{.Session}}</td><td>{{.User}}</td><td class="nw">{{ts .Start}}</td>
<td class="num nw">{{secs .Duration}}</td><td>{{.Path}}</td><td class="num">{{.RowsSent}}</td><td class="num">{{.Fragments}}</td>
<td class="sql">{{stmt .Statement}}{{if or .Plans .Attempts}}<details><summary>plan and fragments</summary>{{template "trace" .}}</details>{{end}}</td>
<td>{{if .Error}}<span class="bad">{{.Errno}}</span> {{.Error}}{{end}}</td></tr>
{{- end}}
</table>
{{- else}}
<p class="empty">No statement has finished since the coordinator started.</p>
{{- end}}

<h2 id="slow">Recent slow statements</h2>
<p class="meta">Statements that ran {{dur .LongQuery}} or longer (<code>long_query_time</code>), newest first;
{{if .SlowLogPath}}all of them are in <code>{{.SlowLogPath}}</code>.{{else}}set <code>slow_query_log</code> to keep them in a file.{{end}}</p>
{{- if .Slow}}
<table>
<tr><th>started</th><th>id</th><th>user</th><th>db</th><th>duration</th><th>path</th><th>rows sent</th><th>fragments</th><th>rows shipped</th><th>statement</th><th>error</th></tr>
{{- range .Slow}}
<tr><td class="nw">{{ts .Time}}</td><td class="num">{{.Session}}</td><td>{{.User}}</td><td>{{.DB}}</td><td class="num nw">{{secs .Duration}}</td>
<td>{{.Path}}</td><td class="num">{{.RowsSent}}</td><td class="num">{{.Fragments}}</td><td class="num">{{.RowsShipped}}</td>
<td class="sql">{{stmt .Statement}}</td><td>{{if .Error}}<span class="bad">{{.Errno}}</span> {{.Error}}{{end}}</td></tr>
{{- end}}
</table>
{{- else}}
<p class="empty">No slow statement since the coordinator started.</p>
{{- end}}

<h2 id="pinned">Pinned tables</h2>
{{- if .Pins}}
<table>
<tr><th>table</th><th>kind</th><th>rows</th><th>memory</th><th>version</th><th>loaded</th><th>load took</th><th>hits</th><th>source</th></tr>
{{- range .Pins}}
<tr><td class="nw"><code>{{.DB}}.{{.Name}}</code></td><td>{{.Kind}}</td><td class="num">{{.Rows}}</td><td class="num nw">{{mib .Bytes}}</td>
<td class="num">{{.Version}}</td><td class="nw">{{ts .Loaded}}</td><td class="num nw">{{dur .LoadTook}}</td><td class="num">{{.Hits}}</td><td class="sql">{{stmt .Source}}</td></tr>
{{- end}}
</table>
{{- else}}
<p class="empty">No table is pinned (CACHE TABLE pins one; see SHOW CACHED TABLES).</p>
{{- end}}
</body>
</html>
{{define "trace"}}
{{- range .Plans}}
<div class="plan"><div class="meta">execution {{.QID}}</div>
{{- range .Lines}}
<div class="sql">{{.}}</div>
{{- end}}
</div>
{{- end}}
{{- with .Timeline}}{{template "timeline" .}}{{end}}
{{- if .Untraced}}<p class="meta">{{.Untraced}} attempts or executions beyond the trace's bounds are not shown.</p>{{end}}
{{- end}}
{{define "timeline"}}
<svg class="tl" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="fragment timeline per worker">
{{- range .Lanes}}
<rect class="lane" x="0" y="{{.Y}}" width="{{$.Width}}" height="{{.H}}"/><text x="4" y="{{.TextY}}">{{.Worker}}</text>
{{- end}}
{{- range .Ticks}}
<line class="tick" x1="{{f1 .X}}" x2="{{f1 .X}}" y1="0" y2="{{$.AxisY}}"/><text class="axis" x="{{f1 .X}}" y="{{$.Height}}" dy="-4" text-anchor="{{.Anchor}}">{{.Label}}</text>
{{- end}}
{{- range .Bars}}
<rect class="b-{{.Outcome}}" x="{{f1 .X}}" y="{{f1 .Y}}" width="{{f1 .W}}" height="{{.H}}"><title>{{.Title}}</title></rect>
{{- end}}
</svg>
<div class="key meta">{{len .Bars}} attempts{{if .Omitted}} drawn, {{.Omitted}} more not drawn{{end}}:<span class="b-ok"></span>ok<span class="b-running"></span>running<span class="b-retried"></span>failed, retried<span class="b-failed"></span>failed<span class="b-cancelled"></span>cancelled</div>
{{- end}}
`

// statusPage serves the status page. ?refresh=N (1–3600) makes the
// browser reload it every N seconds.
func (s *HTTP) statusPage(w http.ResponseWriter, r *http.Request) {
	v := statusView{Now: time.Now(), LongQuery: s.slow.threshold, SlowLogPath: s.cfg.SlowQueryLog, Version: "an unknown version"}
	if n, err := strconv.Atoi(r.URL.Query().Get("refresh")); err == nil && n >= 1 && n <= 3600 {
		v.Refresh = n
	}
	v.MySQL = s.src.MySQLAddr()
	if version, tables, ok := s.src.Catalog(); ok {
		if version != "" {
			v.Version = version
		}
		v.Tables = tables
	}
	for _, wr := range s.src.Workers() {
		rv := replicaView{Name: wr.Name, MySQL: wr.MySQL, Worker: wr.Addr, Healthy: wr.Healthy,
			Slots: "–", Running: "–", Checked: "never", LastError: wr.LastError}
		if st := wr.Status; st != nil {
			if st.ReplicaLagSeconds != nil {
				rv.Lag = strconv.FormatFloat(*st.ReplicaLagSeconds, 'f', -1, 64) + " s"
			}
			switch {
			case !st.IsReplica:
				rv.Replicating = "not a replica"
			case st.IORunning && st.SQLRunning:
				rv.Replicating = "running"
			default:
				rv.Replicating = "stopped (io " + strconv.FormatBool(st.IORunning) + ", sql " + strconv.FormatBool(st.SQLRunning) + ")"
			}
			rv.Slots, rv.Running = strconv.Itoa(st.Slots), strconv.Itoa(st.Running)
		}
		if !wr.Checked.IsZero() {
			rv.Checked = time.Since(wr.Checked).Round(time.Second).String() + " ago"
		}
		if rv.Healthy {
			v.Healthy++
		}
		v.Replicas = append(v.Replicas, rv)
	}
	for _, p := range s.src.ProcessList() {
		v.Sessions++
		if p.Command == "Query" {
			v.Active = append(v.Active, p)
		}
	}
	v.Slow = s.slow.recentEntries()
	v.Running, v.Recent = s.runningQueries(v.Now), s.recentQueries()
	if id := r.URL.Query().Get("query"); id != "" {
		v.SelectedID = id
		for _, list := range [][]queryView{v.Running, v.Recent} {
			for i := range list {
				if strconv.FormatUint(list[i].QueryID, 10) == id {
					v.Selected = &list[i]
				}
			}
		}
	}
	for _, t := range s.src.Pins() {
		pv := pinView{DB: t.DB, Name: t.Name, Kind: "query", Source: t.Source, Rows: t.Rows, Bytes: t.Bytes,
			Hits: t.Hits(), Version: t.Version, Loaded: t.Loaded, LoadTook: t.LoadTook}
		if t.Whole {
			pv.Kind = "table"
		}
		v.Pins = append(v.Pins, pv)
	}
	slices.SortFunc(v.Pins, func(a, b pinView) int { return cmp.Or(cmp.Compare(a.DB, b.DB), cmp.Compare(a.Name, b.Name)) })
	var buf bytes.Buffer
	if err := statusTemplate.Execute(&buf, v); err != nil {
		s.log.Warn("status page", "err", err)
		http.Error(w, "rendering the status page failed: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(buf.Bytes())
}
