package e2e

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// One client of TestLoadMix: a connection and its session state, walking
// the mix.

// loadStmt is a statement of the mix: a template with ? for the binary
// protocol, its arguments, and how the primary answers it.
type loadStmt struct {
	tmpl string
	args []any
	// direct is the statement the primary runs for the answer, when it
	// differs (a pinned query result is its defining SELECT there).
	direct string
	// alsoErr is the other verdict where a race is inherent: the pin is
	// being dropped, the statement killed or timed out.
	alsoErr uint16
	// also are other answers MariaDB itself gives the statement.
	also []loadAnswer
}

// text is the statement with its arguments written in.
func (s loadStmt) text() string {
	out := s.tmpl
	for _, a := range s.args {
		var lit string
		switch v := a.(type) {
		case string:
			lit = "'" + v + "'"
		default:
			lit = fmt.Sprint(v)
		}
		out = strings.Replace(out, "?", lit, 1)
	}
	return out
}

var loadCarriers = []string{"AA", "DL", "WN", "UA", "B6", "AS", "ZZ"}

// Statements by kind; each func draws literals.
var (
	loadAggregates = []func(r *rand.Rand) loadStmt{
		func(r *rand.Rand) loadStmt {
			return loadStmt{tmpl: "SELECT Carrier, COUNT(*), SUM(Distance), MAX(ArrDelayMinutes) FROM ontime WHERE DayOfWeek = ? GROUP BY Carrier ORDER BY Carrier", args: []any{1 + r.IntN(7)}}
		},
		func(r *rand.Rand) loadStmt {
			return loadStmt{tmpl: "SELECT Origin, COUNT(*) AS n, AVG(DepDelayMinutes) FROM ontime WHERE Distance > ? GROUP BY Origin ORDER BY n DESC, Origin LIMIT 5", args: []any{r.IntN(3000)}}
		},
		func(r *rand.Rand) loadStmt {
			return loadStmt{tmpl: "SELECT DayOfWeek, COUNT(DISTINCT Carrier), MIN(FlightDate), MAX(FlightDate) FROM ontime WHERE Distance > ? GROUP BY DayOfWeek ORDER BY DayOfWeek", args: []any{r.IntN(2500)}}
		},
		func(r *rand.Rand) loadStmt {
			return loadStmt{tmpl: "SELECT COUNT(*), SUM(Cancelled), SUM(Distance) / COUNT(*), SUM(Distance) / 0 FROM ontime WHERE Carrier = ?", args: []any{loadCarriers[r.IntN(len(loadCarriers))]}}
		},
		func(r *rand.Rand) loadStmt {
			return loadStmt{tmpl: "SELECT Dest, COUNT(*) AS c FROM ontime GROUP BY Dest HAVING c > ? ORDER BY Dest", args: []any{r.IntN(2000)}}
		},
		func(r *rand.Rand) loadStmt {
			return loadStmt{tmpl: "SELECT YearD, Carrier, SUM(ArrDelayMinutes) FROM ontime WHERE id > ? GROUP BY YearD, Carrier ORDER BY YearD, Carrier", args: []any{r.IntN(int(env.rows))}}
		},
	}
	loadPassthrough = []func(r *rand.Rand) loadStmt{
		func(r *rand.Rand) loadStmt {
			return loadStmt{tmpl: "SELECT code, name FROM carriers WHERE code > ? ORDER BY code LIMIT 3", args: []any{string(rune('A' + r.IntN(26)))}}
		},
		func(r *rand.Rand) loadStmt {
			return loadStmt{tmpl: "SELECT city, state FROM airports ORDER BY code LIMIT ?", args: []any{1 + r.IntN(20)}}
		},
		func(r *rand.Rand) loadStmt {
			return loadStmt{tmpl: "SELECT o.id, o.Carrier, c.name FROM ontime o JOIN carriers c ON c.code = o.Carrier WHERE o.id BETWEEN ? AND ? ORDER BY o.id", args: []any{1000 + r.IntN(1000), 2000 + r.IntN(50)}}
		},
		func(r *rand.Rand) loadStmt {
			return loadStmt{tmpl: "SELECT CONCAT(?, code), LENGTH(name) FROM carriers ORDER BY code", args: []any{fmt.Sprint(r.IntN(100))}}
		},
	}
	loadPoint = []func(r *rand.Rand) loadStmt{
		func(r *rand.Rand) loadStmt {
			return loadStmt{tmpl: "SELECT * FROM ontime WHERE id = ?", args: []any{1 + r.IntN(int(env.rows)+10)}}
		},
		func(r *rand.Rand) loadStmt {
			return loadStmt{tmpl: "SELECT id, Carrier, Distance FROM ontime WHERE id IN (?, ?, ?) ORDER BY id", args: []any{r.IntN(int(env.rows)), r.IntN(int(env.rows)), r.IntN(int(env.rows))}}
		},
	}
	loadErrors = []func(r *rand.Rand) loadStmt{
		func(*rand.Rand) loadStmt { return loadStmt{tmpl: "SELECT nosuch FROM carriers"} },
		func(r *rand.Rand) loadStmt {
			return loadStmt{tmpl: "SELECT Carrier, COUNT(*) FROM ontime WHERE DayOfWeek = ? GROUP BY Carrier HAVING nosuch > 0", args: []any{1 + r.IntN(7)}}
		},
		func(*rand.Rand) loadStmt { return loadStmt{tmpl: "SELECT COUNT(*) FROM nosuchtab"} },
		func(*rand.Rand) loadStmt { return loadStmt{tmpl: "SELEC 1"} },
		func(*rand.Rand) loadStmt {
			return loadStmt{tmpl: "SELECT Carrier, COUNT(*) FROM ontime GROUP BY Carrier ORDER BY 5"}
		},
		func(r *rand.Rand) loadStmt {
			return loadStmt{tmpl: "SELECT Carrier, CAST(SUM(Distance) AS SIGNED) * ? FROM ontime GROUP BY Carrier ORDER BY Carrier", args: []any{int64(9223372036854775807 - r.IntN(10))}}
		},
		func(*rand.Rand) loadStmt {
			return loadStmt{tmpl: "SELECT COUNT(*) FROM ontime WHERE EXP(Distance) > 0"}
		},
		func(r *rand.Rand) loadStmt {
			return loadStmt{tmpl: "SELECT id FROM ontime WHERE id = ? AND 18446744073709551615 + id > 0", args: []any{1 + r.IntN(100)}}
		},
		func(r *rand.Rand) loadStmt {
			return loadStmt{tmpl: "SELECT Carrier, SUM(Distance) DIV 0, MOD(COUNT(*), 0) FROM ontime WHERE DayOfWeek = ? GROUP BY Carrier ORDER BY Carrier", args: []any{1 + r.IntN(7)}}
		},
		func(*rand.Rand) loadStmt { return loadStmt{tmpl: "SELECT (SELECT id FROM ontime) FROM carriers"} },
	}
	loadWrites = []string{
		"DELETE FROM carriers WHERE code = 'ZZ'",
		"UPDATE ontime SET Distance = 0 WHERE id = 1",
		"INSERT INTO carriers VALUES ('ZZ', 'x', 'y')",
		"CREATE TABLE load_nosuch (a INT)",
	}
	loadPinnedQueries = []string{
		"SELECT country, COUNT(*) FROM carriers GROUP BY country ORDER BY country",
		"SELECT code, name FROM carriers WHERE code >= 'D' ORDER BY code",
	}
	loadRecentQueries = []string{
		"SELECT Carrier, COUNT(*), SUM(Distance) FROM load_recent GROUP BY Carrier ORDER BY Carrier",
		"SELECT DayOfWeek, MAX(ArrDelayMinutes) FROM load_recent WHERE Carrier = 'AA' GROUP BY DayOfWeek ORDER BY DayOfWeek",
	}
	loadRecentSource = "(SELECT * FROM ontime WHERE YearD >= 2015) AS load_recent"
	loadBig          = []func(r *rand.Rand) loadStmt{
		func(r *rand.Rand) loadStmt {
			return loadStmt{tmpl: "SELECT id, Carrier, Distance, FlightDate FROM ontime WHERE id % ? = 0 ORDER BY id", args: []any{2 + r.IntN(4)}}
		},
		func(r *rand.Rand) loadStmt {
			return loadStmt{tmpl: "SELECT Origin, Dest, COUNT(*), SUM(Distance) FROM ontime WHERE DayOfWeek <> ? GROUP BY Origin, Dest ORDER BY Origin, Dest", args: []any{1 + r.IntN(7)}}
		},
	}
)

// loadClient is one connection's walk.
type loadClient struct {
	lt   *loadTest
	i, k int
	rng  *rand.Rand
	c    *sql.Conn
	id   int64
	// The session state the client set, and so expects to see.
	gcml   int    // group_concat_max_len, 0 for the global value
	myVar  string // @load_me, "" for NULL
	limit  int    // sql_select_limit, 0 for the global value
	leaked []*sql.Stmt
	moves  []int // the last moves (indexes in loadSteps), for failures
}

func (lt *loadTest) client(ctx context.Context, i int) {
	cl := &loadClient{lt: lt, i: i, rng: rand.New(rand.NewPCG(lt.seed, uint64(i)))}
	defer cl.close()
	if !cl.connect() {
		return
	}
	for cl.k = 0; ctx.Err() == nil; cl.k++ {
		if cl.c == nil && !cl.connect() {
			return
		}
		cl.step()
	}
}

func (cl *loadClient) where() string {
	return fmt.Sprintf("seed %d client %d step %d (connection %d, moves %v)", cl.lt.seed, cl.i, cl.k, cl.id, cl.moves)
}

func (cl *loadClient) connect() bool {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := cl.lt.text.Conn(ctx)
	if err == nil {
		err = c.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&cl.id)
		if err != nil {
			c.Close()
		}
	}
	if err != nil {
		cl.lt.fail("%s: connect: %v", cl.where(), err)
		return false
	}
	cl.c, cl.gcml, cl.myVar, cl.limit, cl.leaked = c, 0, "", 0, nil
	return true
}

func (cl *loadClient) close() {
	if cl.c != nil {
		for _, s := range cl.leaked {
			s.Close()
		}
		cl.c.Close()
		cl.c = nil
	}
}

// setting is the session state that changes answers, as SET STATEMENT's
// assignment list for the primary.
func (cl *loadClient) setting(extra ...string) string {
	var s []string
	if cl.limit > 0 {
		s = append(s, fmt.Sprintf("sql_select_limit=%d", cl.limit))
	}
	return strings.Join(append(s, extra...), ", ")
}

// loadSteps are the client's moves, each with its weight in a thousand.
var loadSteps = []struct {
	weight int
	do     func(cl *loadClient)
}{ // the comments name the moves in loadClient.moves
	{290, func(cl *loadClient) { cl.check("aggregate", loadAggregates[cl.rng.IntN(len(loadAggregates))](cl.rng)) }},
	{110, func(cl *loadClient) {
		cl.check("passthrough", loadPassthrough[cl.rng.IntN(len(loadPassthrough))](cl.rng))
	}},
	{110, func(cl *loadClient) { cl.check("point", loadPoint[cl.rng.IntN(len(loadPoint))](cl.rng)) }},
	{100, (*loadClient).pinned},
	{100, func(cl *loadClient) { cl.check("error", loadErrors[cl.rng.IntN(len(loadErrors))](cl.rng)) }},
	{30, (*loadClient).write},
	{60, (*loadClient).session},
	{30, (*loadClient).setLimit},
	{30, (*loadClient).timeout},
	{20, (*loadClient).killQuery},
	{20, (*loadClient).killRace},
	{8, (*loadClient).killConnection},
	{32, (*loadClient).cancel},
	{30, (*loadClient).slowRead},
	{30, (*loadClient).prepareLeak},
}

// step makes one move: the first of client i is move i (so that every
// move runs in a short or slow run, whatever the draws), then by weight.
func (cl *loadClient) step() {
	m := 0
	if cl.k == 0 {
		m = cl.i % len(loadSteps)
	} else {
		for p := cl.rng.IntN(1000); m < len(loadSteps)-1 && p >= loadSteps[m].weight; m++ {
			p -= loadSteps[m].weight
		}
	}
	cl.moves = append(cl.moves, m)
	if len(cl.moves) > 4 {
		cl.moves = cl.moves[1:]
	}
	loadSteps[m].do(cl)
}

func (cl *loadClient) pinned() {
	r := cl.rng
	if r.IntN(2) == 0 {
		cl.check("pinned", loadStmt{tmpl: loadPinnedQueries[r.IntN(len(loadPinnedQueries))]})
		return
	}
	q := loadRecentQueries[r.IntN(len(loadRecentQueries))]
	// ER_NO_SUCH_TABLE while the churn has it uncached.
	cl.check("pinned", loadStmt{tmpl: q, direct: strings.Replace(q, "load_recent", loadRecentSource, 1), alsoErr: 1146})
}

// run sends s in the text or the binary protocol (chosen at random) and
// reads its answer.
func (cl *loadClient) run(s loadStmt, binary bool) loadAnswer {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if binary {
		return answerOf(rowsString2(cl.c.QueryContext(ctx, s.tmpl, s.args...)))
	}
	return answerOf(rowsString2(cl.c.QueryContext(ctx, s.text())))
}

// expected is the primary's answer to s under the session's setting.
func (cl *loadClient) expected(s loadStmt, binary bool, extra ...string) loadAnswer {
	q := s.tmpl
	if s.direct != "" {
		q = s.direct
	}
	// The key is the text with its arguments written in, in either
	// protocol; the primary runs the template with them in the binary one.
	k := loadKey{sql: loadStmt{tmpl: q, args: s.args}.text(), binary: binary && len(s.args) > 0, setting: cl.setting(extra...)}
	if !k.binary {
		return cl.lt.expect(k, nil)
	}
	k.tmpl = q
	return cl.lt.expect(k, s.args)
}

// check runs s and compares its answer with the primary's.
func (cl *loadClient) check(kind string, s loadStmt) {
	binary := len(s.args) > 0 && cl.rng.IntN(2) == 0
	got := cl.run(s, binary)
	cl.lt.ran(kind)
	cl.verdict(kind, s, binary, got, cl.expected(s, binary))
}

// verdict compares got with want (or s.alsoErr), and after any error
// probes the session.
func (cl *loadClient) verdict(kind string, s loadStmt, binary bool, got, want loadAnswer) {
	proto := "text"
	if binary {
		proto = "binary"
	}
	switch {
	case got.errno == 1105:
		cl.lt.fail("%s: %s %s (%s): error 1105 (internal), want %s", cl.where(), kind, s.text(), proto, want)
	case got == want:
	case s.alsoErr != 0 && got.errno == s.alsoErr:
	case slices.Contains(s.also, got):
	default:
		cl.lt.fail("%s: %s %s (%s):\nshoal   %s\nmariadb %s", cl.where(), kind, s.text(), proto, got, want)
	}
	if got.errno != 0 || got.rows != want.rows {
		cl.probe("after " + kind)
	}
}

// probe checks the connection serves and sees its own session state.
func (cl *loadClient) probe(what string) {
	lt := cl.lt
	// CONNECTION_ID() in a statement Shoal passes through is the session's
	// id, as the bare SELECT CONNECTION_ID() the client connected with.
	q := "SELECT @@session.group_concat_max_len, @load_me, @@session.sql_select_limit, @@session.max_statement_time, CONNECTION_ID(), DATABASE()"
	var gcml, limit, myVar sql.NullString
	var mst sql.NullFloat64
	var id int64
	var db sql.NullString
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var err error
	if cl.rng.IntN(2) == 0 {
		err = cl.c.QueryRowContext(ctx, q).Scan(&gcml, &myVar, &limit, &mst, &id, &db)
	} else {
		err = cl.c.QueryRowContext(ctx, q+" FROM DUAL WHERE ? = 1", 1).Scan(&gcml, &myVar, &limit, &mst, &id, &db)
	}
	lt.ran("session")
	if err != nil {
		lt.fail("%s: session probe %s: %v", cl.where(), what, err)
		return
	}
	want := fmt.Sprintf("%d|%s|%s|0|%d|ontime", lt.globalGCML, cl.myVar, lt.globalLimit, cl.id)
	if cl.gcml != 0 {
		want = fmt.Sprintf("%d|%s|%s|0|%d|ontime", cl.gcml, cl.myVar, lt.globalLimit, cl.id)
	}
	if cl.limit != 0 {
		want = strings.Replace(want, "|"+lt.globalLimit+"|", fmt.Sprintf("|%d|", cl.limit), 1)
	}
	gotS := fmt.Sprintf("%s|%s|%s|%g|%d|%s", gcml.String, myVar.String, limit.String, mst.Float64, id, db.String)
	if gotS != want {
		lt.fail("%s: session probe %s: got %s, want %s (group_concat_max_len|@load_me|sql_select_limit|max_statement_time|CONNECTION_ID()|DATABASE())", cl.where(), what, gotS, want)
	}
}

func (cl *loadClient) exec(kind, q string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := cl.c.ExecContext(ctx, q)
	cl.lt.ran(kind)
	if err != nil {
		cl.lt.fail("%s: %s: %v", cl.where(), q, err)
		return false
	}
	return true
}

func (cl *loadClient) write() {
	q := loadWrites[cl.rng.IntN(len(loadWrites))]
	s := loadStmt{tmpl: q}
	cl.lt.ran("write")
	cl.verdict("write", s, false, cl.run(s, false), loadAnswer{errno: 1290})
}

// session sets or clears a session variable or a user variable, then
// checks the session sees it.
func (cl *loadClient) session() {
	switch cl.rng.IntN(5) {
	case 4:
		// Another database, seen by this session only, and back.
		if cl.exec("session", "USE information_schema") {
			var db sql.NullString
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			err := cl.c.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&db)
			cancel()
			if err != nil || db.String != "information_schema" {
				cl.lt.fail("%s: DATABASE() after USE information_schema: %q %v", cl.where(), db.String, err)
			}
			cl.exec("session", "USE ontime")
		}
	case 0:
		v := 4096 + cl.i*1000 + cl.k%1000
		if cl.exec("session", fmt.Sprintf("SET SESSION group_concat_max_len = %d", v)) {
			cl.gcml = v
		}
	case 1:
		if cl.exec("session", "SET SESSION group_concat_max_len = DEFAULT") {
			cl.gcml = 0
		}
	case 2:
		v := fmt.Sprintf("c%d-%d", cl.i, cl.k)
		if cl.exec("session", "SET @load_me = '"+v+"'") {
			cl.myVar = v
		}
	default:
		if cl.exec("session", "SET @load_me = NULL") {
			cl.myVar = ""
		}
	}
	cl.probe("after SET")
}

// setLimit sets or clears sql_select_limit: the answers after it are the
// primary's under the same limit.
func (cl *loadClient) setLimit() {
	if cl.limit == 0 {
		v := 1 + cl.rng.IntN(4)
		if cl.exec("limit", fmt.Sprintf("SET SESSION sql_select_limit = %d", v)) {
			cl.limit = v
		}
	} else if cl.exec("limit", "SET SESSION sql_select_limit = DEFAULT") {
		cl.limit = 0
	}
	cl.probe("after sql_select_limit")
}

// timeout runs a statement past a statement time limit: MariaDB's
// answer to it (SLEEP), or for a real statement its answer or the
// timeout's error.
func (cl *loadClient) timeout() {
	r := cl.rng
	// Under load MariaDB's statement timer sometimes lets SLEEP end
	// interrupted without the error (1), or not at all (0): seen directly
	// on a replica under this load (8 of 480), so both are its answers.
	slept := []loadAnswer{{rows: "slept\n1|\n"}, {rows: "slept\n0|\n"}}
	switch r.IntN(4) {
	case 0:
		s := loadStmt{tmpl: "SET STATEMENT max_statement_time = 0.2 FOR SELECT SLEEP(3) AS slept", also: slept}
		cl.verdict("timeout", s, false, cl.run(s, false), cl.expected(s, false))
	case 1:
		if !cl.exec("timeout", "SET SESSION max_statement_time = 0.2") {
			return
		}
		s := loadStmt{tmpl: "SELECT SLEEP(3) AS slept", also: slept}
		got := cl.run(s, r.IntN(2) == 0)
		want := cl.expected(s, false, "max_statement_time=0.2")
		cl.exec("timeout", "SET SESSION max_statement_time = DEFAULT")
		cl.verdict("timeout", s, false, got, want)
		cl.probe("after max_statement_time")
	case 2:
		if !cl.exec("timeout", "SET SESSION max_statement_time = 0.001") {
			return
		}
		s := loadAggregates[r.IntN(len(loadAggregates))](r)
		s.alsoErr = 1969
		binary := r.IntN(2) == 0
		got := cl.run(s, binary)
		cl.exec("timeout", "SET SESSION max_statement_time = DEFAULT")
		cl.verdict("timeout", s, binary, got, cl.expected(s, binary))
		cl.probe("after max_statement_time")
	default:
		// MariaDB 10.11 reads optimizer hints as a comment.
		s := loadAggregates[r.IntN(len(loadAggregates))](r)
		s.tmpl = strings.Replace(s.tmpl, "SELECT ", "SELECT /*+ MAX_EXECUTION_TIME(1) */ ", 1)
		binary := r.IntN(2) == 0
		cl.verdict("timeout", s, binary, cl.run(s, binary), cl.expected(s, binary))
	}
}

// killQuery kills this connection's SELECT SLEEP from the admin pool once
// Shoal's processlist shows it: MariaDB's answer to a killed SLEEP.
func (cl *loadClient) killQuery() {
	lt := cl.lt
	marker := fmt.Sprintf("load_k_%d_%d", cl.i, cl.k)
	s := loadStmt{tmpl: "SELECT SLEEP(30) AS " + marker}
	ch := make(chan loadAnswer, 1)
	go func() { ch <- cl.run(s, false) }()
	if !lt.waitRunning(lt.admin, cl.id, marker) {
		lt.fail("%s: %s never showed in the processlist", cl.where(), s.tmpl)
	}
	if _, err := lt.admin.Exec("KILL QUERY " + itoa(cl.id)); err != nil {
		lt.fail("%s: KILL QUERY %d: %v", cl.where(), cl.id, err)
	}
	got := <-ch
	lt.ran("kill-query")
	cl.verdict("kill-query", s, false, got, lt.killAnswer)
	cl.probe("after KILL QUERY")
}

// killRace kills whatever this connection runs after a short random
// delay: the statement's answer or 1317; the session goes on.
func (cl *loadClient) killRace() {
	lt, r := cl.lt, cl.rng
	s := loadAggregates[r.IntN(len(loadAggregates))](r)
	if r.IntN(3) == 0 {
		s = loadPassthrough[r.IntN(len(loadPassthrough))](r)
	}
	s.alsoErr = 1317
	binary := r.IntN(2) == 0
	want := cl.expected(s, binary)
	delay := time.Duration(r.IntN(30)) * time.Millisecond
	ch := make(chan loadAnswer, 1)
	go func() { ch <- cl.run(s, binary) }()
	time.Sleep(delay)
	if _, err := lt.admin.Exec("KILL QUERY " + itoa(cl.id)); err != nil {
		lt.fail("%s: KILL QUERY %d: %v", cl.where(), cl.id, err)
	}
	got := <-ch
	lt.ran("kill-race")
	cl.verdict("kill-race", s, binary, got, want)
	cl.probe("after a racing KILL QUERY")
}

// killConnection kills this connection, idle or running: it must stop
// serving; the client connects again.
func (cl *loadClient) killConnection() {
	lt, r := cl.lt, cl.rng
	running := r.IntN(2) == 0
	ch := make(chan loadAnswer, 1)
	if running {
		s := loadAggregates[r.IntN(len(loadAggregates))](r)
		if r.IntN(2) == 0 {
			// A big result read slowly: the coordinator is writing it.
			s = loadBig[r.IntN(len(loadBig))](r)
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				ch <- answerOf(slowString(cl.c.QueryContext(ctx, s.text())))
			}()
			time.Sleep(200 * time.Millisecond)
		} else {
			go func() { ch <- cl.run(s, false) }()
		}
		time.Sleep(time.Duration(r.IntN(30)) * time.Millisecond)
	}
	if _, err := lt.admin.Exec("KILL CONNECTION " + itoa(cl.id)); err != nil {
		lt.fail("%s: KILL CONNECTION %d: %v", cl.where(), cl.id, err)
	}
	if running {
		got := <-ch
		if got.errno == 1105 {
			lt.fail("%s: statement on a killed connection: error 1105", cl.where())
		}
	}
	lt.ran("kill-connection")
	// A killed connection may still answer the statement in flight; the
	// next one must fail.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var n int
	err := cl.c.QueryRowContext(ctx, "SELECT 1").Scan(&n)
	var me *mysql.MySQLError
	if err == nil {
		lt.fail("%s: a killed connection still serves", cl.where())
	} else if errors.As(err, &me) && me.Number == 1105 {
		lt.fail("%s: killed connection: error 1105", cl.where())
	}
	cl.close()
}

// cancel starts a statement and cancels it on the client side before or
// while its result is read: go-sql-driver closes the connection.
func (cl *loadClient) cancel() {
	r := cl.rng
	s := loadBig[r.IntN(len(loadBig))](r)
	if r.IntN(2) == 0 {
		s = loadAggregates[r.IntN(len(loadAggregates))](r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	after := r.IntN(200)
	if r.IntN(3) == 0 {
		time.AfterFunc(time.Duration(r.IntN(20))*time.Millisecond, cancel)
		after = 1 << 30
	}
	var rows *sql.Rows
	var err error
	if r.IntN(2) == 0 {
		rows, err = cl.c.QueryContext(ctx, s.tmpl, s.args...)
	} else {
		rows, err = cl.c.QueryContext(ctx, s.text())
	}
	cl.lt.ran("cancel")
	if err == nil {
		for n := 0; rows.Next(); n++ {
			if n == after {
				cancel()
			}
		}
		err = rows.Err()
		rows.Close()
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.Number == 1105 {
		cl.lt.fail("%s: cancelled %s: error 1105", cl.where(), s.text())
	}
	if ctx.Err() != nil {
		cl.close() // the driver closed it
		return
	}
	cl.verdict("cancel", s, false, answerOf("", err), answerOf("", nil))
}

// slowRead reads a big result with pauses and compares it whole.
func (cl *loadClient) slowRead() {
	r := cl.rng
	s := loadBig[r.IntN(len(loadBig))](r)
	binary := r.IntN(2) == 0
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var rows *sql.Rows
	var err error
	if binary {
		rows, err = cl.c.QueryContext(ctx, s.tmpl, s.args...)
	} else {
		rows, err = cl.c.QueryContext(ctx, s.text())
	}
	got := answerOf(slowString(rows, err))
	cl.lt.ran("slow-read")
	cl.verdict("slow-read", s, binary, got, cl.expected(s, binary))
}

// slowString is rowsString2 read slowly: a pause before the first row
// (the server fills the socket and waits) and every 500 rows.
func slowString(rows *sql.Rows, err error) (string, error) { return rowsText(rows, err, true) }

// prepareLeak prepares a statement, runs it once and never closes it.
func (cl *loadClient) prepareLeak() {
	r := cl.rng
	s := loadAggregates[r.IntN(len(loadAggregates))](r)
	if r.IntN(2) == 0 {
		s = loadPoint[r.IntN(len(loadPoint))](r)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := cl.c.PrepareContext(ctx, s.tmpl)
	cl.lt.ran("prepare-leak")
	if err != nil {
		cl.lt.fail("%s: prepare %s: %v", cl.where(), s.tmpl, err)
		return
	}
	if len(cl.leaked) < 40 {
		cl.leaked = append(cl.leaked, st) // closed with the connection
	}
	got := answerOf(rowsString2(st.QueryContext(ctx, s.args...)))
	cl.verdict("prepare-leak", s, true, got, cl.expected(s, true))
}
