#!/usr/bin/env python3
"""Shoal's PyMySQL client check.

Runs the client checks of e2e/clients_test.go with PyMySQL against one
server and prints every result as one JSON line, so the test can compare
Shoal's answers with the primary's line by line.

usage: pymysql_client.py HOST PORT USER PASSWORD DATABASE
"""
import datetime
import decimal
import json
import sys

import pymysql


def enc(v):
    """A value with its Python type, so type differences show."""
    if v is None:
        return None
    if isinstance(v, (bytes, bytearray)):
        return "bytes:" + v.hex()
    if isinstance(v, decimal.Decimal):
        return "Decimal:" + str(v)
    if isinstance(v, (datetime.date, datetime.datetime, datetime.timedelta)):
        return type(v).__name__ + ":" + str(v)
    if isinstance(v, float):
        return "float:" + repr(v)
    if isinstance(v, int):
        return "int:" + str(v)
    return type(v).__name__ + ":" + str(v)


def run(cur, name, query, args=None):
    try:
        cur.execute(query, args)
        cols = [[d[0], d[1]] for d in cur.description or []]
        rows = [[enc(v) for v in r] for r in cur.fetchall()]
        out = {"name": name, "cols": cols, "rows": rows}
    except pymysql.MySQLError as e:
        out = {"name": name, "error": e.args[0]}
    print(json.dumps(out, ensure_ascii=False, sort_keys=True), flush=True)


def main():
    host, port, user, password, db = sys.argv[1:6]
    conn = pymysql.connect(host=host, port=int(port), user=user, password=password,
                           database=db, charset="utf8mb4")
    cur = conn.cursor()
    run(cur, "distributed",
        "select Carrier, count(*), sum(Distance), avg(ArrDelayMinutes) from ontime group by Carrier order by Carrier")
    run(cur, "parameters",
        "select Carrier, count(*) from ontime where YearD between %s and %s and Origin = %s group by Carrier order by Carrier",
        (2000, 2005, "SFO"))
    run(cur, "null decimal date",
        "select min(FlightDate), max(FlightDate), sum(ArrDelayMinutes * 1.5), count(TailNum), max(TailNum is null), "
        "sum(ArrDelayMinutes) / count(*) from ontime where FlightDate >= %s",
        (datetime.date(2000, 1, 1),))
    run(cur, "decimal parameter", "select count(*) from ontime where Distance > %s", (decimal.Decimal("500.5"),))
    run(cur, "null parameter", "select count(*) from ontime where TailNum <=> %s", (None,))
    run(cur, "non-ascii rows", "select code, name, country from carriers order by code")
    run(cur, "non-ascii parameter", "select %s as s, char_length(%s) as n",
        ("h\u00e9llo \u2708 'q' \\ ? \u00fc", "\u00fcn\u00efc\u00f6d\u00e9"))
    run(cur, "passthrough", "select code, name from carriers where code = %s", ("AA",))
    run(cur, "malformed", "selec nope from ontime")
    run(cur, "good after malformed", "select count(*), min(id), max(id) from ontime")
    # What the driver reads off the server status flags: autocommit and
    # the open transaction, and NO_BACKSLASH_ESCAPES, under which pymysql
    # escapes a quote by doubling it instead of with a backslash.
    flags = []
    for q in ["begin", "select Carrier, count(*) from ontime group by Carrier", "commit",
              "set autocommit = 0", "select 1", "commit", "set autocommit = 1",
              "start transaction read only", "select 1", "rollback"]:
        cur.execute(q)
        cur.fetchall()
        flags.append([q, conn.server_status & 0x2203, conn.get_autocommit()])
    print(json.dumps({"name": "status flags", "rows": flags}), flush=True)
    run(cur, "no backslash escapes", "set sql_mode = concat(@@sql_mode, ',NO_BACKSLASH_ESCAPES')")
    run(cur, "escaped under no backslash escapes",
        "select %s as s, count(*) from ontime where Carrier = %s", ("it's a \\ back'slash", "AA"))
    run(cur, "escaped, distributed", "select Carrier, count(*), %s as s from ontime group by Carrier order by Carrier",
        ("o'\\k",))
    conn.close()


if __name__ == "__main__":
    main()
