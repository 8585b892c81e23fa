package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The JDBC client test: MariaDB Connector/J (Debian's libmariadb-java; the
// driver BI tools such as DBeaver and Metabase ship for MariaDB, and the
// one Debian packages — MySQL's Connector/J is not packaged) runs
// e2e/clients/java/JdbcClient.java against Shoal and the primary.

// jdbcJar is MariaDB Connector/J's jar: $SHOAL_JDBC_JAR, else where
// Debian's libmariadb-java puts it.
func jdbcJar() string {
	if j := os.Getenv("SHOAL_JDBC_JAR"); j != "" {
		return j
	}
	return "/usr/share/java/mariadb-java-client.jar"
}

// needClient skips a client test whose client is not installed, or fails
// it under CI (CI set, as CI services do), where scripts/deps.sh must have
// installed it.
func needClient(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf(format, args...)
	}
	clientSkip(t, format, args...)
}

// splitServers cuts the client's output into one slice of lines per
// "=== server N" section.
func splitServers(out string) [][]string {
	var sections [][]string
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if strings.HasPrefix(line, "=== server ") {
			sections = append(sections, nil)
			continue
		}
		if len(sections) > 0 {
			sections[len(sections)-1] = append(sections[len(sections)-1], line)
		}
	}
	return sections
}

func TestJDBC(t *testing.T) {
	java, err := exec.LookPath("java")
	if err != nil {
		needClient(t, "java is not installed: JDBC client test skipped (apt-get install -y default-jre-headless libmariadb-java; scripts/deps.sh does it)")
	}
	jar := jdbcJar()
	if _, err := os.Stat(jar); err != nil {
		needClient(t, "MariaDB Connector/J is not at %s: JDBC client test skipped (apt-get install -y libmariadb-java, or set SHOAL_JDBC_JAR)", jar)
	}
	before := scrape(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// One JVM for both servers: Shoal first, then the primary.
	cmd := exec.CommandContext(ctx, java, "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", jar,
		filepath.Join("clients", "java", "JdbcClient.java"),
		env.cluster.User, env.cluster.Password, env.cluster.Database,
		env.coord.Addr().String(), env.cluster.Primary)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, stderr.String())
	}
	t.Logf("JDBC client ran in %s", time.Since(start).Round(time.Millisecond))
	servers := splitServers(stdout.String())
	if len(servers) != 2 {
		t.Fatalf("want 2 server sections, got %d:\n%s\n%s", len(servers), stdout.String(), stderr.String())
	}
	got, want := servers[0], servers[1]
	compareLines(t, got, want)
	text := strings.Join(want, "\n")
	for _, must := range []string{"# getColumns ontime", "# distributed aggregate", "# prepared aggregate again", "error\t1064", "# mariadb scheme"} {
		if !strings.Contains(text, must) {
			t.Errorf("the client's output lacks %q:\n%s", must, text)
		}
	}
	after := scrape(t)
	// Three prepared statements, four executions: the driver prepared on
	// the server (useServerPrepStmts=true).
	if d := after.get(`shoal_prepared_executions_total`) - before.get(`shoal_prepared_executions_total`); d < 4 {
		t.Errorf("prepared executions went up by %v, want at least 4: the driver did not use server-side prepare", d)
	}
	if d := after.get(`shoal_queries_total{kind="distributed",outcome="ok"}`) - before.get(`shoal_queries_total{kind="distributed",outcome="ok"}`); d < 5 {
		t.Errorf("distributed queries went up by %v, want at least 5", d)
	}
}
