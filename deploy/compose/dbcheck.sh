#!/bin/bash
# Readiness of the compose cluster's database servers, for MySQL 8.4 and
# MariaDB alike (the server says which it is):
#
#   dbcheck.sh primary         exit 0 when the server answers over TCP
#                              (the images' init servers listen on no port)
#   dbcheck.sh replica         exit 0 when both replication threads run and
#                              the replica has applied everything the
#                              primary had binlogged a moment ago
#   dbcheck.sh wait HOST...    wait (WAIT_TIMEOUT seconds, default 1800)
#                              until each replica HOST has applied the
#                              primary's position read now; the one-shot
#                              job the benchmark and the coordinator wait for
#
# The primary is PRIMARY_HOST (default primary), read with the replication
# account (REPL_USER/REPL_PASSWORD, default repl/repl); servers are reached
# as root without a password, as the compose cluster sets them up.
set -uo pipefail
primary=${PRIMARY_HOST:-primary}
if command -v mariadb >/dev/null; then cli=mariadb; else cli=mysql; fi
q() { # q HOST USER PASSWORD SQL: one value, raw
  local host=$1 user=$2 pw=$3
  shift 3
  MYSQL_PWD=$pw $cli -h"$host" -u"$user" --connect-timeout=5 -N -B -r -e "$*"
}
flavour() { # mariadb or mysql, by what the server says
  case $(q "$1" root "" "SELECT VERSION()") in
    *MariaDB*) echo mariadb ;;
    "") return 1 ;;
    *) echo mysql ;;
  esac
}
# position HOST-FLAVOUR: the primary's binlogged GTID set.
position() {
  if [ "$1" = mariadb ]; then
    q "$primary" "${REPL_USER:-repl}" "${REPL_PASSWORD:-repl}" "SELECT @@GLOBAL.gtid_binlog_pos"
  else
    q "$primary" "${REPL_USER:-repl}" "${REPL_PASSWORD:-repl}" "SELECT REPLACE(@@GLOBAL.gtid_executed, '\n', '')"
  fi
}
# applied HOST FLAVOUR POS [TIMEOUT]: 0 when HOST has applied POS (waiting
# up to TIMEOUT seconds, 0: not at all).
applied() {
  local host=$1 fl=$2 pos=$3 wait=${4:-0} r
  if [ "$fl" = mariadb ]; then
    # MASTER_GTID_WAIT: 0 reached, -1 timed out.
    r=$(q "$host" root "" "SELECT MASTER_GTID_WAIT('$pos', $wait)")
  else
    if [ "$wait" -gt 0 ]; then
      # WAIT_FOR_EXECUTED_GTID_SET: 0 reached, 1 timed out.
      r=$(q "$host" root "" "SELECT WAIT_FOR_EXECUTED_GTID_SET('$pos', $wait)")
    else
      r=$(q "$host" root "" "SELECT 1 - GTID_SUBSET('$pos', @@GLOBAL.gtid_executed)")
    fi
  fi
  [ "$r" = 0 ]
}
# running HOST FLAVOUR: both replication threads run.
running() {
  local st
  if [ "$2" = mariadb ]; then
    st=$(MYSQL_PWD= $cli -h"$1" -uroot --connect-timeout=5 -e "SHOW SLAVE STATUS\G") || return 1
    grep -q "Slave_IO_Running: Yes" <<<"$st" && grep -q "Slave_SQL_Running: Yes" <<<"$st"
  else
    st=$(MYSQL_PWD= $cli -h"$1" -uroot --connect-timeout=5 -e "SHOW REPLICA STATUS\G") || return 1
    grep -q "Replica_IO_Running: Yes" <<<"$st" && grep -q "Replica_SQL_Running: Yes" <<<"$st"
  fi
}

case ${1:-} in
  primary)
    [ "$(q 127.0.0.1 root "" "SELECT 1")" = 1 ]
    ;;
  replica)
    fl=$(flavour 127.0.0.1) || exit 1
    running 127.0.0.1 "$fl" || { echo "replication threads not running"; exit 1; }
    pos=$(position "$fl") || { echo "primary unreachable"; exit 1; }
    applied 127.0.0.1 "$fl" "$pos" 0 || { echo "behind the primary's $pos"; exit 1; }
    ;;
  wait)
    shift
    deadline=$((SECONDS + ${WAIT_TIMEOUT:-1800}))
    fl=$(flavour "$primary") || { echo "dbcheck: primary $primary unreachable" >&2; exit 1; }
    pos=$(position "$fl") || exit 1
    for host in "$@"; do
      until applied "$host" "$fl" "$pos" 10; do
        if ! running "$host" "$fl"; then
          echo "dbcheck: replication on $host is not running" >&2
        fi
        if [ $SECONDS -ge $deadline ]; then
          echo "dbcheck: $host has not applied the primary's $pos after ${WAIT_TIMEOUT:-1800} s" >&2
          exit 1
        fi
        echo "dbcheck: waiting for $host to apply the primary's $pos" >&2
      done
      echo "dbcheck: $host has applied the primary's $pos" >&2
    done
    ;;
  *)
    echo "usage: dbcheck.sh primary | replica | wait HOST..." >&2
    exit 2
    ;;
esac
