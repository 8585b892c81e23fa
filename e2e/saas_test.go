package e2e

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
)

// The SaaS hunt: the schemas a multi-tenant product keeps, unlike
// ontime's: a composite (tenant_id, id) primary key with a few huge
// tenants and hundreds of tiny ones, UUID keys (CHAR(36)
// utf8mb4_general_ci, VARCHAR(36), BINARY(16): random, so key order is not
// insert order), DATETIME(6)/TIMESTAMP(6), DECIMAL(19,4) money, BIGINT
// UNSIGNED counters, TINYINT(1) booleans, ENUM/SET, JSON (LONGTEXT with
// json_valid), VIRTUAL and STORED generated columns, soft deletes,
// NULL-heavy and long text with emoji and accents under
// utf8mb4_unicode_ci and _unicode_520_ci, and a legacy latin1 table.

// saasUUID is a random-looking, deterministic UUID of the row's n.
func saasUUID(salt, n string) string {
	m := "MD5(CONCAT('" + salt + "', " + n + "))"
	return "CONCAT(SUBSTR(" + m + ",1,8),'-',SUBSTR(" + m + ",9,4),'-4',SUBSTR(" + m + ",14,3),'-a',SUBSTR(" + m + ",18,3),'-',SUBSTR(" + m + ",21,12))"
}

// saasTenant spreads n over tenants: 1, 2 and 3 hold 70% of the rows,
// 4..503 the rest.
const saasTenant = "CASE WHEN id % 10 < 4 THEN 1 WHEN id % 10 < 6 THEN 2 WHEN id % 10 = 6 THEN 3 ELSE 4 + (id * 7919) % 500 END"

func createSaaSTables(t *testing.T) {
	t.Helper()
	directExec(t,
		"DROP TABLE IF EXISTS saas_events, saas_invoices, saas_accounts, saas_legacy",
		`CREATE TABLE saas_accounts (
		  id CHAR(36) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NOT NULL PRIMARY KEY,
		  tenant_id INT UNSIGNED NOT NULL,
		  name VARCHAR(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NOT NULL,
		  email VARCHAR(190) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci NULL,
		  plan ENUM('free','pro','enterprise') NOT NULL DEFAULT 'free',
		  features SET('sso','audit','beta','api') NOT NULL DEFAULT '',
		  is_active TINYINT(1) NOT NULL DEFAULT 1,
		  seats SMALLINT UNSIGNED NOT NULL,
		  mrr DECIMAL(19,4) NOT NULL,
		  country CHAR(2) NULL,
		  settings JSON NULL,
		  created_at DATETIME(6) NOT NULL,
		  deleted_at DATETIME(6) NULL,
		  KEY (tenant_id, created_at)) DEFAULT CHARSET=utf8mb4`,
		`INSERT INTO saas_accounts SELECT `+saasUUID("acct", "id")+`,
		  `+saasTenant+`,
		  ELT(1 + id % 12, 'Acme Corp', 'acme corp', 'Café Müller', 'CAFE MULLER', 'Zürich AG', '東京株式会社', 'Rocket 🚀 Labs', 'Ærø Ltd', 'Rocket 🛸 Labs', 'Strauß GmbH', 'Strauss GmbH', 'ＡＣＭＥ corp'),
		  IF(id % 6 = 0, NULL, CONCAT(ELT(1 + id % 4, 'Ann', 'ann', 'Émile', 'zoë'), '.', id, '@', ELT(1 + id % 3, 'example.com', 'Example.COM', 'exämple.de'))),
		  ELT(1 + (id * 7) % 5, 'free', 'free', 'pro', 'enterprise', 'pro'),
		  ELT(1 + id % 6, '', 'sso', 'sso,audit', 'beta', 'api,beta', 'sso,audit,beta,api'),
		  id % 9 <> 0,
		  1 + (id * 13) % 250,
		  ((id * 7919) % 500000) / 100,
		  IF(id % 7 = 0, NULL, ELT(1 + id % 5, 'US', 'DE', 'FR', 'JP', 'BR')),
		  IF(id % 5 = 0, NULL, JSON_OBJECT('theme', ELT(1 + id % 3, 'dark', 'light', 'system'), 'seats_limit', 10 * (id % 4), 'beta', id % 2 = 0, 'tz', ELT(1 + id % 2, 'Europe/Berlin', 'America/New_York'))),
		  TIMESTAMP '2024-01-01 00:00:00' + INTERVAL (id * 104729) % 63072000 SECOND + INTERVAL (id * 31) % 1000000 MICROSECOND,
		  IF(id % 23 = 0, TIMESTAMP '2026-06-01 00:00:00' + INTERVAL id HOUR, NULL)
		FROM (SELECT seq AS id FROM seq_1_to_2000) s`,
		`CREATE TABLE saas_events (
		  tenant_id INT UNSIGNED NOT NULL,
		  id BIGINT UNSIGNED NOT NULL,
		  account_id CHAR(36) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NOT NULL,
		  user_id BINARY(16) NOT NULL,
		  kind ENUM('pageview','signup','purchase','refund','api_call') NOT NULL,
		  tags SET('mobile','web','api','beta') NOT NULL DEFAULT '',
		  created_at DATETIME(6) NOT NULL,
		  received_at TIMESTAMP(6) NULL DEFAULT NULL,
		  amount DECIMAL(19,4) NULL,
		  counter BIGINT UNSIGNED NOT NULL,
		  is_billable TINYINT(1) NOT NULL,
		  payload JSON NULL,
		  note TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NULL,
		  deleted_at DATETIME NULL,
		  net DECIMAL(19,4) AS (amount * 0.8) STORED,
		  day DATE AS (CAST(created_at AS DATE)) VIRTUAL,
		  plan VARCHAR(20) AS (JSON_UNQUOTE(JSON_EXTRACT(payload, '$.plan'))) VIRTUAL,
		  PRIMARY KEY (tenant_id, id),
		  KEY (tenant_id, created_at),
		  KEY (account_id)) DEFAULT CHARSET=utf8mb4`,
		`INSERT INTO saas_events (tenant_id, id, account_id, user_id, kind, tags, created_at, received_at, amount, counter,
		  is_billable, payload, note, deleted_at) SELECT
		  `+saasTenant+`,
		  1000000000000 + (id * 2654435761) % 4294967296,
		  IF(id % 7 = 0, UPPER(`+saasUUID("acct", "1 + (id * 31) % 2000")+`), `+saasUUID("acct", "1 + (id * 31) % 2000")+`),
		  UNHEX(MD5(CONCAT('u', (id * 17) % 3000))),
		  ELT(1 + (id * 7) % 9, 'pageview', 'pageview', 'pageview', 'api_call', 'api_call', 'signup', 'purchase', 'purchase', 'refund'),
		  ELT(1 + id % 5, '', 'web', 'mobile', 'api,beta', 'web,beta'),
		  TIMESTAMP '2026-01-01 00:00:00' + INTERVAL (id * 7919) % 31536000 SECOND + INTERVAL (id * 13) % 1000000 MICROSECOND,
		  IF(id % 5 = 0, NULL, TIMESTAMP '2026-01-01 00:00:00' + INTERVAL (id * 7919) % 31536000 + 3 SECOND + INTERVAL (id * 17) % 1000000 MICROSECOND),
		  CASE WHEN id % 9 = 0 THEN NULL WHEN id % 23 = 0 THEN -((id * 7919) % 100000) / 100 ELSE ((id * 7919) % 1000000) / 100 END,
		  IF(id % 101 = 0, 18446744073709551000 + id % 100, (id * 7919) % 100000),
		  id % 3 <> 0,
		  CASE WHEN id % 4 = 0 THEN NULL
		    WHEN id % 4 = 1 THEN JSON_OBJECT('plan', ELT(1 + id % 3, 'free', 'pro', 'enterprise'), 'items', id % 5, 'utm', JSON_OBJECT('source', ELT(1 + id % 4, 'google', 'newsletter', 'Google', 'direct')))
		    WHEN id % 4 = 2 THEN JSON_OBJECT('plan', ELT(1 + id % 2, 'pro', 'free'), 'price', ((id * 7919) % 10000) / 100, 'path', CONCAT('/p/', id % 50))
		    ELSE JSON_OBJECT('items', id % 7, 'ok', id % 2 = 0) END,
		  CASE WHEN id % 17 = 0 THEN REPEAT(CONCAT('Löng nöte 🎉 ', id, ' — '), 40)
		    WHEN id % 13 = 0 THEN ELT(1 + id % 6, 'résumé', 'Resume', 'RÉSUMÉ ', '😀 smile', '🎉 smile', 'ﬁle') 
		    WHEN id % 29 = 0 THEN CONCAT(REPEAT('x', 1030), ELT(1 + id % 3, 'b', 'a', 'c')) ELSE NULL END,
		  IF(id % 50 = 0, TIMESTAMP '2026-06-01 00:00:00' + INTERVAL id MINUTE, NULL)
		FROM (SELECT seq AS id FROM seq_1_to_12000) s`,
		`CREATE TABLE saas_invoices (
		  id BINARY(16) NOT NULL PRIMARY KEY,
		  account_id VARCHAR(36) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NOT NULL,
		  number VARCHAR(20) NOT NULL,
		  total DECIMAL(19,4) NOT NULL,
		  tax DECIMAL(19,4) NOT NULL DEFAULT 0,
		  currency CHAR(3) NOT NULL,
		  status ENUM('draft','open','paid','void','uncollectible') NOT NULL,
		  issued_on DATE NOT NULL,
		  paid_at TIMESTAMP(6) NULL DEFAULT NULL,
		  memo VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci NULL,
		  KEY (account_id), KEY (status, issued_on)) DEFAULT CHARSET=utf8mb4`,
		`INSERT INTO saas_invoices SELECT UNHEX(MD5(CONCAT('inv', id))),
		  `+saasUUID("acct", "1 + (id * 7) % 2000")+`,
		  CONCAT('INV-', LPAD(id, 6, '0')),
		  ((id * 104729) % 10000000) / 100,
		  ((id * 104729) % 10000000) / 100 * 0.19,
		  ELT(1 + id % 4, 'EUR', 'USD', 'USD', 'GBP'),
		  ELT(1 + (id * 3) % 7, 'paid', 'paid', 'paid', 'open', 'draft', 'void', 'uncollectible'),
		  DATE '2025-01-01' + INTERVAL (id * 37) % 600 DAY,
		  IF((id * 3) % 7 < 3, TIMESTAMP '2025-01-01 00:00:00' + INTERVAL (id * 37) % 600 DAY + INTERVAL (id * 7919) % 864000 SECOND + INTERVAL id MICROSECOND, NULL),
		  IF(id % 3 = 0, NULL, ELT(1 + id % 9, 'Abonnement März', 'Subscription – March', 'ABONNEMENT MARZ', 'Überweisung 💶', 'Ｆｕｌｌｗｉｄｔｈ', 'Fullwidth', 'Überweisung 💷', 'Straße', 'Strasse'))
		FROM (SELECT seq AS id FROM seq_1_to_3000) s`,
		`CREATE TABLE saas_legacy (
		  id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
		  customer VARCHAR(60) NOT NULL,
		  city VARCHAR(40) NULL,
		  balance DECIMAL(19,4) NOT NULL,
		  signup DATE NOT NULL,
		  vip TINYINT(1) NOT NULL,
		  KEY (city)) DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci`,
		`INSERT INTO saas_legacy (customer, city, balance, signup, vip) SELECT
		  CONCAT(ELT(1 + id % 6, 'Åsa', 'åsa', 'Ärlig', 'Olle', 'Östen', 'Yngve'), ' ', ELT(1 + id % 6, 'Öberg', 'Andersson', 'Müller', 'Lindén', 'Myller', 'Linden')),
		  IF(id % 8 = 0, NULL, ELT(1 + id % 5, 'Malmö', 'MALMÖ', 'Göteborg', 'Umeå', 'Ystad')),
		  ((id * 7919) % 2000000) / 100 - 5000,
		  DATE '1998-01-01' + INTERVAL (id * 53) % 9000 DAY,
		  id % 11 = 0
		FROM (SELECT seq AS id FROM seq_1_to_2000) s`,
		"ANALYZE TABLE saas_events, saas_accounts, saas_invoices, saas_legacy")
	t.Cleanup(func() {
		for _, tb := range []string{"saas_events", "saas_accounts", "saas_invoices", "saas_legacy"} {
			env.shoal.Exec("UNCACHE TABLE IF EXISTS ontime." + tb)
		}
		env.direct.Exec("DROP TABLE IF EXISTS saas_events, saas_invoices, saas_accounts, saas_legacy")
	})
	replicasAndCatalog(t)
}

// saasCase is a statement of the hunt; where is what its EXPLAIN must
// contain ("" for wherever it runs), unordered marks a statement whose
// row order MariaDB leaves to its plan (compared as sets).
type saasCase struct {
	q         string
	where     string
	unordered bool
	// keyOrder: MariaDB reads the rows in primary key order (a table
	// scan), so the order is compared too.
	keyOrder bool
	// folded: rows compared unordered with text folded (diffFolded), for
	// the spelling of a group MariaDB's plan picks.
	folded bool
}

// saasQueries are the reporting, dashboard and admin statements.
var saasQueries = []saasCase{
	// Per-tenant dashboards.
	{q: "SELECT tenant_id, COUNT(*), SUM(amount), AVG(amount), MIN(created_at), MAX(created_at) FROM saas_events GROUP BY tenant_id ORDER BY COUNT(*) DESC, tenant_id LIMIT 10"},
	{q: "SELECT tenant_id, COUNT(*) AS n FROM saas_events WHERE deleted_at IS NULL GROUP BY tenant_id HAVING n > 20 ORDER BY n DESC, tenant_id"},
	{q: "SELECT tenant_id, SUM(amount) revenue, SUM(IF(kind = 'refund', amount, 0)) refunds, COUNT(DISTINCT account_id) accounts FROM saas_events WHERE kind IN ('purchase', 'refund') GROUP BY tenant_id ORDER BY revenue DESC, tenant_id LIMIT 20"},
	{q: "SELECT kind, COUNT(*), SUM(amount), AVG(amount), SUM(net), MAX(counter), SUM(counter) FROM saas_events WHERE tenant_id = 1 GROUP BY kind ORDER BY kind"},
	{q: "SELECT DATE(created_at) d, COUNT(*), COUNT(DISTINCT user_id) FROM saas_events WHERE tenant_id = 2 AND created_at >= '2026-03-01' AND created_at < '2026-04-01' GROUP BY d ORDER BY d"},
	{q: "SELECT DATE_FORMAT(created_at, '%Y-%m') m, kind, COUNT(*), ROUND(SUM(amount), 2) FROM saas_events WHERE tenant_id = 3 GROUP BY m, kind ORDER BY m, kind"},
	{q: "SELECT YEARWEEK(created_at, 3) w, COUNT(*) FROM saas_events WHERE tenant_id IN (1, 2) GROUP BY w ORDER BY w"},
	{q: "SELECT YEARWEEK(created_at) w, COUNT(DISTINCT account_id) FROM saas_events GROUP BY w ORDER BY w DESC LIMIT 8"},
	{q: "SELECT DATE(created_at) d, COUNT(*) FROM saas_events WHERE created_at >= DATE_SUB('2026-07-01', INTERVAL 30 DAY) AND created_at < '2026-07-01' GROUP BY d ORDER BY d"},
	{q: "SELECT HOUR(created_at) h, COUNT(*), SUM(is_billable) FROM saas_events GROUP BY h ORDER BY h"},
	{q: "SELECT DAYNAME(created_at), WEEKDAY(created_at) wd, COUNT(*) FROM saas_events GROUP BY 1, 2 ORDER BY wd"},
	{q: "SELECT tenant_id, COUNT(*) * 100.0 / (SELECT COUNT(*) FROM saas_events) pct FROM saas_events GROUP BY tenant_id ORDER BY pct DESC, tenant_id LIMIT 5"},
	{q: "SELECT kind, ROUND(100 * COUNT(*) / SUM(COUNT(*)) OVER (), 2) pct FROM saas_events GROUP BY kind ORDER BY kind"},
	{q: "SELECT tenant_id, SUM(is_billable) / COUNT(*) AS billable_ratio, AVG(is_billable) FROM saas_events GROUP BY tenant_id ORDER BY tenant_id LIMIT 15"},
	{q: "SELECT tenant_id, CONCAT(FORMAT(100 * SUM(kind = 'purchase') / COUNT(*), 2), '%') conv FROM saas_events GROUP BY tenant_id ORDER BY tenant_id LIMIT 12"},
	{q: "SELECT is_billable, COUNT(*), SUM(amount) FROM saas_events GROUP BY is_billable ORDER BY is_billable"},
	{q: "SELECT COUNT(*), COUNT(amount), COUNT(received_at), COUNT(note), COUNT(payload), COUNT(deleted_at) FROM saas_events"},
	{q: "SELECT COUNT(DISTINCT tenant_id), COUNT(DISTINCT account_id), COUNT(DISTINCT user_id), COUNT(DISTINCT tenant_id, user_id) FROM saas_events"},
	{q: "SELECT SUM(amount), AVG(amount), MIN(amount), MAX(amount), SUM(net), STDDEV(amount) FROM saas_events WHERE deleted_at IS NULL"},
	{q: "SELECT SUM(counter), AVG(counter), MAX(counter), MIN(counter), BIT_OR(counter) FROM saas_events"},
	{q: "SELECT tenant_id, SUM(counter) FROM saas_events GROUP BY tenant_id ORDER BY SUM(counter) DESC, tenant_id LIMIT 5"},
	// Key prefixes and ranges on the composite key.
	{q: "SELECT id, kind, amount, created_at FROM saas_events WHERE tenant_id = 3 ORDER BY created_at DESC, id LIMIT 25"},
	{q: "SELECT id, kind, amount FROM saas_events WHERE tenant_id = 3 ORDER BY id LIMIT 20 OFFSET 40"},
	{q: "SELECT * FROM saas_events WHERE tenant_id = 57 ORDER BY id"},
	{q: "SELECT tenant_id, id, amount FROM saas_events WHERE tenant_id = 57"},
	{q: "SELECT tenant_id, id, kind FROM saas_events WHERE tenant_id BETWEEN 100 AND 110"},
	{q: "SELECT tenant_id, id FROM saas_events WHERE (tenant_id, id) > (2, 3000000000000) AND tenant_id < 4 ORDER BY tenant_id, id LIMIT 30"},
	{q: "SELECT tenant_id, id FROM saas_events WHERE tenant_id = 2 AND id > 1002000000000 ORDER BY id LIMIT 10"},
	{q: "SELECT COUNT(*), SUM(amount) FROM saas_events WHERE tenant_id = 1 AND created_at BETWEEN '2026-02-01 00:00:00' AND '2026-02-28 23:59:59.999999'"},
	{q: "SELECT account_id, COUNT(*), SUM(amount) FROM saas_events WHERE tenant_id = 1 GROUP BY account_id ORDER BY SUM(amount) DESC, account_id LIMIT 10"},
	{q: "SELECT tenant_id, id, created_at FROM saas_events ORDER BY created_at DESC, tenant_id, id LIMIT 50"},
	{q: "SELECT tenant_id, id, amount FROM saas_events WHERE amount IS NOT NULL ORDER BY amount DESC, tenant_id, id LIMIT 10 OFFSET 100"},
	{q: "SELECT * FROM saas_events ORDER BY tenant_id DESC, id DESC LIMIT 7"},
	{q: "SELECT tenant_id, id, kind, tags, amount FROM saas_events WHERE kind = 'refund' AND amount < 0"},
	{q: "SELECT tenant_id, id, counter FROM saas_events WHERE counter > 9223372036854775807"},
	// UUIDs and binary keys.
	{q: "SELECT account_id, COUNT(*) FROM saas_events GROUP BY account_id ORDER BY account_id LIMIT 20"},
	{q: "SELECT account_id, COUNT(*) c FROM saas_events GROUP BY account_id ORDER BY c DESC, account_id LIMIT 10"},
	{q: "SELECT HEX(user_id), COUNT(*) FROM saas_events GROUP BY user_id ORDER BY COUNT(*) DESC, user_id LIMIT 10"},
	{q: "SELECT LOWER(HEX(user_id)) u, COUNT(*), MAX(created_at) FROM saas_events WHERE tenant_id = 1 GROUP BY u ORDER BY u LIMIT 10"},
	{q: "SELECT id, name, plan FROM saas_accounts ORDER BY id LIMIT 10"},
	{q: "SELECT id, tenant_id, mrr FROM saas_accounts WHERE id > '8' ORDER BY id LIMIT 10"},
	{q: "SELECT id FROM saas_accounts WHERE id LIKE 'a%'"},
	{q: "SELECT * FROM saas_accounts WHERE id = UPPER('" + "c4ca4238-a0b9-4382-adcc-509a6f75849b" + "')"},
	{q: "SELECT HEX(id), number, total FROM saas_invoices ORDER BY id LIMIT 10"},
	{q: "SELECT HEX(id), total FROM saas_invoices WHERE id >= UNHEX('80000000000000000000000000000000') ORDER BY id LIMIT 5"},
	{q: "SELECT HEX(id), number FROM saas_invoices WHERE status = 'void'", unordered: true},
	{q: "SELECT account_id, COUNT(*), SUM(total), SUM(tax) FROM saas_invoices GROUP BY account_id ORDER BY SUM(total) DESC, account_id LIMIT 10"},
	// Joins to the UUID keys.
	{q: "SELECT a.plan, COUNT(*), SUM(e.amount) FROM saas_events e JOIN saas_accounts a ON a.id = e.account_id GROUP BY a.plan ORDER BY a.plan"},
	{q: "SELECT a.country, COUNT(DISTINCT e.user_id), SUM(e.amount) FROM saas_events e JOIN saas_accounts a ON a.id = e.account_id WHERE a.deleted_at IS NULL GROUP BY a.country ORDER BY a.country"},
	// MariaDB reads saas_accounts first (EXPLAIN): which spelling of
	// 'Acme Corp' and 'acme corp' names the group is its join order's,
	// a documented difference (docs/sql.md): compared folded.
	{q: "SELECT a.name, COUNT(*) FROM saas_events e JOIN saas_accounts a ON e.account_id = a.id WHERE e.tenant_id = 2 GROUP BY a.name ORDER BY COUNT(*) DESC, a.name LIMIT 10", folded: true},
	{q: "SELECT a.plan, i.status, COUNT(*), SUM(i.total) FROM saas_invoices i JOIN saas_accounts a ON a.id = i.account_id GROUP BY a.plan, i.status ORDER BY a.plan, i.status"},
	{q: "SELECT a.id, a.name, SUM(i.total) FROM saas_invoices i JOIN saas_accounts a ON a.id = i.account_id WHERE i.status = 'paid' GROUP BY a.id, a.name ORDER BY SUM(i.total) DESC, a.id LIMIT 10"},
	{q: "SELECT i.currency, COUNT(*) FROM saas_invoices i LEFT JOIN saas_accounts a ON a.id = i.account_id WHERE a.id IS NULL GROUP BY i.currency ORDER BY i.currency"},
	{q: "SELECT COUNT(*) FROM saas_events e WHERE e.account_id IN (SELECT id FROM saas_accounts WHERE plan = 'enterprise')"},
	{q: "SELECT COUNT(*), SUM(amount) FROM saas_events e WHERE NOT EXISTS (SELECT 1 FROM saas_accounts a WHERE a.id = e.account_id AND a.is_active)"},
	// Top-N per tenant.
	{q: "SELECT tenant_id, account_id, c FROM (SELECT tenant_id, account_id, COUNT(*) c, ROW_NUMBER() OVER (PARTITION BY tenant_id ORDER BY COUNT(*) DESC, account_id) rn FROM saas_events GROUP BY tenant_id, account_id) x WHERE rn <= 3 ORDER BY tenant_id, rn LIMIT 40"},
	{q: "SELECT tenant_id, MAX(amount), MIN(amount) FROM saas_events GROUP BY tenant_id ORDER BY MAX(amount) DESC, tenant_id LIMIT 10"},
	// Dates, times and fractions.
	{q: "SELECT MIN(created_at), MAX(created_at), MIN(received_at), MAX(received_at) FROM saas_events"},
	{q: "SELECT tenant_id, MAX(received_at), MIN(received_at), TIMESTAMPDIFF(SECOND, MIN(created_at), MAX(created_at)) FROM saas_events WHERE tenant_id < 10 GROUP BY tenant_id ORDER BY tenant_id"},
	{q: "SELECT DATE(received_at) d, COUNT(*) FROM saas_events WHERE received_at >= '2026-05-01' AND received_at < '2026-05-08' GROUP BY d ORDER BY d"},
	{q: "SELECT tenant_id, id, created_at, received_at, TIMESTAMPDIFF(MICROSECOND, created_at, received_at) lag FROM saas_events WHERE tenant_id = 3 ORDER BY lag DESC, id LIMIT 5"},
	{q: "SELECT MONTH(created_at), SUM(amount), AVG(amount) FROM saas_events WHERE deleted_at IS NULL AND kind = 'purchase' GROUP BY 1 ORDER BY 1"},
	{q: "SELECT DATE_FORMAT(created_at, '%Y-%m-%d %H:00:00') hr, COUNT(*) FROM saas_events WHERE created_at >= '2026-10-10' AND created_at < '2026-10-11' GROUP BY hr ORDER BY hr"},
	{q: "SELECT UNIX_TIMESTAMP(created_at) DIV 86400 * 86400 t, COUNT(*) FROM saas_events WHERE tenant_id = 1 GROUP BY 1 ORDER BY 1 LIMIT 10"},
	{q: "SELECT QUARTER(created_at) q, SUM(amount) FROM saas_events GROUP BY q WITH ROLLUP"},
	{q: "SELECT kind, tenant_id < 4 big, COUNT(*) FROM saas_events GROUP BY kind, big WITH ROLLUP"},
	// Generated columns.
	{q: "SELECT day, COUNT(*), SUM(net) FROM saas_events WHERE tenant_id = 1 GROUP BY day ORDER BY day LIMIT 10"},
	{q: "SELECT plan, COUNT(*), SUM(amount) FROM saas_events GROUP BY plan ORDER BY plan"},
	{q: "SELECT tenant_id, SUM(net), SUM(amount) - SUM(net) fee FROM saas_events GROUP BY tenant_id ORDER BY fee DESC, tenant_id LIMIT 5"},
	{q: "SELECT COUNT(*) FROM saas_events WHERE plan = 'pro' AND day BETWEEN '2026-02-01' AND '2026-03-31'"},
	// JSON.
	{q: "SELECT JSON_EXTRACT(payload, '$.plan') p, COUNT(*) FROM saas_events GROUP BY p ORDER BY p"},
	{q: "SELECT JSON_VALUE(payload, '$.utm.source') src, COUNT(*) FROM saas_events WHERE JSON_VALUE(payload, '$.utm.source') IS NOT NULL GROUP BY src ORDER BY src"},
	{q: "SELECT JSON_UNQUOTE(JSON_EXTRACT(payload, '$.utm.source')) src, COUNT(*), SUM(amount) FROM saas_events GROUP BY src ORDER BY src"},
	{q: "SELECT COUNT(*) FROM saas_events WHERE JSON_EXTRACT(payload, '$.items') > 3"},
	{q: "SELECT COUNT(*), SUM(JSON_VALUE(payload, '$.price')) FROM saas_events WHERE JSON_CONTAINS_PATH(payload, 'one', '$.price')"},
	{q: "SELECT tenant_id, SUM(JSON_EXTRACT(payload, '$.items')) FROM saas_events WHERE tenant_id < 5 GROUP BY tenant_id ORDER BY tenant_id"},
	{q: "SELECT JSON_VALUE(settings, '$.theme') theme, COUNT(*), AVG(seats) FROM saas_accounts GROUP BY theme ORDER BY theme"},
	{q: "SELECT id, settings FROM saas_accounts WHERE JSON_EXTRACT(settings, '$.beta') = true ORDER BY id LIMIT 5"},
	{q: "SELECT JSON_EXTRACT(payload, '$.ok') ok, COUNT(*) FROM saas_events GROUP BY ok ORDER BY ok"},
	{q: "SELECT MAX(JSON_LENGTH(payload)), MIN(JSON_LENGTH(payload)), COUNT(JSON_KEYS(payload)) FROM saas_events"},
	// Accounts: ENUM, SET, text in other collations, soft deletes.
	{q: "SELECT plan, COUNT(*), SUM(mrr), AVG(mrr), SUM(seats) FROM saas_accounts WHERE deleted_at IS NULL GROUP BY plan ORDER BY plan"},
	{q: "SELECT plan, COUNT(*) FROM saas_accounts GROUP BY plan ORDER BY COUNT(*) DESC, plan"},
	{q: "SELECT features, COUNT(*) FROM saas_accounts GROUP BY features ORDER BY features"},
	{q: "SELECT COUNT(*) FROM saas_accounts WHERE FIND_IN_SET('sso', features) AND is_active"},
	{q: "SELECT name, COUNT(*) FROM saas_accounts GROUP BY name ORDER BY name"},
	{q: "SELECT country, COUNT(*), SUM(mrr) FROM saas_accounts GROUP BY country ORDER BY country"},
	{q: "SELECT tenant_id, COUNT(*), SUM(is_active), SUM(deleted_at IS NOT NULL) FROM saas_accounts GROUP BY tenant_id ORDER BY tenant_id LIMIT 10"},
	{q: "SELECT id, name, email FROM saas_accounts WHERE name LIKE 'caf%' ORDER BY id"},
	{q: "SELECT id, email FROM saas_accounts WHERE email LIKE '%@example.com' ORDER BY email, id LIMIT 10"},
	{q: "SELECT SUBSTRING_INDEX(email, '@', -1) domain, COUNT(*) FROM saas_accounts GROUP BY domain ORDER BY domain"},
	{q: "SELECT MIN(name), MAX(name), MIN(email), MAX(email) FROM saas_accounts"},
	{q: "SELECT id, name FROM saas_accounts ORDER BY name, id LIMIT 12"},
	{q: "SELECT id, created_at FROM saas_accounts WHERE tenant_id = 1 ORDER BY created_at DESC LIMIT 10"},
	{q: "SELECT DATE_FORMAT(created_at, '%Y-%m') m, COUNT(*), SUM(mrr) FROM saas_accounts GROUP BY m ORDER BY m"},
	{q: "SELECT * FROM saas_accounts WHERE deleted_at IS NOT NULL"},
	{q: "SELECT tenant_id, id, note FROM saas_events WHERE note IS NOT NULL AND tenant_id > 400"},
	{q: "SELECT note, COUNT(*) FROM saas_events WHERE CHAR_LENGTH(note) < 20 GROUP BY note ORDER BY note"},
	{q: "SELECT MAX(CHAR_LENGTH(note)), MAX(LENGTH(note)), SUM(LENGTH(note)) FROM saas_events"},
	// Invoices.
	{q: "SELECT status, currency, COUNT(*), SUM(total), SUM(tax), AVG(total) FROM saas_invoices GROUP BY status, currency ORDER BY status, currency"},
	{q: "SELECT DATE_FORMAT(issued_on, '%Y-%m') m, SUM(total) FROM saas_invoices WHERE status = 'paid' GROUP BY m ORDER BY m"},
	{q: "SELECT number, total, paid_at FROM saas_invoices WHERE paid_at IS NOT NULL ORDER BY paid_at DESC, number LIMIT 10"},
	{q: "SELECT memo, COUNT(*) FROM saas_invoices GROUP BY memo ORDER BY memo"},
	{q: "SELECT currency, SUM(total) / SUM(SUM(total)) OVER () share FROM saas_invoices GROUP BY currency ORDER BY currency"},
	{q: "SELECT status, ROUND(SUM(total) * 100 / (SELECT SUM(total) FROM saas_invoices), 2) FROM saas_invoices GROUP BY status ORDER BY status"},
	{q: "SELECT AVG(DATEDIFF(paid_at, issued_on)), MAX(DATEDIFF(paid_at, issued_on)) FROM saas_invoices WHERE status = 'paid'"},
	{q: "SELECT number, total FROM saas_invoices WHERE total BETWEEN 1000 AND 1001.5", unordered: true},
	// The legacy latin1 table.
	{q: "SELECT city, COUNT(*), SUM(balance) FROM saas_legacy GROUP BY city ORDER BY city"},
	{q: "SELECT customer, COUNT(*) FROM saas_legacy GROUP BY customer ORDER BY customer"},
	{q: "SELECT id, customer, city FROM saas_legacy WHERE customer LIKE 'ö%' ORDER BY id LIMIT 10"},
	{q: "SELECT YEAR(signup) y, SUM(vip), AVG(balance) FROM saas_legacy GROUP BY y ORDER BY y"},
	{q: "SELECT MIN(customer), MAX(customer), MIN(city), MAX(city) FROM saas_legacy"},
	{q: "SELECT id, customer, balance FROM saas_legacy WHERE balance < -4990"},
	{q: "SELECT * FROM saas_legacy ORDER BY balance DESC, id LIMIT 5"},
	// Hunting: overflow, collations, long text, types after the merge.
	{q: "SELECT tenant_id, MAX(counter) + 1, MAX(counter) * 2 FROM saas_events GROUP BY tenant_id ORDER BY tenant_id LIMIT 5"},
	{q: "SELECT tenant_id, MIN(tenant_id) - 5 FROM saas_events GROUP BY tenant_id ORDER BY tenant_id LIMIT 5"},
	{q: "SELECT tenant_id - 10 d, COUNT(*) FROM saas_events GROUP BY d ORDER BY d LIMIT 5"},
	{q: "SELECT tenant_id, SUM(counter), AVG(counter), SUM(counter) / COUNT(*) FROM saas_events WHERE counter > 100 GROUP BY tenant_id ORDER BY tenant_id LIMIT 8"},
	{q: "SELECT tenant_id, MIN(created_at) + 0, AVG(created_at), SUM(received_at), MAX(received_at) + INTERVAL 1 DAY FROM saas_events WHERE tenant_id < 6 GROUP BY tenant_id ORDER BY tenant_id"},
	{q: "SELECT tenant_id, UNIX_TIMESTAMP(MAX(received_at)), UNIX_TIMESTAMP(MIN(created_at)), DATE_FORMAT(MAX(created_at), '%Y-%m-%d %H:%i:%s.%f') FROM saas_events WHERE tenant_id < 6 GROUP BY tenant_id ORDER BY tenant_id"},
	{q: "SELECT tenant_id, AVG(amount), ROUND(AVG(amount), 2), AVG(amount) * 100, SUM(amount) / COUNT(*), IFNULL(SUM(amount), 0) FROM saas_events WHERE tenant_id < 8 GROUP BY tenant_id ORDER BY tenant_id"},
	{q: "SELECT tenant_id, COUNT(*) * 100.0 / SUM(COUNT(*) > 0), COUNT(amount) / COUNT(*) * 100 FROM saas_events WHERE tenant_id < 8 GROUP BY tenant_id ORDER BY tenant_id"},
	{q: "SELECT is_billable, MAX(is_billable), MIN(is_billable), SUM(is_billable), NOT is_billable, IF(is_billable, 'yes', 'no') FROM saas_events GROUP BY is_billable ORDER BY is_billable"},
	{q: "SELECT IF(is_billable, 'yes', 'no') b, COUNT(*) FROM saas_events WHERE is_billable = TRUE OR NOT is_billable GROUP BY b ORDER BY b"},
	{q: "SELECT tenant_id, MIN(kind), MAX(kind), MIN(tags), MAX(tags), MAX(kind + 0) FROM saas_events WHERE tenant_id < 6 GROUP BY tenant_id ORDER BY tenant_id"},
	{q: "SELECT kind + 0 k, COUNT(*) FROM saas_events GROUP BY k ORDER BY k"},
	{q: "SELECT COUNT(*) FROM saas_events WHERE kind < 'purchase'"},
	{q: "SELECT kind, COUNT(*) FROM saas_events GROUP BY kind"},
	{q: "SELECT tags, COUNT(*) FROM saas_events GROUP BY tags"},
	{q: "SELECT CONCAT(kind, '') k, COUNT(*) FROM saas_events GROUP BY k ORDER BY k"},
	{q: "SELECT features + 0 f, COUNT(*) FROM saas_accounts GROUP BY f ORDER BY f"},
	{q: "SELECT JSON_EXTRACT(payload, '$.price') p, COUNT(*) FROM saas_events WHERE JSON_EXTRACT(payload, '$.price') IS NOT NULL GROUP BY p ORDER BY p LIMIT 10"},
	{q: "SELECT tenant_id, id, JSON_EXTRACT(payload, '$.price') p FROM saas_events WHERE tenant_id = 3 ORDER BY p DESC, id LIMIT 10"},
	{q: "SELECT COUNT(*) FROM saas_events WHERE JSON_EXTRACT(payload, '$.ok') = true"},
	{q: "SELECT MAX(JSON_EXTRACT(payload, '$.price')), MIN(JSON_VALUE(payload, '$.price')), MAX(JSON_VALUE(payload, '$.price') + 0) FROM saas_events"},
	{q: "SELECT tenant_id, id, note FROM saas_events WHERE note LIKE 'xxx%' ORDER BY note, id"},
	{q: "SELECT note, COUNT(*) FROM saas_events WHERE note LIKE 'xxx%' GROUP BY note ORDER BY note"},
	{q: "SELECT DISTINCT note FROM saas_events WHERE note LIKE 'xxx%' ORDER BY note"},
	{q: "SELECT MIN(note), MAX(note), COUNT(DISTINCT note) FROM saas_events WHERE note LIKE 'xxx%'"},
	{q: "SELECT note, COUNT(*) FROM saas_events WHERE CHAR_LENGTH(note) < 20 GROUP BY note"},
	{q: "SELECT COUNT(DISTINCT note) FROM saas_events WHERE CHAR_LENGTH(note) < 20"},
	{q: "SELECT tenant_id, id, note FROM saas_events WHERE note = '😀 smile' OR note = 'file'"},
	{q: "SELECT account_id, COUNT(*) FROM saas_events WHERE tenant_id = 1 GROUP BY account_id ORDER BY COUNT(*) DESC, account_id LIMIT 5"},
	{q: "SELECT COUNT(DISTINCT account_id), COUNT(DISTINCT LOWER(account_id)), COUNT(DISTINCT BINARY account_id) FROM saas_events"},
	{q: "SELECT COUNT(*) FROM saas_events WHERE account_id = UPPER('" + "c4ca4238-a0b9-4382-adcc-509a6f75849b" + "') OR account_id LIKE 'C4%'"},
	{q: "SELECT name, COUNT(*), MIN(id) FROM saas_accounts GROUP BY name"},
	{q: "SELECT COUNT(DISTINCT name), COUNT(DISTINCT email) FROM saas_accounts"},
	{q: "SELECT name FROM saas_accounts WHERE name = 'acme corp' OR name = 'strasse gmbh' OR name = 'Rocket 🌟 Labs' LIMIT 50"},
	{q: "SELECT name, COUNT(*) FROM saas_accounts WHERE name > 'R' GROUP BY name ORDER BY name DESC"},
	{q: "SELECT UPPER(name) n, COUNT(*) FROM saas_accounts GROUP BY n ORDER BY n"},
	{q: "SELECT memo, COUNT(*) FROM saas_invoices GROUP BY memo"},
	{q: "SELECT memo, COUNT(*), SUM(total) FROM saas_invoices WHERE memo IS NOT NULL GROUP BY memo ORDER BY memo DESC"},
	{q: "SELECT COUNT(DISTINCT memo), MIN(memo), MAX(memo) FROM saas_invoices"},
	{q: "SELECT customer, COUNT(*) FROM saas_legacy GROUP BY customer"},
	{q: "SELECT COUNT(DISTINCT customer), COUNT(DISTINCT city) FROM saas_legacy"},
	{q: "SELECT city, COUNT(*) FROM saas_legacy WHERE city > 'M' GROUP BY city ORDER BY city DESC"},
	{q: "SELECT id, customer FROM saas_legacy WHERE customer LIKE '%ller' ORDER BY customer, id LIMIT 10"},
	{q: "SELECT LEFT(customer, 1) c, COUNT(*) FROM saas_legacy GROUP BY c ORDER BY c"},
	{q: "SELECT tenant_id, id, amount FROM saas_events WHERE tenant_id = '3' AND amount > '500' ORDER BY id LIMIT 5"},
	{q: "SELECT WEEK(created_at), WEEK(created_at, 1), COUNT(*) FROM saas_events GROUP BY 1, 2 ORDER BY 1, 2 LIMIT 10"},
	{q: "SELECT LAST_DAY(created_at) m, COUNT(*), SUM(amount) FROM saas_events WHERE tenant_id = 1 GROUP BY m ORDER BY m"},
	{q: "SELECT day, COUNT(*) FROM saas_events GROUP BY day ORDER BY day DESC LIMIT 5"},
	{q: "SELECT COALESCE(plan, 'none') p, COUNT(*) FROM saas_events GROUP BY p ORDER BY p"},
	{q: "SELECT COUNT(*) - COUNT(deleted_at) live, SUM(deleted_at IS NULL) FROM saas_events WHERE tenant_id = 2"},
	{q: "SELECT tenant_id, id, created_at FROM saas_events WHERE created_at > '2026-12-31 23:00:00' ORDER BY created_at, tenant_id, id"},
	{q: "SELECT HEX(user_id) FROM saas_events WHERE user_id = UNHEX(MD5('u42')) AND tenant_id = 1"},
	{q: "SELECT MIN(user_id) = UNHEX(MD5('u42')), HEX(MAX(user_id)), HEX(MIN(user_id)) FROM saas_events"},
	// Search boxes, keyset pages, idioms of admin screens.
	{q: "SELECT COUNT(*) FROM saas_accounts WHERE name LIKE '%cafe%'"},
	{q: "SELECT id, name FROM saas_accounts WHERE name = 'cafe muller' ORDER BY id LIMIT 5"},
	{q: "SELECT COUNT(*) FROM saas_accounts WHERE email LIKE '%EXAMPLE.com' OR email LIKE 'emile%'"},
	{q: "SELECT COUNT(*), MIN(name) FROM saas_accounts WHERE name LIKE 'strau%' OR name = 'acme corp'"},
	{q: "SELECT COUNT(*) FROM saas_accounts WHERE name = 'Rocket 🌟 Labs'"},
	{q: "SELECT COUNT(*) FROM saas_invoices WHERE memo = 'Überweisung 💷' OR memo LIKE 'fullwidth'"},
	{q: "SELECT memo, COUNT(*) FROM saas_invoices WHERE memo LIKE '%berweisung%' GROUP BY memo ORDER BY memo"},
	{q: "SELECT COUNT(*) FROM saas_legacy WHERE customer LIKE '%muller%' OR city = 'malmo'"},
	{q: "SELECT tenant_id, id, created_at FROM saas_events WHERE tenant_id = 1 AND (created_at, id) < ('2026-06-01', 1002000000000) ORDER BY created_at DESC, id DESC LIMIT 20"},
	{q: "SELECT tenant_id, id, created_at FROM saas_events WHERE tenant_id = 1 AND created_at < '2026-06-01 10:00:00.5' ORDER BY created_at DESC, id DESC LIMIT 20"},
	{q: "SELECT tenant_id, id FROM saas_events WHERE tenant_id = 1 ORDER BY created_at LIMIT 5"},
	{q: "SELECT tenant_id, id, amount FROM saas_events WHERE tenant_id = 1 AND id IN (1000000000000, 1002654435761, 1004294967295) ORDER BY id"},
	{q: "SELECT COUNT(*) FROM saas_events WHERE account_id IN (UPPER('c4ca4238-a0b9-4382-adcc-509a6f75849b'), 'c81e728d-9d4c-42f6-a2b9-9f67f3b8e7c6')"},
	{q: "SELECT tenant_id, id, amount FROM saas_events WHERE tenant_id = 2 ORDER BY amount IS NULL, amount, id LIMIT 10"},
	{q: "SELECT tenant_id, id, kind FROM saas_events WHERE tenant_id = 3 ORDER BY FIELD(kind, 'refund', 'purchase') DESC, id LIMIT 10"},
	{q: "SELECT tenant_id, DATE(created_at) d, COUNT(*) FROM saas_events WHERE tenant_id < 4 GROUP BY tenant_id, d HAVING COUNT(*) > 45 ORDER BY tenant_id, d"},
	{q: "SELECT tenant_id, SUM(CASE WHEN kind = 'purchase' THEN amount END), COUNT(DISTINCT CASE WHEN kind = 'signup' THEN account_id END) FROM saas_events WHERE tenant_id > 495 GROUP BY tenant_id ORDER BY tenant_id"},
	{q: "SELECT kind, AVG(is_billable), SUM(is_billable) * 100 / COUNT(*) FROM saas_events GROUP BY kind ORDER BY AVG(is_billable), 1 + 0", unordered: true},
	{q: "SELECT tenant_id, GROUP_CONCAT(DISTINCT kind), GROUP_CONCAT(DISTINCT tags SEPARATOR '|') FROM saas_events WHERE tenant_id < 6 GROUP BY tenant_id ORDER BY tenant_id"},
	// The members' order is unspecified (docs/sql.md): their number.
	{q: "SELECT tenant_id, JSON_LENGTH(JSON_ARRAYAGG(kind)), JSON_LENGTH(JSON_OBJECTAGG(id, amount)) FROM saas_events WHERE tenant_id IN (57, 58) GROUP BY tenant_id ORDER BY tenant_id"},
	{q: "SELECT plan, GROUP_CONCAT(DISTINCT country ORDER BY country), COUNT(*) FROM saas_accounts GROUP BY plan"},
	{q: "SELECT tenant_id, FORMAT(SUM(amount), 2), CONCAT('€', FORMAT(SUM(amount), 2, 'de_DE')) FROM saas_events WHERE tenant_id < 5 GROUP BY tenant_id ORDER BY tenant_id"},
	{q: "SELECT tenant_id, DATE_FORMAT(MAX(created_at), '%W %M %Y %H:%i:%s.%f'), TIMESTAMPDIFF(DAY, MIN(created_at), '2027-01-01') FROM saas_events WHERE tenant_id < 5 GROUP BY tenant_id ORDER BY tenant_id"},
	{q: "SELECT COUNT(*) FROM saas_events WHERE deleted_at IS NULL AND tenant_id = 1 AND created_at >= '2026-06-01'"},
	{q: "SELECT tenant_id, created_at FROM saas_events WHERE tenant_id = 5", unordered: true},
	{q: "SELECT tenant_id, created_at FROM saas_events LIMIT 10", unordered: true},
	{q: "SELECT account_id FROM saas_events LIMIT 10", unordered: true},
	{q: "SELECT id, tenant_id, created_at FROM saas_accounts LIMIT 5", unordered: true},
	{q: "SELECT id FROM saas_accounts LIMIT 5", unordered: true},
	{q: "SELECT tenant_id, id, amount FROM saas_events WHERE tenant_id = 1 AND created_at >= '2026-06-01' LIMIT 5", unordered: true},
	{q: "SELECT id, name FROM saas_accounts WHERE tenant_id = 1 LIMIT 5", unordered: true},
	{q: "SELECT tenant_id, id FROM saas_events WHERE tenant_id = 7 LIMIT 3", unordered: true},
	{q: "SELECT email FROM saas_accounts ORDER BY email LIMIT 5"},
	{q: "SELECT DISTINCT tenant_id FROM saas_events WHERE tenant_id > 490"},
	{q: "SELECT DISTINCT account_id FROM saas_events WHERE tenant_id = 3 ORDER BY account_id LIMIT 10"},
	{q: "SELECT DISTINCT LOWER(account_id) a FROM saas_events ORDER BY a LIMIT 10"},
	{q: "SELECT id, received_at FROM saas_events WHERE received_at BETWEEN '2026-05-01 00:00:00' AND '2026-05-01 06:00:00.000001' ORDER BY received_at, id"},
	{q: "SELECT COUNT(*) FROM saas_events WHERE DATE(created_at) = '2026-03-15' AND created_at > '2026-03-15 12:00:00.5'"},
	{q: "SELECT HEX(id), total FROM saas_invoices ORDER BY id DESC LIMIT 5"},
	{q: "SELECT HEX(id), number FROM saas_invoices WHERE id = UNHEX(MD5('inv42'))"},
	{q: "SELECT account_id, COUNT(*), SUM(total), MAX(issued_on) FROM saas_invoices WHERE account_id LIKE 'f%' GROUP BY account_id ORDER BY account_id"},
	{q: "SELECT a.tenant_id, COUNT(DISTINCT a.id), SUM(i.total) FROM saas_accounts a JOIN saas_invoices i ON i.account_id = a.id WHERE a.tenant_id = 1 GROUP BY a.tenant_id"},
	{q: "SELECT e.tenant_id, e.id, a.name, e.amount FROM saas_events e JOIN saas_accounts a ON a.id = e.account_id WHERE e.tenant_id = 3 ORDER BY e.amount DESC, e.id LIMIT 10"},
	{q: "SELECT e.kind, a.plan, COUNT(*) FROM saas_events e LEFT JOIN saas_accounts a ON a.id = e.account_id AND a.deleted_at IS NULL WHERE e.tenant_id IN (1, 2) GROUP BY e.kind, a.plan"},
	{q: "SELECT country, COUNT(*) FROM saas_accounts WHERE id IN (SELECT account_id FROM saas_invoices WHERE status = 'uncollectible') GROUP BY country ORDER BY country"},
	{q: "SELECT CAST(created_at AS DATE) d, COUNT(*) FROM saas_accounts GROUP BY d ORDER BY COUNT(*) DESC, d LIMIT 5"},
	{q: "SELECT mrr, COUNT(*) FROM saas_accounts GROUP BY mrr ORDER BY mrr DESC LIMIT 5"},
	{q: "SELECT seats, SUM(mrr) / seats per_seat FROM saas_accounts WHERE seats > 245 GROUP BY seats ORDER BY seats"},
	{q: "SELECT ROUND(mrr, -2) bucket, COUNT(*) FROM saas_accounts GROUP BY bucket ORDER BY bucket"},
	{q: "SELECT tenant_id, TRUNCATE(SUM(amount) / 1000, 1) k FROM saas_events GROUP BY tenant_id ORDER BY k DESC, tenant_id LIMIT 5"},
	// ENUM and SET read as numbers, booleans, text idioms.
	{q: "SELECT COUNT(*) FROM saas_events WHERE tags & 8"},
	{q: "SELECT COUNT(*) FROM saas_events WHERE kind = 2 OR kind + 0 = 5"},
	{q: "SELECT COUNT(*), SUM(amount) FROM saas_events WHERE kind IN ('purchase', 'refund') AND tags LIKE '%beta%'"},
	{q: "SELECT tenant_id, SUM(CASE kind WHEN 'refund' THEN -1 ELSE 1 END) FROM saas_events WHERE tenant_id < 5 GROUP BY tenant_id ORDER BY tenant_id"},
	{q: "SELECT COUNT(*) FROM saas_events WHERE FIND_IN_SET('beta', tags) AND is_billable IS TRUE AND is_billable <> 0"},
	{q: "SELECT tenant_id, MIN(IFNULL(deleted_at, '9999-12-31')), MAX(COALESCE(deleted_at, created_at)) FROM saas_events WHERE tenant_id < 6 GROUP BY tenant_id ORDER BY tenant_id"},
	{q: "SELECT DATE_FORMAT(received_at, '%Y-%m-%dT%H:%i:%s.%fZ') t FROM saas_events WHERE tenant_id = 57 ORDER BY t"},
	{q: "SELECT tenant_id, COUNT(*) FROM saas_events WHERE tenant_id > 495 GROUP BY tenant_id ORDER BY NULL"},
	{q: "SELECT tenant_id, COUNT(*) FROM saas_events GROUP BY tenant_id WITH ROLLUP"},
	{q: "SELECT DATE_ADD(DATE(created_at), INTERVAL -WEEKDAY(created_at) DAY) wk, COUNT(*) FROM saas_events WHERE tenant_id = 2 GROUP BY wk ORDER BY wk LIMIT 10"},
	{q: "SELECT MICROSECOND(created_at) % 10 m, TIME(MIN(created_at)), COUNT(*) FROM saas_events GROUP BY m ORDER BY m"},
	{q: "SELECT DATE(CONVERT_TZ(created_at, '+00:00', '+02:00')) d, COUNT(*) FROM saas_events WHERE tenant_id = 3 GROUP BY d ORDER BY d LIMIT 5"},
	{q: "SELECT SUBSTRING(HEX(user_id), 1, 2) p, COUNT(DISTINCT user_id) FROM saas_events GROUP BY p ORDER BY p LIMIT 10"},
	{q: "SELECT tenant_id, id, CONCAT(amount, ' EUR'), CAST(amount AS CHAR), amount * 1 FROM saas_events WHERE tenant_id = 57 ORDER BY id"},
	{q: "SELECT AVG(amount), SUM(amount), COUNT(*), MAX(created_at) FROM saas_events WHERE tenant_id = 999"},
	{q: "SELECT COUNT(*), SUM(LENGTH(payload)), SUM(JSON_VALID(payload)) FROM saas_events WHERE note IS NULL"},
	{q: "SELECT COUNT(*) FROM saas_accounts WHERE LOWER(name) LIKE '%café%' OR name = 'ACME CORP   '"},
	{q: "SELECT COUNT(*) FROM saas_events WHERE account_id LIKE 'C4CA%' OR account_id >= 'fff'"},
	{q: "SELECT id, name FROM saas_accounts ORDER BY name COLLATE utf8mb4_bin, id LIMIT 10"},
	{q: "SELECT id, name FROM saas_accounts ORDER BY name DESC, id DESC LIMIT 10"},
	{q: "SELECT email, COUNT(*) FROM saas_accounts WHERE email < 'b' GROUP BY email ORDER BY email LIMIT 10"},
	{q: "SELECT MAX(id), MIN(id), COUNT(*) FROM saas_events WHERE tenant_id = 3"},
	{q: "SELECT * FROM saas_events WHERE tenant_id = 1 ORDER BY id DESC LIMIT 1"},
	{q: "SELECT tenant_id, id FROM saas_events ORDER BY tenant_id, id LIMIT 5 OFFSET 29990"},
	{q: "SELECT tenant_id, SUM(amount) revenue FROM saas_events GROUP BY tenant_id HAVING revenue > 200000 AND COUNT(*) > 10 ORDER BY revenue DESC"},
	{q: "SELECT tenant_id, COUNT(*) FROM saas_events WHERE tenant_id = 1 UNION ALL SELECT tenant_id, COUNT(*) FROM saas_events WHERE tenant_id = 2"},
	{q: "SELECT COUNT(*) FROM (SELECT DISTINCT account_id FROM saas_events WHERE tenant_id = 1) t"},
	{q: "SELECT s.tenant_id, s.c FROM (SELECT tenant_id, COUNT(*) c FROM saas_events GROUP BY tenant_id) s WHERE s.c > 50 ORDER BY s.c DESC, s.tenant_id"},
	{q: "SELECT a.plan, COUNT(*) FROM saas_accounts a WHERE EXISTS (SELECT 1 FROM saas_invoices i WHERE i.account_id = a.id AND i.status = 'open') GROUP BY a.plan"},
	// String functions over unicode_ci and _520_ci text (in memory: the
	// evaluator's collations).
	{q: "SELECT COUNT(*) FROM saas_accounts WHERE SUBSTRING(name, 1, 4) = 'cafe' OR TRIM(name) = 'acme corp' OR REPLACE(name, ' ', '') = 'strassegmbh'"},
	{q: "SELECT COUNT(*) FROM saas_accounts WHERE LEFT(name, 4) LIKE 'CAFE' OR name IN ('zurich ag', 'aero ltd') OR UPPER(email) LIKE '%EXAMPLE.DE'"},
	{q: "SELECT COUNT(*), SUM(CASE WHEN name = 'cafe muller' THEN 1 ELSE 0 END), SUM(COALESCE(email, '') LIKE 'ANN%') FROM saas_accounts"},
	{q: "SELECT LOWER(name) n, COUNT(*) FROM saas_accounts GROUP BY n HAVING n LIKE '%cafe%' OR LOWER(n) = 'acme corp' ORDER BY n", folded: true},
	{q: "SELECT name, COUNT(*) FROM saas_accounts GROUP BY name HAVING LOWER(name) LIKE 'strasse%' OR UPPER(name) = 'ZURICH AG'", folded: true},
	{q: "SELECT COUNT(*) FROM saas_invoices WHERE LOWER(memo) = 'fullwidth' OR UPPER(memo) LIKE 'ABONNEMENT MÄRZ'"},
	{q: "SELECT COUNT(*) FROM saas_legacy WHERE LOWER(customer) LIKE '%oberg%' OR UPPER(city) = 'MALMO'"},
	// Hints, modifiers, names as typed, errors.
	{q: "SELECT tenant_id, id FROM saas_events FORCE INDEX (tenant_id) WHERE tenant_id = 1 LIMIT 5", unordered: true},
	{q: "SELECT tenant_id, COUNT(*) FROM saas_events USE INDEX (PRIMARY) WHERE tenant_id < 4 GROUP BY tenant_id ORDER BY tenant_id"},
	{q: "SELECT SQL_NO_CACHE HIGH_PRIORITY kind + 0, COUNT(*) FROM saas_events IGNORE INDEX (account_id) GROUP BY 1 ORDER BY 1"},
	{q: "SELECT STRAIGHT_JOIN a.plan, COUNT(*) FROM saas_events e JOIN saas_accounts a ON a.id = e.account_id WHERE e.tenant_id = 3 GROUP BY a.plan"},
	{q: "SELECT * FROM SAAS_EVENTS LIMIT 1"},
	{q: "SELECT Tenant_ID, COUNT(ID) AS `Count`, count(1), COUNT(DISTINCT TENANT_id, Account_Id) FROM ontime.saas_events GROUP BY TENANT_id ORDER BY Tenant_ID LIMIT 5"},
	{q: "SELECT e.* FROM saas_events e WHERE e.tenant_id = 57 ORDER BY e.id"},
	{q: "SELECT JSON_OBJECT('id', id, 'amount', amount, 'at', created_at) FROM saas_events WHERE tenant_id = 57 ORDER BY id"},
	{q: "SELECT tenant_id - 2 FROM saas_events WHERE tenant_id < 3 ORDER BY tenant_id, id LIMIT 3"},
	{q: "SELECT tenant_id, id, CAST(counter AS SIGNED) FROM saas_events WHERE counter > 9223372036854775807 ORDER BY tenant_id, id"},
	{q: "SELECT tenant_id, AVG(counter), SUM(counter) / 3, MAX(counter) DIV 7 FROM saas_events WHERE counter > 1000 GROUP BY tenant_id ORDER BY tenant_id LIMIT 5"},
	{q: "SELECT tenant_id, id FROM saas_events WHERE tenant_id = 3 LIMIT 0"},
	{q: "SELECT DATE_FORMAT(created_at, '%x-%v') w, COUNT(*) FROM saas_events WHERE tenant_id = 2 GROUP BY w ORDER BY w LIMIT 5"},
	{q: "SELECT CAST(JSON_VALUE(payload, '$.price') AS DECIMAL(10,2)) p, COUNT(*) FROM saas_events WHERE tenant_id = 1 AND JSON_VALUE(payload, '$.price') > 99 GROUP BY p ORDER BY p LIMIT 5"},
	{q: "SELECT SUM(CAST(JSON_VALUE(payload, '$.price') AS DECIMAL(10,2))), SUM(JSON_EXTRACT(payload, '$.items') + 0) FROM saas_events"},
	{q: "SELECT DATE(received_at) d, COUNT(*), MIN(received_at) FROM saas_events WHERE tenant_id = 3 GROUP BY d ORDER BY d LIMIT 5"},
	// Filters an admin screen builds, over every type (in memory: the
	// evaluator's comparisons).
	{q: "SELECT COUNT(*) FROM saas_events WHERE created_at BETWEEN '2026-03-15' AND '2026-03-15 23:59:59.999999' OR created_at = '2026-01-01 13:21:40.3107'"},
	{q: "SELECT COUNT(*) FROM saas_events WHERE created_at > 20261115 AND DATE(created_at) BETWEEN '2026-11-01' AND '2026-11-30'"},
	{q: "SELECT COUNT(*) FROM saas_events WHERE received_at >= '2026-06-01 00:00:00.5' AND received_at < TIMESTAMP '2026-07-01 00:00:00'"},
	{q: "SELECT COUNT(*), SUM(amount) FROM saas_events WHERE amount BETWEEN 10 AND 2000.5 OR amount IN (1093.39, 3202.68) OR amount = '4920.53'"},
	{q: "SELECT COUNT(*) FROM saas_events WHERE amount > 1e3 AND amount < -(-5e3) AND net <> amount"},
	{q: "SELECT COUNT(*) FROM saas_events WHERE counter = 18446744073709551001 OR counter BETWEEN 1 AND 999 OR counter > 18446744073709551090"},
	{q: "SELECT COUNT(*) FROM saas_events WHERE counter > -1 AND id > 1e12 AND tenant_id IN ('1', '2')"},
	{q: "SELECT COUNT(*) FROM saas_events WHERE kind = 'PURCHASE' OR kind LIKE 'ref%'"},
	{q: "SELECT COUNT(*) FROM saas_events WHERE tags = 'beta,web' OR tags = 'MOBILE'"},
	{q: "SELECT COUNT(*) FROM saas_events WHERE tags IN ('web,beta', 'api,beta') AND kind <> 'pageview'"},
	{q: "SELECT COUNT(*) FROM saas_events WHERE HEX(user_id) LIKE 'AB%' OR user_id > UNHEX('F0')"},
	{q: "SELECT COUNT(*) FROM saas_events WHERE note = 'resume' OR note LIKE 'resum_'"},
	{q: "SELECT COUNT(*) FROM saas_accounts WHERE name > 'caf' AND name < 'zz' AND country IN ('DE', 'de')"},
	{q: "SELECT COUNT(*) FROM saas_accounts WHERE plan = 'PRO' OR plan = 2 OR features = 'audit,sso'"},
	{q: "SELECT COUNT(*) FROM saas_accounts WHERE created_at >= '2024-02-29' AND deleted_at IS NULL AND settings IS NOT NULL AND JSON_VALUE(settings, '$.tz') = 'Europe/Berlin'"},
	{q: "SELECT COUNT(*) FROM saas_invoices WHERE issued_on > '2025-12-31' AND paid_at IS NULL AND status IN ('open', 'uncollectible') AND total >= 50000"},
	{q: "SELECT COUNT(*) FROM saas_invoices WHERE currency = 'usd' AND memo IS NULL AND tax > total * 0.18"},
	// Cohorts, churn, tenant-scoped joins and key ranges.
	{q: "SELECT DISTINCT kind FROM saas_events WHERE tenant_id = 1", unordered: true},
	{q: "SELECT tenant_id, COUNT(DISTINCT DATE(created_at)) active_days FROM saas_events GROUP BY tenant_id HAVING active_days > 300 ORDER BY tenant_id"},
	{q: "SELECT a.tenant_id, a.plan, COUNT(e.id) FROM saas_accounts a LEFT JOIN saas_events e ON e.account_id = a.id AND e.kind = 'purchase' GROUP BY a.tenant_id, a.plan ORDER BY a.tenant_id, a.plan + 0 LIMIT 20"},
	{q: "SELECT i.status + 0 s, COUNT(*), SUM(i.total) FROM saas_invoices i WHERE i.account_id IN (SELECT id FROM saas_accounts WHERE tenant_id = 1) GROUP BY s ORDER BY s"},
	{q: "SELECT DATE_FORMAT(deleted_at, '%Y-%m') m, COUNT(*), SUM(mrr) FROM saas_accounts WHERE deleted_at IS NOT NULL GROUP BY m ORDER BY m"},
	{q: "SELECT DATE_FORMAT(a.created_at, '%Y-%m') cohort, COUNT(DISTINCT a.id), COUNT(DISTINCT e.account_id), SUM(e.amount) FROM saas_events e JOIN saas_accounts a ON a.id = e.account_id GROUP BY cohort ORDER BY cohort"},
	{q: "SELECT e.tenant_id, COUNT(*) FROM saas_events e JOIN saas_accounts a ON a.id = e.account_id AND a.tenant_id = e.tenant_id GROUP BY e.tenant_id ORDER BY e.tenant_id LIMIT 10"},
	{q: "SELECT COUNT(*), SUM(amount) FROM saas_events WHERE (tenant_id = 1 AND id > 1002000000000) OR (tenant_id = 2 AND id < 1001000000000)"},
	{q: "SELECT tenant_id, id, amount FROM saas_events WHERE tenant_id = 1 AND id BETWEEN 1001000000000 AND 1001100000000 ORDER BY id"},
	{q: "SELECT tenant_id, kind + 0, COUNT(*), SUM(amount) FROM saas_events WHERE tenant_id BETWEEN 2 AND 3 GROUP BY tenant_id, kind + 0 ORDER BY tenant_id, 2"},
	{q: "SELECT LAST_DAY(created_at) m, COUNT(*) FROM saas_events WHERE tenant_id IN (1, 3, 7) GROUP BY m ORDER BY m"},
	// Unordered pages (the key order).
	{q: "SELECT * FROM saas_accounts LIMIT 20", keyOrder: true},
	{q: "SELECT tenant_id, id, amount FROM saas_events LIMIT 30"},
	{q: "SELECT * FROM saas_invoices LIMIT 10", keyOrder: true},
	{q: "SELECT tenant_id, id, kind FROM saas_events WHERE amount > 9990", keyOrder: true},
	{q: "SELECT * FROM saas_legacy WHERE vip", keyOrder: true},
}

// Floors of the shares that run distributed over the replicas and in
// memory over the pins, measured when the hunt was written (2026-12-08:
// 247 of 301 distributed, 183 of 301 in memory). The rest pass through
// for documented reasons: ORDER BY over an ENUM or SET, a window
// function, a subquery outside WHERE, a row comparison, SUM of JSON
// values read as DOUBLE, ORDER BY a TEXT column (max_sort_length), LIMIT
// without ORDER BY over a secondary index; over the pins also JSON
// functions and TIMESTAMPDIFF the evaluator lacks, latin1 text, joins
// with subqueries.
const (
	saasDistributedFloor = 0.78
	saasPinnedFloor      = 0.57
)

// TestHuntSaaSData runs saasQueries through Shoal and on the primary,
// over the replicas and then over the four tables pinned, with warnings,
// prepared statements and a session's max_sort_length. The hunt found,
// each now fixed for its class:
//
//   - a temporary-table statement of one tenant (`WHERE tenant_id = 1
//     GROUP BY LAST_DAY(created_at)`, `tenant_id IN (1, 2)`) was described
//     by LIMIT 0 (a DATE key without NUM_FLAG, COUNT(*) with BINARY_FLAG):
//     both probes on the first key column were provably empty
//     (coldefs.prefixOutside probes the second under the prefixes);
//   - ORDER BY a TEXT column whose values agree in their first 1024
//     bytes: MariaDB's sort ties them (max_sort_length) and orders by the
//     next key, the merge compared them whole (now passed through);
//   - LIMIT without ORDER BY over a composite- or UUID-keyed table whose
//     columns a secondary index holds (`SELECT tenant_id, created_at …
//     LIMIT 10`), or with a filter such an index serves: MariaDB reads
//     that index, Shoal returned the first rows in key order (now passed
//     through, planner.secondaryIndex);
//   - over a utf8mb4_unicode_ci pin, `LOWER(name) LIKE '%cafe%'` compared
//     the lowered text byte for byte (5 rows of MariaDB's 16);
//   - a pin of PRIMARY KEY (tenant_id, id) kept one tenant's batches in
//     load order, and a BINARY(16) key's unordered: LIMIT without ORDER BY
//     took other rows, a group of UUIDs equal under utf8mb4_general_ci
//     ('B226…', 'b226…') showed another spelling.
func TestHuntSaaSData(t *testing.T) {
	createSaaSTables(t)
	run := func(label string, inPlan func(string) bool, floor float64) {
		n, hit := 0, 0
		var off []string
		for i, c := range saasQueries {
			// Under the race detector one statement in six runs (the
			// whole hunt took 56 s under it, 16 s without);
			// scripts/test.sh runs them all without it, with the floors.
			if raceEnabled && i%6 != 0 {
				continue
			}
			plan := explain(t, c.q)
			if c.where != "" && !strings.Contains(plan, c.where) {
				t.Errorf("%s: %s: does not run %q:\n%s", label, c.q, c.where, plan)
			}
			n++
			if inPlan(plan) {
				hit++
			} else {
				off = append(off, fmt.Sprintf("%s -- %s", c.q, strings.SplitN(plan, "\n", 2)[0]))
			}
			// Without ORDER BY the order is MariaDB's plan's: compared
			// as sets, unless the case says it is the primary key's.
			ordered := c.keyOrder || !c.unordered && strings.Contains(c.q, "ORDER BY")
			if c.folded {
				diffSaaSFolded(t, c.q)
				continue
			}
			diff(t, c.q, ordered)
		}
		share := float64(hit) / float64(max(n, 1))
		t.Logf("%s: %d of %d (%.0f%%); elsewhere:\n%s", label, hit, n, 100*share, strings.Join(off, "\n"))
		if !raceEnabled && share < floor {
			t.Errorf("%s: %d of %d (%.2f), below the floor %.2f", label, hit, n, share, floor)
		}
	}
	// Warnings (the count sent with the result and SHOW WARNINGS), and
	// statements an ORM prepares on the server with its arguments.
	others := func(pinned bool) {
		for i, q := range saasWarnings {
			if raceEnabled && i%3 != 0 {
				continue
			}
			if pinned {
				// Known difference (docs/sql.md, "warnings of a
				// statement Shoal runs itself"): in memory over a pin
				// none are reported.
				break
			}
			sameSequence(t, rawShoal, rawDirect, false, q, "SHOW WARNINGS")
		}
		for i, c := range saasPrepared {
			if raceEnabled && i%3 != 0 {
				continue
			}
			diffArgs(t, c.q, strings.Contains(c.q, "ORDER BY"), c.args...)
		}
	}
	run("distributed", func(p string) bool { return strings.HasPrefix(p, "split ") }, saasDistributedFloor)
	others(false)
	saasSession(t)
	for _, tb := range []string{"saas_events", "saas_accounts", "saas_invoices", "saas_legacy"} {
		shoalExec(t, "CACHE TABLE ontime."+tb)
	}
	run("in memory", runsInMemory, saasPinnedFloor)
	others(true)
}

// diffSaaSFolded is diffFolded with the rest of what
// utf8mb4_unicode_ci makes equal in saas_accounts' names: every character
// outside the Basic Multilingual Plane ('🚀', '🛸'), fullwidth letters.
func diffSaaSFolded(t *testing.T, q string) {
	t.Helper()
	got, want := bothSides(t, q)
	fold := strings.NewReplacer("ä", "a", "ß", "ss", "é", "e", "ü", "u")
	for _, r := range []*result{got, want} {
		for _, row := range r.rows {
			for i, c := range row {
				c = strings.Map(func(r rune) rune {
					switch {
					case r > 0xFFFF:
						return 0xFFFD
					case r >= 0xFF01 && r <= 0xFF5E:
						return r - 0xFF01 + '!'
					}
					return r
				}, c)
				row[i] = fold.Replace(strings.ToLower(strings.TrimRight(c, " ")))
			}
		}
	}
	compare(t, q, got, want, false)
}

// saasSession runs statements after a session's SET of a setting that
// changes what they return, on one connection through Shoal and one to
// the primary: a session sorting by 8 bytes of each string
// (max_sort_length) ordered the merged rows by the whole value.
func saasSession(t *testing.T) {
	t.Helper()
	s, d := sessionConn(t, env.shoal), sessionConn(t, env.direct)
	for _, q := range []string{
		"SET SESSION max_sort_length = 8",
		"SELECT @@session.max_sort_length",
		"SELECT id, email FROM saas_accounts WHERE email IS NOT NULL ORDER BY email, id LIMIT 30",
		"SELECT tenant_id, id, note FROM saas_events WHERE note IS NOT NULL ORDER BY note, tenant_id, id LIMIT 20",
		"SELECT email, COUNT(*) FROM saas_accounts GROUP BY email ORDER BY email, COUNT(*) LIMIT 10",
		"SET SESSION max_sort_length = DEFAULT",
		"SELECT id, email FROM saas_accounts WHERE email IS NOT NULL ORDER BY email, id LIMIT 30",
	} {
		if strings.HasPrefix(q, "SET") {
			for _, c := range []*sql.Conn{s, d} {
				if _, err := c.ExecContext(t.Context(), q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			continue
		}
		diffOnConns(t, s, d, q, q)
	}
}

// saasWarnings are statements that warn on MariaDB (a string compared as
// a number, an invalid date, a division by zero after the merge), and
// some that do not.
var saasWarnings = []string{
	"SELECT COUNT(*) FROM saas_events WHERE account_id = 0",
	"SELECT COUNT(*) FROM saas_events WHERE tenant_id = '1x'",
	"SELECT COUNT(*) FROM saas_accounts WHERE seats = 'abc' OR mrr > '12,5'",
	"SELECT COUNT(*) FROM saas_events WHERE created_at >= '2026-02-30' AND tenant_id = 2",
	"SELECT COUNT(*) FROM saas_events WHERE created_at > '2026-13-01 00:00:00'",
	"SELECT tenant_id, SUM(amount) / 0 FROM saas_events WHERE tenant_id < 4 GROUP BY tenant_id ORDER BY tenant_id",
	"SELECT tenant_id, SUM(CAST(note AS UNSIGNED)) FROM saas_events WHERE tenant_id < 4 GROUP BY tenant_id ORDER BY tenant_id",
	"SELECT tenant_id, id FROM saas_events WHERE kind = 'nosuch' OR amount = 'free' ORDER BY tenant_id, id LIMIT 3",
	"SELECT COUNT(*) FROM saas_invoices WHERE issued_on = '2025-02-29'",
	"SELECT plan, COUNT(*) FROM saas_accounts WHERE plan = 'pro ' GROUP BY plan",
	"SELECT COUNT(*), SUM(amount) FROM saas_events WHERE tenant_id = 1 AND deleted_at IS NULL",
}

// saasPrepared are an ORM's statements with their arguments (prepared on
// the server: go-sql-driver without interpolateParams).
var saasPrepared = []struct {
	q    string
	args []any
}{
	{"SELECT id, kind, amount, created_at FROM saas_events WHERE tenant_id = ? AND deleted_at IS NULL ORDER BY created_at DESC, id LIMIT ?", []any{3, 10}},
	{"SELECT COUNT(*), SUM(amount) FROM saas_events WHERE tenant_id = ? AND created_at >= ? AND created_at < ?", []any{1, "2026-02-01 00:00:00", "2026-03-01 00:00:00.000000"}},
	{"SELECT * FROM saas_accounts WHERE id = ?", []any{"C4CA4238-A0B9-4382-ADCC-509A6F75849B"}},
	{"SELECT tenant_id, COUNT(*) FROM saas_events WHERE account_id IN (?, ?, ?) GROUP BY tenant_id ORDER BY tenant_id", []any{"c4ca4238-a0b9-4382-adcc-509a6f75849b", "C81E728D-9D4C-42F6-A2B9-9F67F3B8E7C6", "x"}},
	{"SELECT HEX(id), total, status FROM saas_invoices WHERE id = ?", []any{[]byte{0xb6, 0xa8, 0x32, 0xd0, 0x02, 0xcf, 0x05, 0x2c, 0x1f, 0x48, 0x82, 0x46, 0x17, 0xe7, 0xf0, 0x70}}},
	{"SELECT COUNT(*) FROM saas_events WHERE user_id = UNHEX(MD5(?)) AND tenant_id = ?", []any{"u42", uint64(1)}},
	{"SELECT tenant_id, SUM(amount) FROM saas_events WHERE amount > ? AND is_billable = ? GROUP BY tenant_id ORDER BY tenant_id LIMIT 5", []any{"9000.5", true}},
	{"SELECT tenant_id, id FROM saas_events WHERE counter > ? ORDER BY tenant_id, id", []any{uint64(18446744073709551000)}},
	{"SELECT name, COUNT(*) FROM saas_accounts WHERE name LIKE ? GROUP BY name ORDER BY name", []any{"%müller%"}},
	{"SELECT customer, balance FROM saas_legacy WHERE customer LIKE ? ORDER BY id LIMIT 5", []any{"ös%"}},
	{"SELECT JSON_VALUE(payload, '$.plan') p, COUNT(*) FROM saas_events WHERE tenant_id = ? AND JSON_VALUE(payload, '$.plan') = ? GROUP BY p", []any{2, "pro"}},
}
