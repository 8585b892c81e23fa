#!/usr/bin/env python3
"""Shoal's ODBC client check (MariaDB Connector/ODBC through unixODBC, pyodbc).

ODBC is what Tableau, Power BI and Excel connect with. Runs the catalog
calls a BI tool makes on connect (SQLTables, SQLColumns, SQLPrimaryKeys,
SQLStatistics, SQLGetTypeInfo: the driver answers them with
information_schema queries and SHOW statements), then statements with and
without parameters (SQLPrepare / SQLExecute: the driver prepares on the
server), against one server and prints every result as one JSON line:
cursor.description (name, Python type, display size, internal size,
precision, scale, nullability), values with their Python types, row
counts, every result set of a multi-statement batch, and errors (SQLSTATE,
the server's error number and message), so the test can compare Shoal's
answers with the primary's line by line.

usage: odbc_client.py HOST PORT USER PASSWORD DATABASE
"""
import datetime
import decimal
import json
import re
import sys

import pyodbc

DRIVER = "MariaDB Unicode"


def enc(v):
    """A value with its Python type, so type differences show."""
    if v is None:
        return None
    if isinstance(v, (bytes, bytearray)):
        return "bytes:" + bytes(v).hex()
    if isinstance(v, float):
        return "float:" + repr(v)
    return type(v).__name__ + ":" + str(v)


def out(o):
    print(json.dumps(o, ensure_ascii=False, sort_keys=True), flush=True)


def error(name, e):
    state, msg = (e.args + ("", ""))[:2]
    # "[ma-3.1.18][<server version>]You have an error ... (1064) (SQLExecDirectW)":
    # the driver's and the server's versions are not the answer.
    m = re.search(r"\((\d+)\) \(SQL\w+\)$", msg)
    text = re.sub(r"^(\s*\[[^\]]*\])+", "", msg)
    text = re.sub(r" \(\d+\) \(SQL\w+\)$", "", text)
    out({"name": name, "sqlstate": state, "error": int(m.group(1)) if m else None, "message": text})


def result(name, cur):
    i = 0
    while True:
        o = {"name": "%s #%d" % (name, i), "rowcount": cur.rowcount}
        if cur.description:
            o["cols"] = [[d[0], d[1].__name__, d[2], d[3], d[4], d[5], d[6]] for d in cur.description]
            o["rows"] = [[enc(v) for v in r] for r in cur.fetchall()]
        out(o)
        i += 1
        if not cur.nextset():
            return


def run(cur, name, sql, *args):
    try:
        cur.execute(sql, *args)
        result(name, cur)
    except pyodbc.Error as e:
        error(name, e)


def catalog(cur, name, fn, keep=None):
    """A catalog call: every row, or those whose first columns match keep."""
    try:
        fn()
        cols = [d[0] for d in cur.description]
        rows = [[enc(v) for v in r] for r in cur.fetchall()]
        if keep:
            rows = [r for r in rows if keep(r)]
        out({"name": name, "cols": cols, "rows": rows})
    except pyodbc.Error as e:
        error(name, e)


def main():
    host, port, user, password, db = sys.argv[1:6]
    conn = pyodbc.connect("DRIVER={%s};SERVER=%s;PORT=%s;DATABASE=%s;UID=%s;PWD=%s;OPTION=67108864" % (
        DRIVER, host, port, db, user, password), autocommit=True)
    # The server's data is utf8mb4; pyodbc reads SQL_CHAR as UTF-8 too.
    conn.setdecoding(pyodbc.SQL_CHAR, encoding="utf-8")
    conn.setdecoding(pyodbc.SQL_WCHAR, encoding="utf-8")
    conn.setencoding(encoding="utf-8")
    cur = conn.cursor()
    out({"name": "info", "dbms": conn.getinfo(pyodbc.SQL_DBMS_NAME), "db": conn.getinfo(pyodbc.SQL_DATABASE_NAME),
         "read_only": conn.getinfo(pyodbc.SQL_DATA_SOURCE_READ_ONLY), "catalog_term": conn.getinfo(pyodbc.SQL_CATALOG_TERM),
         "quote": conn.getinfo(pyodbc.SQL_IDENTIFIER_QUOTE_CHAR)})
    catalog(cur, "SQLTables", lambda: cur.tables(catalog=db))
    catalog(cur, "SQLTables %", lambda: cur.tables(catalog="%"), keep=lambda r: r[0] == "str:" + db)
    catalog(cur, "SQLTables types", lambda: cur.tables(tableType="%"))
    catalog(cur, "SQLColumns ontime", lambda: cur.columns(table="ontime", catalog=db))
    catalog(cur, "SQLColumns carriers", lambda: cur.columns(table="carriers"))
    catalog(cur, "SQLPrimaryKeys", lambda: cur.primaryKeys("ontime", catalog=db))
    catalog(cur, "SQLStatistics", lambda: cur.statistics("carriers", catalog=db))
    catalog(cur, "SQLGetTypeInfo", lambda: cur.getTypeInfo(0))
    catalog(cur, "SQLSpecialColumns", lambda: cur.rowIdColumns("carriers", catalog=db))

    run(cur, "aggregate", "select Carrier, count(*), sum(Distance), avg(ArrDelayMinutes), min(FlightDate), max(FlightDate), "
        "stddev(ArrDelayMinutes), sum(Distance * 1.5), avg(Distance / 7e0), min(TailNum) from ontime group by Carrier order by Carrier")
    run(cur, "doubles", "select DayOfWeek, sum(Distance / 7e0), std(Distance), variance(DepDelayMinutes), max(Distance * 0.1e0) "
        "from ontime group by DayOfWeek order by DayOfWeek")
    run(cur, "dates", "select YearD, min(timestamp(FlightDate)), max(addtime(timestamp(FlightDate), '12:34:56')), "
        "max(FlightDate + interval 1 day), count(*) from ontime where YearD >= 2005 group by YearD order by YearD")
    run(cur, "utf8mb4", "select concat(Carrier, ' \u2708 \u00fc') as c, count(*) from ontime where YearD = 2004 "
        "group by Carrier order by Carrier")
    run(cur, "nulls", "select id, TailNum, ArrDelayMinutes from ontime where TailNum is null or ArrDelayMinutes is null "
        "order by id limit 5")
    run(cur, "pinned", "select code, name, country from carriers order by code")
    run(cur, "passthrough", "select c.name, count(*) from ontime o join carriers c on c.code = o.Carrier "
        "where o.YearD = 2002 group by c.name order by c.name")
    # Tableau's and Power BI's navigator and query folding: a LIMIT 0
    # probe, a top-N, quoted identifiers, ODBC escapes.
    run(cur, "probe", "SELECT * FROM `ontime`.`carriers` LIMIT 0")
    run(cur, "top n", "SELECT `Carrier` AS `Carrier`, SUM(`Distance`) AS `sum:Distance:ok` FROM `ontime` "
        "GROUP BY 1 ORDER BY 2 DESC LIMIT 5")
    run(cur, "odbc escapes", "SELECT {fn UCASE(Carrier)}, COUNT(*) FROM ontime WHERE FlightDate >= {d '2004-01-01'} "
        "GROUP BY Carrier ORDER BY Carrier")
    run(cur, "parameters", "select Carrier, count(*), sum(Distance), stddev(Distance) from ontime "
        "where YearD between ? and ? and Origin = ? group by Carrier order by Carrier", 2000, 2005, "SFO")
    run(cur, "parameters again", "select Carrier, count(*), sum(Distance), stddev(Distance) from ontime "
        "where YearD between ? and ? and Origin = ? group by Carrier order by Carrier", 1995, 2010, "LAX")
    run(cur, "typed parameters", "select count(*), min(FlightDate), sum(ArrDelayMinutes) from ontime "
        "where FlightDate >= ? and Distance > ? and TailNum <=> ? and ArrDelayMinutes > ?",
        datetime.date(2001, 1, 1), decimal.Decimal("500.5"), None, 12.5)
    run(cur, "limit parameter", "select id, Carrier, ArrDelayMinutes from ontime where Origin = ? "
        "order by ArrDelayMinutes desc, id limit ?", "SFO", 4)
    run(cur, "utf8mb4 parameter", "select code, name from carriers where name like ? or code = ? order by code",
        "%\u00d1and\u00fa%", "ZZ")
    run(cur, "warnings", "select cast('12abc' as signed), count(*) from ontime where id < 10")
    run(cur, "warning count", "select @@warning_count")
    run(cur, "multi", "select count(*) from ontime; select Carrier, count(*) from ontime group by Carrier order by Carrier limit 2")
    run(cur, "syntax error", "selec broken from ontime")
    run(cur, "syntax error prepared", "selec broken ?", 1)
    run(cur, "unknown column", "select nosuch from ontime where id = ?", 1)
    run(cur, "write text", "delete from carriers where 1 = 0")
    run(cur, "write prepared", "update carriers set name = ? where 1 = 0", "x")
    run(cur, "good after errors", "select count(*), max(id) from ontime where id < ?", 5000)
    conn.close()


if __name__ == "__main__":
    main()
