// Shoal's Node mysql2 client check.
//
// Runs the client checks of e2e/clients_test.go with mysql2 against one
// server and prints every result as one JSON line, so the test can compare
// Shoal's answers with the primary's line by line. `execute` uses
// server-side prepared statements (binary protocol); `query` the text
// protocol.
//
// usage: node mysql2_client.js HOST PORT USER PASSWORD DATABASE
'use strict';
const mysql = require('mysql2/promise');

function enc(v) {
  if (v === null) return null;
  if (Buffer.isBuffer(v)) return 'bytes:' + v.toString('hex');
  if (v instanceof Date) return 'Date:' + v.toISOString();
  return typeof v + ':' + String(v);
}

async function run(conn, name, method, sql, args) {
  let out;
  try {
    const [rows, fields] = await conn[method]({ sql, rowsAsArray: true }, args);
    out = {
      name,
      cols: (fields || []).map((f) => [f.name, f.columnType, f.decimals]),
      rows: rows.map((r) => r.map(enc)),
    };
  } catch (e) {
    if (!e.errno) throw e;
    out = { name, error: e.errno };
  }
  console.log(JSON.stringify(out));
}

async function main() {
  const [host, port, user, password, database] = process.argv.slice(2);
  const conn = await mysql.createConnection({
    host, port: Number(port), user, password, database,
    charset: 'utf8mb4', dateStrings: true, supportBigNumbers: true, bigNumberStrings: true,
  });
  await run(conn, 'distributed', 'query',
    'select Carrier, count(*), sum(Distance), avg(ArrDelayMinutes) from ontime group by Carrier order by Carrier');
  await run(conn, 'distributed prepared', 'execute',
    'select Carrier, count(*), sum(Distance), avg(ArrDelayMinutes) from ontime where YearD between ? and ? and Origin = ? group by Carrier order by Carrier',
    [2000, 2005, 'SFO']);
  await run(conn, 'null decimal date prepared', 'execute',
    'select min(FlightDate), max(FlightDate), sum(ArrDelayMinutes * 1.5), count(TailNum), max(TailNum is null), sum(ArrDelayMinutes) / count(*) from ontime where FlightDate >= ?',
    ['2000-01-01']);
  await run(conn, 'double parameter', 'execute',
    'select Carrier, sum(Distance * ?) from ontime where ArrDelayMinutes > ? group by Carrier order by Carrier', [1.5, 30.25]);
  await run(conn, 'null parameter', 'execute', 'select count(*) from ontime where TailNum <=> ?', [null]);
  await run(conn, 'date parameter', 'execute',
    'select count(*) from ontime where FlightDate between ? and ?', [new Date(Date.UTC(2001, 0, 1)), new Date(Date.UTC(2002, 5, 30))]);
  await run(conn, 'non-ascii rows', 'execute', 'select code, name, country from carriers where code > ? order by code', ['']);
  await run(conn, 'non-ascii parameter', 'execute', "select ? as s, char_length(?) as n",
    ["h\u00e9llo \u2708 'q' \\ ? \u00fc", '\u00fcn\u00efc\u00f6d\u00e9']);
  await run(conn, 'rows prepared', 'execute',
    'select id, FlightDate, TailNum, ArrDelayMinutes from ontime where Origin = ? order by ArrDelayMinutes desc, id limit 10', ['SFO']);
  await run(conn, 'malformed', 'execute', 'selec nope from ontime where id = ?', [1]);
  await run(conn, 'good after malformed', 'execute', 'select count(*), min(id), max(id) from ontime where id > ?', [0]);
  await run(conn, 'malformed text', 'query', 'selec nope');
  await run(conn, 'good after malformed text', 'query', 'select count(*) from ontime');
  await conn.end();
}

main().catch((e) => { console.error(e); process.exit(1); });
