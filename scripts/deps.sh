#!/usr/bin/env bash
# Makes sure what Shoal's demo and tests need is on this machine: Go and a
# MariaDB (or MySQL) server binary. Installs MariaDB from the distribution's
# packages when missing and we are root; otherwise says what to run.
set -euo pipefail
export PATH=$PATH:/usr/local/go/bin:/usr/sbin
if ! command -v go >/dev/null; then
  echo "Go 1.26 or newer is required: https://go.dev/doc/install (or: apt-get install -y golang-go on a recent distribution)" >&2
  exit 1
fi
if ! command -v mariadbd >/dev/null && ! command -v mysqld >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing mariadb-server (needed for the local cluster)..." >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mariadb-server mariadb-client >/dev/null
  else
    echo "A MariaDB server is required. Run: sudo apt-get install -y mariadb-server mariadb-client" >&2
    exit 1
  fi
fi
# The demo (scripts/demo.sh --demo) needs nothing more: the rest is for
# the tests.
if [ "${1:-}" = "--demo" ]; then
  exit 0
fi
# Client tests (e2e/clients_test.go, e2e/jdbc_test.go): PyMySQL, the JDBC
# driver and Node's mysqljs from the distribution, and Node's mysql2 when
# npm reaches its registry.
if ! /usr/bin/python3 -c 'import pymysql' 2>/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing python3-pymysql (PyMySQL client test)..." >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pymysql >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pymysql >/dev/null; }
fi
# JDBC client test (e2e/jdbc_test.go): a Java runtime whose image has the
# jdk.compiler module (it runs JdbcClient.java as a single-file source
# program; Debian's openjdk-17-jre-headless has it) and MariaDB Connector/J.
if { ! command -v java >/dev/null || [ ! -f /usr/share/java/mariadb-java-client.jar ]; } && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing default-jre-headless and libmariadb-java (JDBC client test)..." >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jre-headless libmariadb-java >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jre-headless libmariadb-java >/dev/null; }
fi
# Status page screenshots (e2e/observe_test.go): headless Chromium.
if ! command -v chromium >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing chromium (status page screenshot test)..." >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
fi
# Node client test (e2e TestClientNode): mysqljs from Debian's node-mysql
# (no npm registry needed; it brings nodejs when node is missing), and
# mysql2 from npm as well where the registry answers.
if ! NODE_PATH=/usr/share/nodejs node -e "require('mysql')" >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing node-mysql (Node client test)..." >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq node-mysql >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq node-mysql >/dev/null; } || echo "node-mysql not installed: the Node client test is skipped" >&2
fi
if command -v npm >/dev/null && [ ! -d "$(dirname "$0")/../e2e/clients/node/node_modules/mysql2" ]; then
  # Bounded: where the npm registry is out of reach npm retries for
  # minutes before it gives up.
  (cd "$(dirname "$0")/../e2e/clients/node" && timeout 60 npm ci --no-audit --no-fund --fetch-retries=0 >/dev/null 2>&1) || echo "npm ci failed (registry out of reach?): the Node test runs with Debian's node-mysql only" >&2
fi
# Clients with protocol implementations of their own (e2e/clients_more_test.go):
# PHP's mysqlnd (php-cli, php-mysql), MariaDB Connector/C through Perl's
# DBD::MariaDB, and ODBC (unixODBC, MariaDB Connector/ODBC, pyodbc). Each
# test is skipped, with its reason, where its client is missing.
if { ! command -v php >/dev/null || ! php -r 'exit(extension_loaded("mysqli") && extension_loaded("pdo_mysql") ? 0 : 1);' 2>/dev/null; } && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing php-cli and php-mysql (PHP mysqlnd client test)..." >&2
  DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq php-cli php-mysql >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq php-cli php-mysql >/dev/null; } || echo "php-mysql not installed: the PHP client test is skipped" >&2
fi
if ! perl -MDBD::MariaDB -e1 2>/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing libdbd-mariadb-perl (Connector/C client test)..." >&2
  DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq libdbd-mariadb-perl >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq libdbd-mariadb-perl >/dev/null; } || echo "libdbd-mariadb-perl not installed: the DBD::MariaDB client test is skipped" >&2
fi
if { ! /usr/bin/python3 -c 'import pyodbc' 2>/dev/null || ! odbcinst -q -d 2>/dev/null | grep -q 'MariaDB Unicode'; } && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing unixodbc, odbc-mariadb and python3-pyodbc (ODBC client test)..." >&2
  DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq unixodbc odbc-mariadb python3-pyodbc >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq unixodbc odbc-mariadb python3-pyodbc >/dev/null; } || echo "odbc-mariadb or python3-pyodbc not installed: the ODBC client test is skipped" >&2
fi
# docker-compose (v1, from the distribution) where the compose plugin is
# missing: it parses docker-compose.yml, and scripts/compose-test.sh runs the
# cluster with it when a Docker engine is there (deploy/images.sh installs
# debootstrap itself).
if ! command -v docker-compose >/dev/null && ! docker compose version >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-compose >/dev/null 2>&1 || echo "docker-compose not installed: the compose file check is skipped" >&2
fi
