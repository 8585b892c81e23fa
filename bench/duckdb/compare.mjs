// compare.mjs: the DuckDB side of "pinned tables vs DuckDB"
// (docs/benchmarks.md). It loads the rows that `shoal bench pinned
// --export DIR` wrote from a local cluster's primary into an in-memory
// DuckDB, with the column types MySQL reports for them, then times each
// query of the manifest: one warm-up run, then the best of --runs. It
// prints the times and the answers, and writes them as JSON (--out) for
// `shoal bench pinned --duckdb FILE`, which puts them beside Shoal's and
// checks the answers against MySQL's.
//
//   node compare.mjs --manifest DIR/manifest.json [--threads 2] [--runs 5] [--out DIR/duckdb.json]
//
// It also reports what the table would take as Arrow (one record batch,
// buffers unpadded) with DuckDB's column types, which are MySQL's widths:
// plain (strings as utf8: int32 offsets and bytes) and with string columns
// of fewer than 32768 distinct values dictionary-encoded (int16 codes plus
// the dictionary), the reference for a pinned table's Memory_bytes.

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { DuckDBInstance, version } from '@duckdb/node-api';

const { values: opts } = parseArgs({
  options: {
    manifest: { type: 'string' },
    threads: { type: 'string', default: '2' },
    runs: { type: 'string', default: '5' },
    out: { type: 'string' },
    quiet: { type: 'boolean', default: false },
  },
});
if (!opts.manifest) {
  console.error('usage: node compare.mjs --manifest DIR/manifest.json [--threads 2] [--runs 5] [--out FILE] [--quiet]');
  process.exit(2);
}
const threads = positive(opts.threads, '--threads');
const runs = positive(opts.runs, '--runs');
const manifest = JSON.parse(readFileSync(opts.manifest, 'utf8'));
const dataPath = resolve(dirname(opts.manifest), manifest.data);

// Fixed-width Arrow sizes of DuckDB's types; VARCHAR is computed.
const arrowWidth = {
  BOOLEAN: 1 / 8, TINYINT: 1, UTINYINT: 1, SMALLINT: 2, USMALLINT: 2, INTEGER: 4, UINTEGER: 4,
  BIGINT: 8, UBIGINT: 8, FLOAT: 4, DOUBLE: 8, DATE: 4, TIMESTAMP: 8, TIME: 8,
};
const maxDict = 1 << 15; // as package pinned: codes fit an int16

const instance = await DuckDBInstance.create(':memory:', { threads: String(threads) });
const conn = await instance.connect();
await conn.run(`SET threads = ${threads}`);
const setThreads = (await rows(`SELECT current_setting('threads')`))[0][0];

const ident = (s) => '"' + s.replaceAll('"', '""') + '"';
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
const table = ident(manifest.table);
const cols = manifest.columns;
await conn.run(`CREATE TABLE ${table} (${cols.map((c) => `${ident(c.name)} ${c.duckdb_type}${c.nullable ? '' : ' NOT NULL'}`).join(', ')})`);
let t0 = performance.now();
await conn.run(`COPY ${table} FROM ${lit(dataPath)} (FORMAT csv, DELIMITER '\t', HEADER false, QUOTE '', ESCAPE '', NULLSTR '\\N')`);
const loadMs = performance.now() - t0;
const count = Number((await rows(`SELECT count(*) FROM ${table}`))[0][0]);
if (count !== manifest.rows) {
  throw new Error(`loaded ${count} rows from ${dataPath}, the manifest says ${manifest.rows}`);
}

// Arrow sizes, and DuckDB's own memory for the table.
const arrow = { plain: 0, dict: 0, columns: [] };
for (const c of cols) {
  const name = ident(c.name);
  const [nulls, bytes, distinct, distinctBytes] = (await rows(
    `SELECT count(*) - count(${name}), ` +
    (c.duckdb_type === 'VARCHAR'
      ? `coalesce(sum(strlen(${name})), 0), count(DISTINCT ${name}), (SELECT coalesce(sum(strlen(v)), 0) FROM (SELECT DISTINCT ${name} AS v FROM ${table}))`
      : '0, 0, 0') + ` FROM ${table}`))[0].map(Number);
  const validity = nulls > 0 ? Math.ceil(count / 8) : 0;
  let plain, dict;
  if (c.duckdb_type === 'VARCHAR') {
    plain = 4 * (count + 1) + bytes + validity;
    dict = distinct <= maxDict ? 2 * count + validity + 4 * (distinct + 1) + distinctBytes : plain;
  } else {
    const w = arrowWidth[c.duckdb_type.replace(/\(.*/, '')];
    if (w === undefined) throw new Error(`no Arrow width for ${c.name} ${c.duckdb_type}`);
    plain = dict = Math.ceil(w * count) + validity;
  }
  arrow.plain += plain;
  arrow.dict += dict;
  arrow.columns.push({ name: c.name, type: c.duckdb_type, nulls, plain, dict });
}
const duckdbMemory = Number((await rows(`SELECT coalesce(sum(memory_usage_bytes), 0) FROM duckdb_memory()`))[0][0]);

let check = null;
if (manifest.check) check = (await rows(manifest.check))[0].map(String);

const results = [];
for (const q of manifest.queries) {
  await rows(q.sql); // warm-up
  const times = [];
  let answer, names;
  for (let i = 0; i < runs; i++) {
    t0 = performance.now();
    const reader = await conn.runAndReadAll(q.sql);
    const r = reader.getRowsJson();
    times.push(performance.now() - t0);
    answer = r.map((row) => row.map(cell));
    names = reader.columnNames();
  }
  results.push({ name: q.name, sql: q.sql, best_ms: Math.min(...times), runs_ms: times, columns: names, rows: answer });
}

const report = {
  duckdb_version: version(),
  threads: Number(setThreads),
  table: manifest.table,
  rows: count,
  load_ms: loadMs,
  arrow_bytes: arrow.plain,
  arrow_dict_bytes: arrow.dict,
  arrow_columns: arrow.columns,
  duckdb_memory_bytes: duckdbMemory,
  check,
  queries: results,
};
if (opts.out) writeFileSync(opts.out, JSON.stringify(report, null, 2) + '\n');

console.log(`DuckDB ${report.duckdb_version}, in memory, threads = ${report.threads}; ${count} rows of ${manifest.table} loaded in ${(loadMs / 1000).toFixed(1)} s`);
console.log(`Arrow size: ${arrow.plain} bytes (${(arrow.plain / count).toFixed(1)} per row) plain, ` +
  `${arrow.dict} bytes (${(arrow.dict / count).toFixed(1)} per row) with dictionary strings; ` +
  `DuckDB holds ${duckdbMemory} bytes (${(duckdbMemory / count).toFixed(1)} per row)`);
for (const r of results) {
  console.log(`${r.name}: best ${r.best_ms.toFixed(1)} ms of ${runs} (${r.runs_ms.map((t) => t.toFixed(1)).join(', ')})`);
  if (!opts.quiet) {
    console.log('  ' + r.columns.join('\t'));
    for (const row of r.rows) console.log('  ' + row.join('\t'));
  }
}
if (opts.out) console.log(`wrote ${opts.out}`);

async function rows(sql) {
  const reader = await conn.runAndReadAll(sql);
  return reader.getRowsJson();
}

// cell renders one JSON value as MySQL's text protocol would: NULL, or the
// value's text (BIGINT and DECIMAL arrive as strings, DOUBLE as numbers).
function cell(v) {
  return v === null ? 'NULL' : String(v);
}

function positive(s, flag) {
  const n = Number(s);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`${flag}: ${s} is not a positive integer`);
    process.exit(2);
  }
  return n;
}
