"""check.py: the Python readers' check of one run directory's tables.

    .venv/bin/python datasets/interop/check.py RUNDIR [SCHEMA.md]
        [--schema-version N] [--yardstick-version V]

It reads every table that datasets/SCHEMA.md documents from RUNDIR, the way
a notebook would, and asserts that

  - pyarrow sees each table's columns, in order, with the Arrow types
    SCHEMA.md documents, and the key/value metadata holds the schema version
    (SCHEMA.md's, and --schema-version: the code's constant), the yardstick
    version (--yardstick-version, else the same non-empty value in every
    file), the plan hash, experiment, run id and table name;
  - pandas (engine pyarrow, dtype_backend "numpy_nullable") gives each
    column the dtype that its documented Arrow type maps to (TYPES below):
    integers stay integers even with nulls, timestamps are tz-aware UTC,
    dictionary columns are categoricals of strings, and no column is
    `object`; columns documented as never null have no nulls; every row
    carries the run's experiment and run_id; cells has the plan's cells in
    plan order;
  - polars' scan_parquet over <results>/<experiment>/*/cells.parquet with
    hive_partitioning=True has the documented polars types and a String
    `run` column that names every run of the experiment, equal to run_id;
  - every histogram in histograms.parquet decodes with the `hdrhistogram`
    package (HdrHistogram.decode: base64 of hdrhistogram-go's V2 compressed
    encoding) to a non-empty histogram with the row's total count, min, max
    and precision, whose percentiles are exactly the cells table's
    latency_p50_us .. latency_p9999_us and the spectrum table's rows;
  - the Python snippets of SCHEMA.md's "Reading the data" section run as
    written, in a directory where results/demo is the run's experiment.

Why numpy_nullable: the default backend turns an int64 column that may hold
nulls into float64 (most of cells'), and "pyarrow" gives ArrowDtype columns
that many pandas and matplotlib functions handle less well; numpy_nullable
keeps Int64/Float64/boolean/string with pd.NA for null, numpy datetime64[us,
UTC] for timestamps and category for dictionaries.

It prints what it checked and exits 1 listing every failure (2 on usage).
"""

import argparse
import bisect
import contextlib
import glob
import io
import json
import math
import os
import re
import sys
import tempfile
from pathlib import Path

import pandas as pd
import polars as pl
import pyarrow.parquet as pq
from hdrh.histogram import HdrHistogram

# SCHEMA.md's Arrow type -> what pyarrow, pandas (numpy_nullable) and polars
# read it as.
TYPES = {
    "dictionary<utf8>": ("dictionary<values=string, indices=int32, ordered=0>", "category", pl.Categorical),
    "utf8": ("string", "string", pl.String),
    "int64": ("int64", "Int64", pl.Int64),
    "float64": ("double", "Float64", pl.Float64),
    "bool": ("bool", "boolean", pl.Boolean),
    "timestamp[us, UTC]": ("timestamp[us, tz=UTC]", "datetime64[us, UTC]", pl.Datetime("us", "UTC")),
}

# The cells table's percentile columns and their percentiles.
PERCENTILES = {"latency_p50_us": 50, "latency_p90_us": 90, "latency_p99_us": 99,
               "latency_p999_us": 99.9, "latency_p9999_us": 99.99}

failures = []


def fail(msg):
    failures.append(msg)


def parse_schema(text):
    """The column tables of SCHEMA.md: a "### `name`" heading, then rows of
    | column | Arrow type | DuckDB type | unit | null | meaning |, as
    check.mjs and datasets/schema_doc_test.go parse them. Returns
    {table: [(column, arrow type, nullable)]}."""
    tables, table = {}, None
    for line in text.split("\n"):
        if line.startswith("### "):
            table = line[4:].replace("`", "").strip()
            continue
        if table is None:
            continue
        if not line.startswith("|"):
            if table in tables:
                table = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 6 or cells[0] == "column" or cells[0].startswith("---"):
            continue
        tables.setdefault(table, []).append(
            (cells[0].replace("`", ""), cells[1].replace("`", ""), cells[4] == "yes"))
    return tables


def buckets(h):
    """The non-empty buckets of a decoded histogram, in value order: their
    cumulative counts and a value of each."""
    cum, values, total = [], [], 0
    for i in range(h.counts_len):
        if n := h.get_count_at_index(i):
            total += n
            cum.append(total)
            values.append(h.get_value_from_index(i))
    return cum, values


def value_at_rank(h, b, rank, p):
    """The value of the rank-th smallest recorded value (1-based) as a
    percentile reports it: the highest value of its bucket, the lowest at
    p = 0. b is buckets(h)."""
    cum, values = b
    v = values[min(bisect.bisect_left(cum, rank), len(values) - 1)]
    return h.get_lowest_equivalent_value(v) if p == 0 else h.get_highest_equivalent_value(v)


def value_at_percentile(h, b, p):
    """The value at percentile p with the convention of the stored figures
    (HdrHistogram's Java and JavaScript libraries, datasets/hdrstat): rank
    ceil(p/100 x count) with hdrstat's one-ulp guard, at least 1. (hdrh's
    get_value_at_percentile rounds the rank to nearest instead.)"""
    x = min(p, 100) / 100 * h.get_total_count()
    return value_at_rank(h, b, max(1, math.ceil(x - (math.nextafter(x, math.inf) - x))), p)


def read_pandas(path):
    """How the check (and SCHEMA.md's snippets) read a table with pandas."""
    return pd.read_parquet(path, engine="pyarrow", dtype_backend="numpy_nullable")


def check_table(run_dir, table, cols, want_meta, versions):
    """pyarrow's schema and metadata, then pandas' dtypes and values, of one
    table. Returns the table as pandas read it, or None."""
    path = run_dir / f"{table}.parquet"
    if not path.exists():
        fail(f"{table}: {path} does not exist")
        return None
    # pyarrow: column names and Arrow types, in order.
    schema = pq.read_schema(path)
    got = [f"{f.name} {f.type}" for f in schema]
    want = [f"{name} {TYPES[arrow][0] if arrow in TYPES else arrow}" for name, arrow, _ in cols]
    for i in range(max(len(got), len(want))):
        g = got[i] if i < len(got) else "(none)"
        w = want[i] if i < len(want) else "(none)"
        if g != w:
            fail(f'{table}: column {i + 1} is "{g}" in pyarrow, SCHEMA.md says "{w}"')
    # pyarrow: the footer's key/value metadata (bytes to bytes).
    meta = {k.decode(): v.decode() for k, v in (pq.read_metadata(path).metadata or {}).items()}
    for k, v in {**want_meta, "yardstick.table": table}.items():
        if meta.get(k) != v:
            fail(f"{table}: metadata {k} = {meta.get(k)!r}, want {v!r}")
    if not meta.get("yardstick.version"):
        fail(f"{table}: metadata has no yardstick.version")
    versions.add(meta.get("yardstick.version"))
    if "ARROW:schema" not in meta:
        fail(f"{table}: no stored Arrow schema (ARROW:schema)")

    # pandas: one dtype per documented type, no accidental object column.
    df = read_pandas(path)
    for name, arrow, nullable in cols:
        if name not in df.columns:
            continue  # reported above
        dtype = df[name].dtype
        want = TYPES[arrow][1] if arrow in TYPES else f"(no pandas type for Arrow type {arrow})"
        if str(dtype) != want:
            fail(f"{table}.{name}: pandas dtype {dtype}, want {want} for Arrow type {arrow}")
        if dtype == object:
            fail(f"{table}.{name}: pandas dtype object")
        if str(dtype) == "category" and len(dtype.categories) and dtype.categories.dtype != "str":
            fail(f"{table}.{name}: categories of dtype {dtype.categories.dtype}, want str")
        if arrow.startswith("timestamp") and str(getattr(dtype, "tz", None)) != "UTC":
            fail(f"{table}.{name}: timestamps are not tz-aware UTC ({dtype})")
        if not nullable and (n := int(df[name].isna().sum())):
            fail(f"{table}.{name}: {n} nulls in a column SCHEMA.md says is never null")
    for name in ("experiment", "run_id"):
        want = want_meta["yardstick." + name]
        if name in df.columns and (n := int((df[name].astype("string") != want).sum())):
            fail(f"{table}: {n} rows with another {name} than {want!r}")
    return df


def check_polars(run_dir, schema, run_id, plan_cells):
    """polars over every run of the experiment, with Hive partitions."""
    pattern = str(run_dir.parent / "*" / "cells.parquet")
    lf = pl.scan_parquet(pattern, hive_partitioning=True)
    got = lf.collect_schema()
    for name, arrow, _ in schema["cells"]:
        want = TYPES[arrow][2] if arrow in TYPES else None
        if got.get(name) != want:
            fail(f"polars {pattern}: {name} is {got.get(name)}, want {want} for Arrow type {arrow}")
    if got.get("run") != pl.String:
        fail(f"polars {pattern}: the run column is {got.get('run')}, want String")
        return 0
    runs = lf.select("run", pl.col("run_id").cast(pl.String)).collect()
    if n := runs.filter(pl.col("run") != pl.col("run_id")).height:
        fail(f"polars {pattern}: {n} rows where run differs from run_id")
    dirs = sorted(Path(p).parent.name.removeprefix("run=") for p in glob.glob(pattern))
    if sorted(runs["run"].unique()) != dirs:
        fail(f"polars {pattern}: runs {sorted(runs['run'].unique())}, directories {dirs}")
    if (n := runs.filter(pl.col("run") == run_id).height) != plan_cells:
        fail(f"polars {pattern}: {n} rows of run {run_id}, plan.json has {plan_cells} cells")
    return len(dirs)


def check_histograms(cells, hists, spectrum):
    """Decode every histogram with hdrh; compare with cells and spectrum."""
    cells = cells.set_index("cell_id")
    # a connection-holding cell has no request histogram (holds.delay_hist)
    for cid in cells.index[cells.status.isin(["ok", "unfair"]) & (cells["mode"] != "hold")]:
        if cid not in set(hists.cell_id):
            fail(f"histograms: no histogram for ok cell {cid}")
    for row in hists.itertuples():
        h = HdrHistogram.decode(row.hist)
        if h.get_total_count() == 0:
            fail(f"cell {row.cell_id}: empty histogram")
            continue
        b = buckets(h)
        got = (h.get_total_count(), h.get_min_value(), h.get_max_value(), h.lowest_trackable_value,
               h.highest_trackable_value, h.significant_figures)
        want = (row.total_count, row.min_us, row.max_us, row.lowest_discernible_us,
                row.highest_trackable_us, row.significant_digits)
        if got != want:
            fail(f"cell {row.cell_id}: decoded (count, min, max, lowest, highest, digits) {got}, row {want}")
        if row.cell_id not in cells.index:
            fail(f"histograms: cell {row.cell_id} is not in cells")
            continue
        for col, p in PERCENTILES.items():
            v, stored = value_at_percentile(h, b, p), cells.at[row.cell_id, col]
            if pd.isna(stored) or v != stored:
                fail(f"cell {row.cell_id}: decoded p{p} = {v}, cells.{col} = {stored}")
            # hdrh's own percentile is the value at its rank (rounded to
            # nearest): the walk above agrees with the library.
            rank = max(1, int(p * h.get_total_count() / 100 + 0.5))
            if h.get_value_at_percentile(p) != value_at_rank(h, b, rank, p):
                fail(f"cell {row.cell_id}: hdrh p{p} = {h.get_value_at_percentile(p)}, "
                     f"value at its rank {rank} = {value_at_rank(h, b, rank, p)}")
        spec = spectrum[spectrum.cell_id == row.cell_id]
        if spec.empty:
            fail(f"spectrum: no rows for cell {row.cell_id}")
        for s in spec.itertuples():
            if (v := value_at_percentile(h, b, s.percentile)) != s.latency_us:
                fail(f"cell {row.cell_id}: decoded p{s.percentile} = {v}, spectrum.latency_us = {s.latency_us}")
    return len(hists)


def check_holds(holds):
    """Decode every step's heartbeat-delay histogram with hdrh: its p50,
    p99 and p99.9 are the row's (the walk of the buckets, as for cells)."""
    n = 0
    for row in holds.itertuples():
        if row.delay_hist == "":
            if row.heartbeats > 0:
                fail(f"holds: cell {row.cell_id} step {row.step}: {row.heartbeats} heartbeats and no delay histogram")
            continue
        h = HdrHistogram.decode(row.delay_hist)
        b = buckets(h)
        n += 1
        for col, p in {"delay_p50_us": 50, "delay_p99_us": 99, "delay_p999_us": 99.9}.items():
            if (v := value_at_percentile(h, b, p)) != getattr(row, col):
                fail(f"holds: cell {row.cell_id} step {row.step}: decoded p{p} = {v}, holds.{col} = {getattr(row, col)}")
    return n


def run_snippets(doc, run_dir):
    """Runs the ```python blocks of SCHEMA.md's "Reading the data" section,
    in order and in one namespace, in a temporary directory where
    results/demo links to the run's experiment directory, and checks what
    they leave behind."""
    section = re.search(r"^## Reading the data\n(.*?)(?=^## )", doc, re.M | re.S)
    blocks = re.findall(r"^```python\n(.*?)^```", section.group(1), re.M | re.S) if section else []
    if not blocks:
        fail('SCHEMA.md: no ```python snippets under "## Reading the data"')
        return 0
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "results"))
        os.symlink(run_dir.parent, os.path.join(tmp, "results", "demo"))
        ns, printed = {}, io.StringIO()
        try:
            os.chdir(tmp)
            for i, code in enumerate(blocks, 1):
                try:
                    with contextlib.redirect_stdout(printed):
                        exec(compile(code, f"SCHEMA.md python snippet {i}", "exec"), ns)
                except Exception as e:  # noqa: BLE001: any error is a failure
                    first = (str(e).strip().splitlines() or [""])[0]
                    fail(f"SCHEMA.md python snippet {i} raised {type(e).__name__}: {first}")
                    return i
        finally:
            os.chdir(cwd)
    # What the snippets promise (see SCHEMA.md).
    newest = os.path.dirname(sorted(glob.glob(str(run_dir.parent / "run=*" / "cells.parquet")))[-1])
    want_cells = len(json.loads((Path(newest) / "plan.json").read_text())["cells"])
    if len(ns.get("cells", ())) != want_cells:
        fail(f"SCHEMA.md snippets: cells has {len(ns.get('cells', ()))} rows, the newest run has {want_cells} cells")
    runs = ns.get("runs")
    if runs is None or "run" not in runs.columns or Path(newest).name.removeprefix("run=") not in set(runs["run"]):
        fail("SCHEMA.md snippets: runs (polars) has no run column naming the newest run")
    if ns.get("p99") != ns.get("stored_p99") or ns.get("p99") is None:
        fail(f"SCHEMA.md snippets: decoded p99 {ns.get('p99')}, cells' {ns.get('stored_p99')}")
    return len(blocks)


def check_history(hist_dir, schema, version):
    """A history directory (yardstick history's output): history.parquet
    with pyarrow's schema and metadata and pandas' dtypes (check_table),
    then polars: one experiment, run indexes from 0 in run order, and each
    changepoint's interval around its ratio."""
    path = hist_dir / "history.parquet"
    meta = {k.decode(): v.decode() for k, v in (pq.read_metadata(path).metadata or {}).items()} if path.exists() else {}
    want_meta = {"yardstick.schema_version": version}
    for k in ("yardstick.experiment", "yardstick.run_id"):
        if not meta.get(k):
            fail(f"history: metadata has no {k}")
        want_meta[k] = meta.get(k)
    df = check_table(hist_dir, "history", schema["history"], want_meta, set())
    if df is None:
        return 0
    lf = pl.read_parquet(path)
    if lf.height == 0:
        fail("history: no rows")
    if sorted(lf["experiment"].cast(pl.String).unique()) != [meta.get("yardstick.experiment")]:
        fail(f"history: experiments {sorted(lf['experiment'].cast(pl.String).unique())}, metadata {meta.get('yardstick.experiment')}")
    newest = lf.sort("run_index")["point_run_id"].cast(pl.String)[-1]
    if newest != meta.get("yardstick.run_id"):
        fail(f"history: the newest run is {newest}, the metadata's run_id {meta.get('yardstick.run_id')}")
    changes = lf.filter(pl.col("change_ratio").is_not_null())
    bad = changes.filter((pl.col("change_low") > pl.col("change_ratio")) | (pl.col("change_high") < pl.col("change_ratio")))
    if bad.height:
        fail(f"history: {bad.height} changes whose interval does not hold their ratio")
    print(f"check.py: {hist_dir}: history {lf.height} rows, {changes.height} changes")
    return lf.height


def main():
    ap = argparse.ArgumentParser(description="Check a run's tables with pandas, polars, pyarrow and hdrh.")
    ap.add_argument("run_dir", help="a run directory, or with --history a history directory")
    ap.add_argument("--history", action="store_true", help="run_dir is yardstick history's output directory: check history.parquet")
    ap.add_argument("schema", nargs="?", default=str(Path(__file__).parent.parent / "SCHEMA.md"))
    ap.add_argument("--schema-version", help="the expected yardstick.schema_version (datasets.SchemaVersion)")
    ap.add_argument("--yardstick-version", help="the expected yardstick.version")
    args = ap.parse_args()

    run_dir = Path(args.run_dir).resolve()
    doc = Path(args.schema).read_text()
    schema = parse_schema(doc)
    m = re.search(r"Schema version \*\*(\d+)\*\*", doc)
    if not schema or not m:
        print(f"check.py: no tables or no schema version in {args.schema}", file=sys.stderr)
        return 1
    if args.schema_version and args.schema_version != m.group(1):
        fail(f"SCHEMA.md documents schema version {m.group(1)}, the code's is {args.schema_version}")
    if args.history:
        check_history(run_dir, schema, args.schema_version or m.group(1))
        if failures:
            print(f"check.py: {len(failures)} failures:", file=sys.stderr)
            for f in failures:
                print("  " + f, file=sys.stderr)
            return 1
        print("check.py: ok")
        return 0
    try:
        plan = json.loads((run_dir / "plan.json").read_text())
    except (OSError, ValueError) as e:
        print(f"check.py: {run_dir}: not a run directory: {e}", file=sys.stderr)
        return 1
    run_id = run_dir.name.removeprefix("run=")
    want_meta = {
        "yardstick.schema_version": args.schema_version or m.group(1),
        "yardstick.plan_hash": plan["hash"],
        "yardstick.experiment": plan["experiment"],
        "yardstick.run_id": run_id,
    }
    if args.yardstick_version:
        want_meta["yardstick.version"] = args.yardstick_version

    versions = set()
    # history.parquet spans the runs of an experiment and lives beside
    # them, not in a run directory: --history checks it.
    schema.pop("history", None)
    frames = {t: check_table(run_dir, t, cols, want_meta, versions) for t, cols in schema.items()}
    if len(versions) > 1:
        fail(f"the tables were written by different yardstick versions: {sorted(map(str, versions))}")
    cells, hists, spectrum = frames.get("cells"), frames.get("histograms"), frames.get("spectrum")
    decoded = runs = snippets = 0
    if cells is not None:
        if list(cells.sort_values("seq").cell_id) != [c["id"] for c in plan["cells"]]:
            fail(f"cells: {len(cells)} rows whose cell ids differ from plan.json's {len(plan['cells'])}, in plan order")
        runs = check_polars(run_dir, schema, run_id, len(plan["cells"]))
        if hists is not None and spectrum is not None:
            decoded = check_histograms(cells, hists, spectrum)
            if frames.get("holds") is not None:
                decoded += check_holds(frames["holds"])
            if decoded == 0:
                fail("histograms: no histogram to decode")
    snippets = run_snippets(doc, run_dir)

    counts = " ".join(f"{t}={len(df)}" for t, df in frames.items() if df is not None)
    print(f"check.py: {run_dir}: {len(schema)} tables ({counts}); {decoded} histograms decoded; "
          f"polars saw {runs} runs; {snippets} SCHEMA.md snippets ran")
    if failures:
        print(f"check.py: {len(failures)} failures:", file=sys.stderr)
        for f in failures:
            print("  " + f, file=sys.stderr)
        return 1
    print("check.py: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
