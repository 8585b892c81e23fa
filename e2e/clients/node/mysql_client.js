// Shoal's Node client check with mysqljs (the `mysql` package, Debian's
// node-mysql), for machines where the npm registry is out of reach.
//
// The same cases as mysql2_client.js, one JSON line per result, so the
// test compares Shoal's answers with the primary's line by line. mysqljs
// speaks the text protocol only: the `?` placeholders are escaped and
// interpolated by the client (no server-side prepare).
//
// usage: NODE_PATH=/usr/share/nodejs node mysql_client.js HOST PORT USER PASSWORD DATABASE
'use strict';
const mysql = require('mysql');

function enc(v) {
  if (v === null) return null;
  if (Buffer.isBuffer(v)) return 'bytes:' + v.toString('hex');
  if (v instanceof Date) return 'Date:' + v.toISOString();
  return typeof v + ':' + String(v);
}

function run(conn, name, sql, args) {
  return new Promise((resolve, reject) => {
    conn.query({ sql, values: args }, (err, rows, fields) => {
      let out;
      if (err) {
        if (!err.errno) return reject(err);
        out = { name, error: err.errno };
      } else {
        // Rows come as objects keyed by column name: read them in the
        // fields' order (the cases have no duplicate column names).
        const cols = fields || [];
        out = {
          name,
          cols: cols.map((f) => [f.name, f.type, f.decimals]),
          rows: rows.map((r) => cols.map((f) => enc(r[f.name]))),
        };
      }
      console.log(JSON.stringify(out));
      resolve();
    });
  });
}

async function main() {
  const [host, port, user, password, database] = process.argv.slice(2);
  const conn = mysql.createConnection({
    host, port: Number(port), user, password, database,
    charset: 'UTF8MB4_GENERAL_CI', dateStrings: true, supportBigNumbers: true, bigNumberStrings: true, timezone: 'Z',
  });
  await new Promise((resolve, reject) => conn.connect((err) => (err ? reject(err) : resolve())));
  await run(conn, 'distributed',
    'select Carrier, count(*), sum(Distance), avg(ArrDelayMinutes) from ontime group by Carrier order by Carrier');
  await run(conn, 'distributed with values',
    'select Carrier, count(*), sum(Distance), avg(ArrDelayMinutes) from ontime where YearD between ? and ? and Origin = ? group by Carrier order by Carrier',
    [2000, 2005, 'SFO']);
  await run(conn, 'null decimal date',
    'select min(FlightDate), max(FlightDate), sum(ArrDelayMinutes * 1.5), count(TailNum), max(TailNum is null), sum(ArrDelayMinutes) / count(*) from ontime where FlightDate >= ?',
    ['2000-01-01']);
  await run(conn, 'double value',
    'select Carrier, sum(Distance * ?) from ontime where ArrDelayMinutes > ? group by Carrier order by Carrier', [1.5, 30.25]);
  await run(conn, 'null value', 'select count(*) from ontime where TailNum <=> ?', [null]);
  await run(conn, 'date value',
    'select count(*) from ontime where FlightDate between ? and ?', [new Date(Date.UTC(2001, 0, 1)), new Date(Date.UTC(2002, 5, 30))]);
  await run(conn, 'non-ascii rows', 'select code, name, country from carriers where code > ? order by code', ['']);
  await run(conn, 'non-ascii value', 'select ? as s, char_length(?) as n',
    ["h\u00e9llo \u2708 'q' \\ ? \u00fc", '\u00fcn\u00efc\u00f6d\u00e9']);
  await run(conn, 'rows',
    'select id, FlightDate, TailNum, ArrDelayMinutes from ontime where Origin = ? order by ArrDelayMinutes desc, id limit 10', ['SFO']);
  await run(conn, 'malformed', 'selec nope from ontime where id = ?', [1]);
  await run(conn, 'good after malformed', 'select count(*), min(id), max(id) from ontime where id > ?', [0]);
  await new Promise((resolve) => conn.end(() => resolve()));
}

main().catch((e) => { console.error(e); process.exit(1); });
