"""Records ↔ Parquet, with writer options pinned so equal rows give byte-identical files.

Determinism: rows arrive sorted; every writer option that affects bytes is fixed here (format
version, page version, compression and level, no dictionary, no statistics, one row group, no
page index or checksums); Parquet files hold no timestamps. The footer's ``created_by`` names the
pyarrow version, which pyarrow does not let us set — byte identity therefore holds for one
pinned pyarrow version (the `hub` extra pins it).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from validator.corpus.canonical import data_json
from validator.hub.records import Column

if TYPE_CHECKING:
    import pyarrow as pa

WRITER_OPTIONS: dict[str, Any] = {
    "version": "2.6",
    "data_page_version": "1.0",
    "compression": "zstd",
    "compression_level": 9,
    "use_dictionary": False,
    "write_statistics": False,
    "write_page_index": False,
    "write_page_checksum": False,
    "store_schema": True,
    "use_compliant_nested_type": True,
}


def arrow_schema(columns: Sequence[Column]) -> pa.Schema:
    import pyarrow as pa

    types = {"string": pa.string(), "json": pa.string(), "bool": pa.bool_(), "int": pa.int64(), "strings": pa.list_(pa.string())}
    return pa.schema([pa.field(c.name, types[c.type], nullable=c.optional) for c in columns])


def encode(record: dict[str, Any], columns: Sequence[Column]) -> dict[str, Any]:
    """A decoded record as a row: JSON columns become compact JSON text in the data's own key order
    (``validator.corpus.canonical.data_json``), absent fields null."""
    row: dict[str, Any] = {}
    for column in columns:
        value = record.get(column.name)
        if value is not None and column.type == "json":
            value = data_json(value)
        row[column.name] = value
    return row


def decode(row: dict[str, Any], columns: Sequence[Column]) -> dict[str, Any]:
    """A row as read back (from pyarrow or from `datasets`) as a decoded record."""
    record: dict[str, Any] = {}
    for column in columns:
        value = row.get(column.name)
        if value is None:
            continue
        record[column.name] = json.loads(value) if column.type == "json" else value
    return record


def write_records(path: Path, records: Sequence[dict[str, Any]], columns: Sequence[Column]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = arrow_schema(columns)
    table = pa.Table.from_pylist([encode(r, columns) for r in records], schema=schema)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, row_group_size=max(1, len(records)), **WRITER_OPTIONS)


def read_records(path: Path, columns: Sequence[Column]) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    return [decode(row, columns) for row in table.to_pylist()]
