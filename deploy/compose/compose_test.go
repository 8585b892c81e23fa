// Package compose holds the container deployment's configuration
// (docker-compose.yml, docker-compose.mariadb.yml and the files they mount);
// this test checks it without a container engine. The MySQL 8.4 flavour
// cannot run here (no registry): its replication set-up is kept correct by
// these checks and by review, and the MariaDB flavour also runs end to end
// (scripts/compose-test.sh, package deploy/compose/e2e).
package compose

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/shoaldb/shoal/config"
)

const root = "../.."

// service is what the test reads of a compose service.
type service struct {
	Image       string                       `yaml:"image"`
	Entrypoint  []string                     `yaml:"entrypoint"`
	Command     []string                     `yaml:"command"`
	Volumes     []string                     `yaml:"volumes"`
	Ports       []string                     `yaml:"ports"`
	Restart     string                       `yaml:"restart"`
	Profiles    []string                     `yaml:"profiles"`
	DependsOn   map[string]map[string]string `yaml:"depends_on"`
	Healthcheck *struct {
		Test []string `yaml:"test"`
	} `yaml:"healthcheck"`
	Environment map[string]string `yaml:"environment"`
}

type composeFile struct {
	Services map[string]*service `yaml:"services"`
	Volumes  map[string]any      `yaml:"volumes"`
}

func load(t *testing.T, name string) composeFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		t.Fatal(err)
	}
	var f composeFile
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return f
}

// merge applies an override file as Compose does for the keys used here:
// scalars and command/entrypoint replace, volumes merge by container path.
func merge(base, over composeFile) composeFile {
	out := composeFile{Services: map[string]*service{}, Volumes: base.Volumes}
	for name, s := range base.Services {
		c := *s
		c.Volumes = slices.Clone(s.Volumes)
		out.Services[name] = &c
	}
	for name, o := range over.Services {
		s, ok := out.Services[name]
		if !ok {
			out.Services[name] = o
			continue
		}
		if o.Image != "" {
			s.Image = o.Image
		}
		if o.Entrypoint != nil {
			s.Entrypoint = o.Entrypoint
		}
		if o.Command != nil {
			s.Command = o.Command
		}
		for _, v := range o.Volumes {
			i := slices.IndexFunc(s.Volumes, func(b string) bool { return target(b) == target(v) })
			if i >= 0 {
				s.Volumes[i] = v
			} else {
				s.Volumes = append(s.Volumes, v)
			}
		}
	}
	return out
}

// target is a volume's container path ("src:target[:mode]").
func target(v string) string {
	p := strings.Split(v, ":")
	if len(p) < 2 {
		return v
	}
	return p[1]
}

// mounted returns the host file mounted at path in s, "" if none.
func mounted(s *service, path string) string {
	for _, v := range s.Volumes {
		if p := strings.Split(v, ":"); len(p) >= 2 && p[1] == path {
			return filepath.Join(root, p[0])
		}
	}
	return ""
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// stripComments drops SQL line comments.
func stripComments(sql string) string {
	var out []string
	for _, l := range strings.Split(sql, "\n") {
		if i := strings.Index(l, "--"); i >= 0 {
			l = l[:i]
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

type flavour struct {
	name      string
	f         composeFile
	dbImage   string
	shoal     string
	must      []string // flags every server has
	replica   []string // flags every replica has
	forbidden []string // flag prefixes of the other flavour
	// The replica's init SQL: statements that must be there and words of
	// the other flavour that must not.
	replSQL   []*regexp.Regexp
	replNot   []string
	entryMust string // entrypoint script, "" for the image's own
}

func flavours(t *testing.T) []flavour {
	base := load(t, "docker-compose.yml")
	maria := merge(base, load(t, "docker-compose.mariadb.yml"))
	common := []string{"--log-bin=binlog", "--binlog-format=ROW", "--innodb-buffer-pool-size=${BUFFER_POOL:-256M}"}
	return []flavour{{
		name:      "mysql-8.4",
		f:         base,
		dbImage:   "${SHOAL_MYSQL_IMAGE:-mysql:8.4}",
		shoal:     "${SHOAL_IMAGE:-shoal:latest}",
		must:      append(slices.Clone(common), "--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--log-replica-updates=ON"),
		replica:   []string{"--read-only=ON"},
		forbidden: []string{"--log-slave-updates", "--gtid-strict-mode", "--gtid-domain-id", "--skip-slave-start"},
		replSQL: []*regexp.Regexp{
			regexp.MustCompile(`(?s)CHANGE REPLICATION SOURCE TO .*SOURCE_HOST='primary'`),
			regexp.MustCompile(`(?s)CHANGE REPLICATION SOURCE TO .*SOURCE_AUTO_POSITION=1`),
			// 8.4's default caching_sha2_password over a connection
			// without TLS needs the source's RSA key.
			regexp.MustCompile(`(?s)CHANGE REPLICATION SOURCE TO .*GET_SOURCE_PUBLIC_KEY=1`),
			regexp.MustCompile(`(?m)^START REPLICA;`),
		},
		// Removed in 8.4 or MariaDB's.
		replNot: []string{"MASTER_", "START SLAVE", "CHANGE MASTER"},
	}, {
		name:      "mariadb",
		f:         maria,
		dbImage:   "${SHOAL_MARIADB_IMAGE:-shoal-mariadb:local}",
		shoal:     "${SHOAL_IMAGE:-shoal:local}",
		must:      append(slices.Clone(common), "--gtid-strict-mode=ON", "--gtid-domain-id=0", "--log-slave-updates=ON"),
		replica:   []string{"--read-only=ON"},
		forbidden: []string{"--gtid-mode", "--enforce-gtid-consistency", "--log-replica-updates"},
		replSQL: []*regexp.Regexp{
			regexp.MustCompile(`(?s)CHANGE MASTER TO .*MASTER_HOST='primary'`),
			regexp.MustCompile(`(?s)CHANGE MASTER TO .*MASTER_USE_GTID=slave_pos`),
			regexp.MustCompile(`(?m)^START SLAVE;`),
		},
		replNot:   []string{"SOURCE_", "REPLICA"},
		entryMust: "/shoal/mariadb-entrypoint.sh",
	}}
}

var servers = []string{"primary", "replica1", "replica2"}

// TestFlavours checks each flavour's servers: images, binlog and GTID
// flags, distinct server ids, the init SQL mounted and what it says.
func TestFlavours(t *testing.T) {
	for _, fl := range flavours(t) {
		t.Run(fl.name, func(t *testing.T) {
			ids := map[string]string{}
			for _, name := range servers {
				s := fl.f.Services[name]
				if s == nil {
					t.Fatalf("no service %s", name)
				}
				if s.Image != fl.dbImage {
					t.Errorf("%s image %q, want %q", name, s.Image, fl.dbImage)
				}
				want := slices.Clone(fl.must)
				if name != "primary" {
					want = append(want, fl.replica...)
				}
				for _, f := range want {
					if !slices.Contains(s.Command, f) {
						t.Errorf("%s: command lacks %s: %v", name, f, s.Command)
					}
				}
				for _, c := range s.Command {
					for _, bad := range fl.forbidden {
						if strings.HasPrefix(c, bad) {
							t.Errorf("%s: %s is the other flavour's flag", name, c)
						}
					}
					if id, ok := strings.CutPrefix(c, "--server-id="); ok {
						if other, dup := ids[id]; dup {
							t.Errorf("%s and %s share server-id %s", name, other, id)
						}
						ids[id] = name
					}
				}
				if len(ids) == 0 {
					t.Errorf("%s: no --server-id", name)
				}
				if name == "primary" && !slices.Contains(s.Command, "--local-infile=1") {
					t.Errorf("primary: the loader needs --local-infile=1")
				}
				if fl.entryMust != "" {
					if !slices.Contains(s.Entrypoint, fl.entryMust) || mounted(s, fl.entryMust) == "" {
						t.Errorf("%s: entrypoint %v, want %s mounted", name, s.Entrypoint, fl.entryMust)
					}
				}
				if s.Healthcheck == nil || !slices.Contains(s.Healthcheck.Test, "/shoal/dbcheck.sh") || mounted(s, "/shoal/dbcheck.sh") == "" {
					t.Errorf("%s: healthcheck is not dbcheck.sh (mounted)", name)
				}
				init := mounted(s, "/docker-entrypoint-initdb.d/01-"+map[bool]string{true: "primary", false: "replica"}[name == "primary"]+".sql")
				if init == "" {
					t.Fatalf("%s: no init SQL mounted: %v", name, s.Volumes)
				}
				if strings.Contains(init, "/mariadb/") != (fl.name == "mariadb") {
					t.Errorf("%s: init SQL %s is not the flavour's", name, init)
				}
				sql := stripComments(read(t, init))
				if name == "primary" {
					for _, w := range []string{"CREATE USER 'repl'@'%' IDENTIFIED BY 'repl';", "GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%';"} {
						if !strings.Contains(sql, w) {
							t.Errorf("primary init %s lacks %q", init, w)
						}
					}
					continue
				}
				for _, re := range fl.replSQL {
					if !re.MatchString(sql) {
						t.Errorf("%s init %s does not match %s:\n%s", name, init, re, sql)
					}
				}
				for _, w := range fl.replNot {
					if strings.Contains(sql, w) {
						t.Errorf("%s init %s says %s, the other flavour's word", name, init, w)
					}
				}
				// The account the replica logs in with is the primary's
				// (and dbcheck.sh's default).
				for _, w := range []string{"USER='repl'", "PASSWORD='repl'"} {
					if !strings.Contains(sql, w) {
						t.Errorf("%s init %s lacks %s", name, init, w)
					}
				}
			}
		})
	}
}

// TestOrdering: the loader is a one-shot job the benchmark waits for,
// readiness means caught up, and the long-running Shoal processes restart.
func TestOrdering(t *testing.T) {
	for _, fl := range flavours(t) {
		t.Run(fl.name, func(t *testing.T) {
			s := fl.f.Services
			dep := func(from, to, cond string) {
				t.Helper()
				if got := s[from].DependsOn[to]["condition"]; got != cond {
					t.Errorf("%s depends on %s with %q, want %q", from, to, got, cond)
				}
			}
			dep("replica1", "primary", "service_healthy")
			dep("replica2", "primary", "service_healthy")
			for _, r := range []string{"primary", "replica1", "replica2"} {
				dep("loader", r, "service_healthy")
			}
			dep("replicated", "loader", "service_completed_successfully")
			dep("worker1", "replica1", "service_healthy")
			dep("worker2", "replica2", "service_healthy")
			dep("coordinator", "worker1", "service_healthy")
			dep("coordinator", "worker2", "service_healthy")
			dep("coordinator", "replicated", "service_completed_successfully")
			dep("worker1", "certs", "service_completed_successfully")
			dep("worker2", "certs", "service_completed_successfully")
			if c := strings.Join(s["certs"].Command, " "); !strings.HasPrefix(c, "certs --dir /var/lib/shoal/certs ") ||
				!strings.Contains(c, " coordinator") || !strings.Contains(c, " worker1") || !strings.Contains(c, " worker2") {
				t.Errorf("certs: %s: want certificates for the coordinator and both workers", c)
			}
			for _, name := range []string{"certs", "worker1", "worker2", "coordinator"} {
				if !slices.ContainsFunc(s[name].Volumes, func(v string) bool { return strings.HasPrefix(v, "certs:/var/lib/shoal/certs") }) {
					t.Errorf("%s does not mount the certs volume at /var/lib/shoal/certs: %v", name, s[name].Volumes)
				}
			}
			dep("bench", "coordinator", "service_healthy")
			if c := s["replicated"].Command; !slices.Equal(c, []string{"wait", "replica1", "replica2"}) || s["replicated"].Image != fl.dbImage {
				t.Errorf("replicated: %s %v", s["replicated"].Image, c)
			}
			for _, name := range []string{"worker1", "worker2", "coordinator"} {
				if s[name].Restart != "unless-stopped" {
					t.Errorf("%s restart %q", name, s[name].Restart)
				}
				if s[name].Healthcheck == nil || !strings.Contains(strings.Join(s[name].Healthcheck.Test, " "), "/healthz") {
					t.Errorf("%s: healthcheck is not /healthz", name)
				}
			}
			for _, name := range []string{"loader", "worker1", "worker2", "coordinator", "bench"} {
				if s[name].Image != fl.shoal {
					t.Errorf("%s image %q, want %q", name, s[name].Image, fl.shoal)
				}
			}
			if l := strings.Join(s["loader"].Command, " "); !strings.HasPrefix(l, "gen ") || !strings.Contains(l, "--rows ${ROWS:-200000}") || !strings.Contains(l, "--if-missing") {
				t.Errorf("loader: %s", l)
			}
			b := s["bench"]
			if !slices.Contains(b.Profiles, "bench") || slices.Contains(b.Command, "-v") ||
				!strings.Contains(strings.Join(b.Command, " "), "--queries core") {
				t.Errorf("bench: profiles %v command %v: want the bench profile, --queries core, no -v (row dumps)", b.Profiles, b.Command)
			}
			for _, v := range []string{"primary-data", "replica1-data", "replica2-data", "certs"} {
				if _, ok := fl.f.Volumes[v]; !ok {
					t.Errorf("no volume %s", v)
				}
			}
		})
	}
}

// TestShoalConfigs: the mounted coordinator, worker and bench configs name
// the compose services, and load with unknown keys rejected.
func TestShoalConfigs(t *testing.T) {
	f := load(t, "docker-compose.yml")
	var c config.Coordinator
	if err := config.Load(mounted(f.Services["coordinator"], "/etc/shoal/coordinator.yaml"), &c); err != nil {
		t.Fatal(err)
	}
	c.Defaults()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.HTTPListen == nil || !strings.HasPrefix(*c.HTTPListen, "0.0.0.0:4080") || !strings.HasPrefix(c.Listen, "0.0.0.0:4000") {
		t.Errorf("coordinator listens on %s, http %v: the published ports need 0.0.0.0", c.Listen, c.HTTPListen)
	}
	for i, name := range []string{"worker1", "worker2"} {
		var w config.Worker
		if err := config.Load(mounted(f.Services[name], "/etc/shoal/"+name+".yaml"), &w); err != nil {
			t.Fatal(err)
		}
		w.Defaults()
		if err := w.Validate(); err != nil {
			t.Fatal(err)
		}
		if w.TLSCert != "/var/lib/shoal/certs/"+name+".pem" || w.TLSClientCA != "/var/lib/shoal/certs/ca.pem" || w.Plaintext {
			t.Errorf("%s: tls_cert %q tls_client_ca %q plaintext %v: want mutual TLS with the certs service's files", name, w.TLSCert, w.TLSClientCA, w.Plaintext)
		}
		if want := servers[i+1] + ":3306"; w.MySQL != want {
			t.Errorf("%s reads %s, want %s", name, w.MySQL, want)
		}
		if c.Replicas[i].MySQL != servers[i+1]+":3306" || c.Replicas[i].Worker != name+":4100" {
			t.Errorf("coordinator replicas[%d] = %+v", i, c.Replicas[i])
		}
	}
	e2e := load(t, "deploy/compose/e2e/docker-compose.e2e.yml")
	var ce config.Coordinator
	if err := config.Load(mounted(e2e.Services["coordinator"], "/etc/shoal/coordinator.yaml"), &ce); err != nil {
		t.Fatal(err)
	}
	ce.Defaults()
	if err := ce.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, co := range []config.Coordinator{c, ce} {
		if co.WorkerTLSCA != "/var/lib/shoal/certs/ca.pem" || co.WorkerTLSCert != "/var/lib/shoal/certs/coordinator.pem" || co.WorkerPlaintext {
			t.Errorf("coordinator worker_tls_ca %q worker_tls_cert %q: want the certs service's CA and client certificate", co.WorkerTLSCA, co.WorkerTLSCert)
		}
	}
	if !slices.EqualFunc(ce.Replicas, c.Replicas, func(a, b config.Replica) bool { return a == b }) {
		t.Errorf("e2e coordinator replicas %v differ from %v", ce.Replicas, c.Replicas)
	}
	cluster := read(t, mounted(f.Services["bench"], "/etc/shoal/cluster/cluster.json"))
	for _, w := range []string{`"coordinator:4000"`, `"primary:3306"`, `"replica1:3306"`, `"worker1:4100"`, `"replica2:3306"`, `"worker2:4100"`} {
		if !strings.Contains(cluster, w) {
			t.Errorf("cluster.json lacks %s", w)
		}
	}
}

// TestDockerignore: the build context leaves out history, data and builds.
func TestDockerignore(t *testing.T) {
	lines := strings.Fields(read(t, filepath.Join(root, ".dockerignore")))
	for _, want := range []string{".git", ".local", "bin", "tmp", "*.test"} {
		if !slices.Contains(lines, want) {
			t.Errorf(".dockerignore lacks %s", want)
		}
	}
}

// TestDBCheck: the readiness script asks each flavour in its own words.
func TestDBCheck(t *testing.T) {
	s := read(t, "dbcheck.sh")
	for _, w := range []string{
		"SELECT @@GLOBAL.gtid_binlog_pos", "MASTER_GTID_WAIT(", "SHOW SLAVE STATUS", "Slave_SQL_Running: Yes", // MariaDB
		"@@GLOBAL.gtid_executed", "GTID_SUBSET(", "WAIT_FOR_EXECUTED_GTID_SET(", "SHOW REPLICA STATUS", "Replica_SQL_Running: Yes", // MySQL
	} {
		if !strings.Contains(s, w) {
			t.Errorf("dbcheck.sh lacks %s", w)
		}
	}
}

// TestSecrets: each secret of the compose cluster has one source. The
// cluster secret is SHOAL_CLUSTER_SECRET, set once (the x-shoal anchor) and
// the same in every shoal service, never also in a config file (which the
// variable would silently override); no service sets a retired variable.
// The replica account's password is one value: what the servers allow
// (an empty root password), the workers' password, the coordinator's
// replica_password and the bench's cluster.json.
func TestSecrets(t *testing.T) {
	f := load(t, "docker-compose.yml")
	secret := ""
	for _, name := range []string{"certs", "loader", "worker1", "worker2", "coordinator", "bench"} {
		env := f.Services[name].Environment
		v, ok := env[config.SecretEnv]
		if !ok || v == "" {
			t.Errorf("%s: no %s in its environment", name, config.SecretEnv)
		} else if secret == "" {
			secret = v
		} else if v != secret {
			t.Errorf("%s: %s=%q, another service has %q: one value for the cluster", name, config.SecretEnv, v, secret)
		}
		for k := range env {
			if k == "SHOAL_WORKER_PASSWORD" {
				t.Errorf("%s sets the retired %s (config.CheckEnv refuses to start): use %s", name, k, config.ReplicaPasswordEnv)
			}
		}
	}
	n := 0
	for _, l := range strings.Split(read(t, filepath.Join(root, "docker-compose.yml")), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), config.SecretEnv+":") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("docker-compose.yml sets %s %d times, want once (the x-shoal anchor)", config.SecretEnv, n)
	}
	t.Setenv(config.SecretEnv, "") // the files' own values, not the environment's
	var c config.Coordinator
	if err := config.Load(mounted(f.Services["coordinator"], "/etc/shoal/coordinator.yaml"), &c); err != nil {
		t.Fatal(err)
	}
	e2e := load(t, "deploy/compose/e2e/docker-compose.e2e.yml")
	var ce config.Coordinator
	if err := config.Load(mounted(e2e.Services["coordinator"], "/etc/shoal/coordinator.yaml"), &ce); err != nil {
		t.Fatal(err)
	}
	for _, co := range []config.Coordinator{c, ce} {
		if co.ClusterSecret != "" {
			t.Errorf("a coordinator config sets cluster_secret: it comes from %s only", config.SecretEnv)
		}
		if co.ReplicaPassword != "" {
			t.Errorf("coordinator replica_password %q: the servers' root has no password", co.ReplicaPassword)
		}
	}
	for _, name := range []string{"worker1", "worker2"} {
		var w config.Worker
		if err := config.Load(mounted(f.Services[name], "/etc/shoal/"+name+".yaml"), &w); err != nil {
			t.Fatal(err)
		}
		if w.ClusterSecret != "" {
			t.Errorf("%s's config sets cluster_secret: it comes from %s only", name, config.SecretEnv)
		}
		if w.Password != "" {
			t.Errorf("%s password %q: the servers' root has no password", name, w.Password)
		}
	}
	var cl struct {
		Password *string `json:"password"`
	}
	if err := json.Unmarshal([]byte(read(t, mounted(f.Services["bench"], "/etc/shoal/cluster/cluster.json"))), &cl); err != nil {
		t.Fatal(err)
	}
	if cl.Password == nil || *cl.Password != "" {
		t.Errorf("cluster.json password %v: the servers' root has no password", cl.Password)
	}
	if env := f.Services["primary"].Environment; env["MYSQL_ALLOW_EMPTY_PASSWORD"] != "yes" || env["MYSQL_ROOT_PASSWORD"] != "" {
		t.Errorf("the servers' environment %v: the workers, coordinator and bench connect as root without a password", env)
	}
}
