// check.mjs: a foreign reader's check of one run directory's tables.
//
//   node datasets/interop/check.mjs RUNDIR [SCHEMA.md]
//
// DuckDB (@duckdb/node-api) reads every table of datasets/SCHEMA.md from
// RUNDIR and this script asserts that
//   - each table's columns, in order, have the names and the DuckDB types
//     SCHEMA.md documents (DESCRIBE);
//   - every row carries the run's experiment and run_id, and a Hive glob
//     over the experiment's runs adds a `run` column equal to run_id;
//   - the key/value metadata (parquet_kv_metadata: BLOB keys and values)
//     holds the schema version, plan hash, experiment, run id and table;
//   - count(*) of cells equals the number of cells in plan.json, in plan
//     order;
//   - for every ok cell, the `hist` of the histograms table, decoded with
//     hdr-histogram-js, gives exactly the cells table's latency percentiles
//     (p50 .. p99.99), total count and the spectrum table's rows;
//   - the SQL snippets of SCHEMA.md's "Reading the data" section run as
//     written, in a directory where results/demo is the run's experiment,
//     and return rows with a `run` column (check.py runs the Python ones).
// It prints what it checked and exits 1 listing every failure.
import { readFileSync, existsSync, mkdtempSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DuckDBInstance } from "@duckdb/node-api";
import * as hdr from "hdr-histogram-js";

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const historyMode = argv[0] === "--history";
const [runDirArg, schemaArg] = historyMode ? argv.slice(1) : argv;
if (!runDirArg) {
  console.error("usage: node check.mjs [--history] RUNDIR|HISTORYDIR [SCHEMA.md]");
  process.exit(2);
}
const runDir = resolve(runDirArg);
const schemaPath = resolve(schemaArg ?? join(here, "..", "SCHEMA.md"));

const failures = [];
const fail = (msg) => failures.push(msg);
const sq = (s) => "'" + s.replaceAll("'", "''") + "'";

// parseSchema reads the column tables of SCHEMA.md: a "### `name`" heading,
// then | column | Arrow type | DuckDB type | unit | null | meaning | rows
// (datasets/schema_doc_test.go parses the same tables).
function parseSchema(text) {
  const tables = new Map();
  let table = null;
  for (const line of text.split("\n")) {
    if (line.startsWith("### ")) {
      table = line.slice(4).replaceAll("`", "").trim();
      continue;
    }
    if (table === null) continue;
    if (!line.startsWith("|")) {
      if (tables.has(table)) table = null;
      continue;
    }
    const cells = line.replace(/^\||\|$/g, "").split("|").map((c) => c.trim());
    if (cells.length !== 6 || cells[0] === "column" || cells[0].startsWith("---")) continue;
    if (!tables.has(table)) tables.set(table, []);
    tables.get(table).push({ name: cells[0].replaceAll("`", ""), duck: cells[2], nullable: cells[4] === "yes" });
  }
  return tables;
}

const schema = parseSchema(readFileSync(schemaPath, "utf8"));
const schemaVersion = /Schema version \*\*(\d+)\*\*/.exec(readFileSync(schemaPath, "utf8"))?.[1];
if (schema.size === 0 || !schemaVersion) {
  console.error(`check.mjs: no tables or no schema version in ${schemaPath}`);
  process.exit(1);
}
if (historyMode) {
  process.exit(await checkHistory());
}
const plan = JSON.parse(readFileSync(join(runDir, "plan.json"), "utf8"));
const runId = basename(runDir).replace(/^run=/, "");

const db = await DuckDBInstance.create(":memory:");
const conn = await db.connect();
const rows = async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJS();

const counts = {};
// history.parquet spans the runs of an experiment and lives beside them,
// not in a run directory: --history checks it (checkHistory).
schema.delete("history");
for (const [table, cols] of schema) {
  const file = join(runDir, `${table}.parquet`);
  if (!existsSync(file)) {
    fail(`${table}: ${file} does not exist`);
    continue;
  }
  // hive_partitioning = false: DuckDB would otherwise detect run=<id> in the
  // path and add a `run` column, which the files do not hold.
  const src = `read_parquet(${sq(file)}, hive_partitioning = false)`;
  // Column names and types, in order.
  const desc = await rows(`DESCRIBE SELECT * FROM ${src}`);
  const got = desc.map((d) => `${d.column_name} ${d.column_type}`);
  const want = cols.map((c) => `${c.name} ${c.duck}`);
  if (got.join(", ") !== want.join(", ")) {
    const n = Math.max(got.length, want.length);
    for (let i = 0; i < n; i++) {
      if (got[i] !== want[i]) fail(`${table}: column ${i + 1} is "${got[i] ?? "(none)"}" in DuckDB, SCHEMA.md says "${want[i] ?? "(none)"}"`);
    }
  }
  // Non-null columns have no nulls.
  const present = new Set(desc.map((d) => d.column_name));
  const nonNull = cols.filter((c) => !c.nullable && present.has(c.name)).map((c) => `count(*) FILTER (WHERE "${c.name}" IS NULL) AS "${c.name}"`);
  const [nulls] = nonNull.length ? await rows(`SELECT ${nonNull.join(", ")} FROM ${src}`) : [{}];
  for (const [c, n] of Object.entries(nulls)) if (Number(n) !== 0) fail(`${table}.${c}: ${n} nulls in a column SCHEMA.md says is never null`);
  // Provenance columns.
  const [prov] = await rows(`SELECT count(*) AS n,
      count(*) FILTER (WHERE experiment <> ${sq(plan.experiment)} OR run_id <> ${sq(runId)}) AS wrong FROM ${src}`);
  counts[table] = Number(prov.n);
  if (Number(prov.wrong) !== 0) fail(`${table}: ${prov.wrong} rows with another experiment or run_id`);
  // Key/value metadata: BLOB keys and values.
  const kv = await rows(`SELECT typeof(key) AS kt, typeof(value) AS vt, decode(key) AS k, decode(value) AS v
      FROM parquet_kv_metadata(${sq(file)})`);
  const meta = Object.fromEntries(kv.map((r) => [r.k, r.v]));
  for (const r of kv) if (r.kt !== "BLOB" || r.vt !== "BLOB") fail(`${table}: kv metadata ${r.k} is ${r.kt}/${r.vt}, want BLOB/BLOB`);
  const wantMeta = {
    "yardstick.schema_version": schemaVersion,
    "yardstick.plan_hash": plan.hash,
    "yardstick.experiment": plan.experiment,
    "yardstick.run_id": runId,
    "yardstick.table": table,
  };
  for (const [k, v] of Object.entries(wantMeta)) if (meta[k] !== v) fail(`${table}: kv metadata ${k} = ${JSON.stringify(meta[k])}, want ${JSON.stringify(v)}`);
  if (!meta["yardstick.version"]) fail(`${table}: kv metadata has no yardstick.version`);
  if (!meta["ARROW:schema"]) fail(`${table}: no stored Arrow schema`);
}

// cells: one row per planned cell, in plan order.
const cellsFile = join(runDir, "cells.parquet");
if (counts.cells !== plan.cells.length) fail(`cells: count(*) = ${counts.cells}, plan.json has ${plan.cells.length} cells`);
const ids = (await rows(`SELECT cell_id FROM read_parquet(${sq(cellsFile)}, hive_partitioning = false) ORDER BY seq`)).map((r) => r.cell_id);
if (ids.join(",") !== plan.cells.map((c) => c.id).join(",")) fail("cells: cell ids differ from plan.json's, in plan order");

// The Hive glob across the experiment's runs adds `run`.
const glob = join(dirname(runDir), "*", "cells.parquet");
const hive = await rows(`SELECT typeof(run) AS t, count(*) AS n, count(*) FILTER (WHERE run <> run_id) AS wrong
    FROM read_parquet(${sq(glob)}, hive_partitioning = true) WHERE run = ${sq(runId)} GROUP BY ALL`);
if (hive.length !== 1 || hive[0].t !== "VARCHAR" || Number(hive[0].n) !== plan.cells.length || Number(hive[0].wrong) !== 0) {
  fail(`hive glob ${glob}: want a VARCHAR run column equal to run_id on ${plan.cells.length} rows, got ${JSON.stringify(hive, (_, v) => (typeof v === "bigint" ? Number(v) : v))}`);
}

// Histograms: decoded in JavaScript, they give the cells' percentiles.
const hists = await rows(`SELECT c.cell_id, c.requests, c.latency_p50_us, c.latency_p90_us, c.latency_p99_us,
      c.latency_p999_us, c.latency_p9999_us, h.total_count, h.hist
    FROM read_parquet(${sq(cellsFile)}) c
    LEFT JOIN read_parquet(${sq(join(runDir, "histograms.parquet"))}) h USING (cell_id)
    WHERE c.status IN ('ok', 'unfair') AND c.mode <> 'hold' ORDER BY c.seq`);
const spectrum = await rows(`SELECT cell_id, percentile, latency_us FROM read_parquet(${sq(join(runDir, "spectrum.parquet"))})`);
let decoded = 0;
for (const c of hists) {
  if (c.hist == null) {
    fail(`histograms: no histogram for ok cell ${c.cell_id}`);
    continue;
  }
  const h = hdr.decodeFromCompressedBase64(c.hist, 32, false);
  decoded++;
  if (h.totalCount !== Number(c.total_count)) fail(`cell ${c.cell_id}: decoded totalCount ${h.totalCount}, total_count ${c.total_count}`);
  const pcts = { latency_p50_us: 50, latency_p90_us: 90, latency_p99_us: 99, latency_p999_us: 99.9, latency_p9999_us: 99.99 };
  for (const [col, p] of Object.entries(pcts)) {
    const js = h.getValueAtPercentile(p);
    if (js !== Number(c[col])) fail(`cell ${c.cell_id}: hdr-histogram-js p${p} = ${js}, cells.${col} = ${c[col]}`);
  }
  const spec = spectrum.filter((s) => s.cell_id === c.cell_id);
  if (spec.length === 0) fail(`spectrum: no rows for ok cell ${c.cell_id}`);
  for (const s of spec) {
    const js = h.getValueAtPercentile(s.percentile);
    if (js !== Number(s.latency_us)) fail(`cell ${c.cell_id}: hdr-histogram-js p${s.percentile} = ${js}, spectrum.latency_us = ${s.latency_us}`);
  }
  h.destroy();
}
// A connection-holding cell has no request histogram; each of its steps
// has the heartbeats' delay histogram, whose p50, p99 and p99.9 are the
// row's.
const holdRows = await rows(`SELECT cell_id, step, heartbeats, delay_p50_us, delay_p99_us, delay_p999_us, delay_hist
    FROM read_parquet(${sq(join(runDir, "holds.parquet"))}) ORDER BY cell_id, step`);
let holdDecoded = 0;
for (const r of holdRows) {
  if (r.delay_hist === "") {
    if (Number(r.heartbeats) > 0) fail(`holds: cell ${r.cell_id} step ${r.step}: ${r.heartbeats} heartbeats and no delay histogram`);
    continue;
  }
  const h = hdr.decodeFromCompressedBase64(r.delay_hist, 32, false);
  holdDecoded++;
  for (const [col, p] of Object.entries({ delay_p50_us: 50, delay_p99_us: 99, delay_p999_us: 99.9 })) {
    const js = h.getValueAtPercentile(p);
    if (js !== Number(r[col])) fail(`holds: cell ${r.cell_id} step ${r.step}: hdr-histogram-js p${p} = ${js}, holds.${col} = ${r[col]}`);
  }
  h.destroy();
}
decoded += holdDecoded;
if (hists.length === 0 && holdDecoded === 0) fail("cells: no measured (ok or unfair) cell to check a histogram against");

// SCHEMA.md's SQL snippets, verbatim, from a directory where results/demo
// is this run's experiment directory (DuckDB resolves relative paths
// against the process's working directory).
const section = /^## Reading the data\n([\s\S]*?)^## /m.exec(readFileSync(schemaPath, "utf8"));
const snippets = section ? [...section[1].matchAll(/^```sql\n([\s\S]*?)^```/gm)].map((m) => m[1]) : [];
if (snippets.length === 0) fail('SCHEMA.md: no ```sql snippets under "## Reading the data"');
const tmp = mkdtempSync(join(tmpdir(), "yardstick-snippets-"));
const cwd = process.cwd();
try {
  mkdirSync(join(tmp, "results"));
  symlinkSync(dirname(runDir), join(tmp, "results", "demo"));
  process.chdir(tmp);
  for (const [i, sql] of snippets.entries()) {
    try {
      const got = await rows(sql);
      if (got.length === 0 || !("run" in got[0])) fail(`SCHEMA.md SQL snippet ${i + 1}: ${got.length} rows, want some with a run column`);
    } catch (e) {
      fail(`SCHEMA.md SQL snippet ${i + 1}: ${String(e.message ?? e).split("\n")[0]}`);
    }
  }
} finally {
  process.chdir(cwd);
  rmSync(tmp, { recursive: true, force: true });
}

const summary = Object.entries(counts).map(([t, n]) => `${t}=${n}`).join(" ");
console.log(`check.mjs: ${runDir}: ${schema.size} tables (${summary}); ${decoded} histograms decoded; ${snippets.length} SCHEMA.md SQL snippets ran`);
if (failures.length > 0) {
  console.error(`check.mjs: ${failures.length} failures:`);
  for (const f of failures) console.error("  " + f);
  process.exit(1);
}
console.log("check.mjs: ok");

// checkHistory checks a history directory (yardstick history's output):
// history.parquet's columns and DuckDB types as SCHEMA.md documents them,
// no nulls in its non-null columns, its kv metadata, one experiment, and
// every change's interval around its ratio. Returns the exit status.
async function checkHistory() {
  const file = join(runDir, "history.parquet");
  if (!existsSync(file)) {
    console.error(`check.mjs: ${file} does not exist`);
    return 1;
  }
  const db = await DuckDBInstance.create(":memory:");
  const conn = await db.connect();
  const q = async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJS();
  const src = `read_parquet(${sq(file)}, hive_partitioning = false)`;
  const cols = schema.get("history") ?? [];
  const desc = await q(`DESCRIBE SELECT * FROM ${src}`);
  const got = desc.map((d) => `${d.column_name} ${d.column_type}`).join(", ");
  const want = cols.map((c) => `${c.name} ${c.duck}`).join(", ");
  if (got !== want) fail(`history: DuckDB reads "${got}", SCHEMA.md says "${want}"`);
  const nonNull = cols.filter((c) => !c.nullable).map((c) => `count(*) FILTER (WHERE "${c.name}" IS NULL) AS "${c.name}"`);
  const [nulls] = await q(`SELECT ${nonNull.join(", ")} FROM ${src}`);
  for (const [c, n] of Object.entries(nulls)) if (Number(n) !== 0) fail(`history.${c}: ${n} nulls in a column SCHEMA.md says is never null`);
  const kv = await q(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata(${sq(file)})`);
  const meta = Object.fromEntries(kv.map((r) => [r.k, r.v]));
  if (meta["yardstick.table"] !== "history") fail(`history: kv metadata yardstick.table = ${meta["yardstick.table"]}`);
  if (meta["yardstick.schema_version"] !== schemaVersion) fail(`history: kv metadata schema version ${meta["yardstick.schema_version"]}, SCHEMA.md's ${schemaVersion}`);
  const [agg] = await q(`SELECT count(*) AS n, count(DISTINCT experiment) AS experiments, any_value(experiment) AS experiment,
      count(*) FILTER (WHERE change_ratio IS NOT NULL) AS changes,
      count(*) FILTER (WHERE change_ratio IS NOT NULL AND NOT (change_low <= change_ratio AND change_ratio <= change_high)) AS bad
      FROM ${src}`);
  if (Number(agg.n) === 0) fail("history: no rows");
  if (Number(agg.experiments) !== 1 || agg.experiment !== meta["yardstick.experiment"]) fail(`history: ${agg.experiments} experiments, metadata ${meta["yardstick.experiment"]}`);
  if (Number(agg.bad) !== 0) fail(`history: ${agg.bad} changes whose interval does not hold their ratio`);
  console.log(`check.mjs: ${runDir}: history ${agg.n} rows, ${agg.changes} changes`);
  if (failures.length) {
    console.error(`check.mjs: ${failures.length} failures:`);
    for (const f of failures) console.error("  " + f);
    return 1;
  }
  console.log("check.mjs: ok");
  return 0;
}
