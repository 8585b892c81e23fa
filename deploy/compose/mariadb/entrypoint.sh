#!/bin/bash
# Entrypoint of the MariaDB flavour's servers (docker-compose.mariadb.yml):
# the official images' contract, small enough to read. On an empty data
# directory it runs mariadb-install-db, starts a server that listens on no
# port, gives root (no password) access from the other containers, runs
# /docker-entrypoint-initdb.d/*.sql (the primary's replication account,
# the replicas' CHANGE MASTER), and stops it; then it runs mariadbd with the
# compose command's flags in the foreground. Works with Debian's
# mariadb-server (shoal-mariadb:local, deploy/images.sh) and with the
# official mariadb images.
set -euo pipefail
datadir=/var/lib/mysql
if [ "${1:-}" != "" ] && [ "${1#-}" = "$1" ]; then
  exec "$@" # a command, not server flags
fi
mkdir -p /run/mysqld
chown mysql:mysql /run/mysqld "$datadir"

if [ ! -d "$datadir/mysql" ]; then
  echo "entrypoint: initialising $datadir" >&2
  mariadb-install-db --user=mysql --datadir="$datadir" --auth-root-authentication-method=normal \
    --skip-test-db --skip-name-resolve >/dev/null
  sock=/run/mysqld/init.sock
  # The same flags as the real server (binlog, GTID), no port, no
  # replication threads until the init SQL starts them.
  mariadbd --user=mysql --datadir="$datadir" --skip-networking --socket="$sock" --skip-slave-start "$@" &
  pid=$!
  for _ in $(seq 300); do
    if mariadb-admin --socket="$sock" -uroot ping >/dev/null 2>&1; then break; fi
    if ! kill -0 $pid 2>/dev/null; then echo "entrypoint: mariadbd exited during initialisation" >&2; exit 1; fi
    sleep 0.2
  done
  # Local accounts stay out of the binlog: a replica must own no GTIDs of
  # its own (gtid_strict_mode), and the primary's binlog starts with what
  # the init SQL replicates on purpose.
  mariadb --socket="$sock" -uroot <<SQL
SET SESSION sql_log_bin=0;
DROP USER IF EXISTS 'root'@'${HOSTNAME}';
CREATE USER IF NOT EXISTS 'root'@'%';
GRANT ALL PRIVILEGES ON *.* TO 'root'@'%' WITH GRANT OPTION;
SQL
  for f in /docker-entrypoint-initdb.d/*.sql; do
    [ -e "$f" ] || continue
    echo "entrypoint: running $f" >&2
    mariadb --socket="$sock" -uroot <"$f"
  done
  mariadb-admin --socket="$sock" -uroot shutdown
  wait $pid
  echo "entrypoint: initialised" >&2
fi
# All interfaces of the container (Debian's packaged config binds 127.0.0.1);
# the compose file publishes none of them beyond the host's loopback.
exec mariadbd --user=mysql --datadir="$datadir" --bind-address=0.0.0.0 "$@"
