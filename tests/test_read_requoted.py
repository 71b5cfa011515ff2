"""Exports saved again without ncu's quotes: opened in a spreadsheet and saved as CSV, or read with pandas and
written back with ``to_csv``. Both quote a field only where it needs it (ncu quotes every field), pandas pads the
ragged rows to the header's width, a spreadsheet writes a byte order mark and CRLF. The reader reads a copy
quoted as ncu writes it (``sniff.requoted``): the same frames as from ncu's own file, and messages that name the
user's file and its lines. A file whose fields another separator parts (";" in many locales) is named as such."""

from __future__ import annotations

import csv
import gzip
import io
import re
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from conftest import data

from ncu_roofline.errors import FormatError, ParseError
from ncu_roofline.io import read_one

#: Real exports of each flavour the reader keys on (details, raw, summary), and a real export of another
#: version and GPU (the V100 details page, ncu 2020.1, 12 columns).
SAMPLES = [
    "micro_full.details.csv",
    "micro_full.raw.csv",
    "micro_full.summary-per-kernel.csv",
    "wild/public/v100_summit_gene_dzv.csv",
]


def text_of(name: str) -> str:
    p = data(name)
    raw = gzip.decompress(p.read_bytes()) if p.name.endswith(".gz") else p.read_bytes()
    return raw.decode("utf-8")


def spreadsheet(text: str) -> bytes:
    """As a spreadsheet saves it: a field quoted only where it needs it, CRLF, a byte order mark; short rows
    stay short."""
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n").writerows(csv.reader(io.StringIO(text)))
    return b"\xef\xbb\xbf" + out.getvalue().encode("utf-8")


def pandas_again(text: str) -> bytes:
    """As ``pd.read_csv(...).to_csv(index=False)`` writes it: quoted where needed, short rows padded."""
    frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    return frame.to_csv(index=False).encode("utf-8")


def pandas_typed(text: str) -> bytes:
    """As ``pd.read_csv(...).to_csv(index=False)`` writes it with pandas' own types: a column with an empty cell
    is read as floats, so the raw page's IDs (its units row is empty there) come back as "0.0", "663.0"."""
    return pd.read_csv(io.StringIO(text), low_memory=False).to_csv(index=False).encode("utf-8")


def pandas_index(text: str) -> bytes:
    """As ``pd.read_csv(...).to_csv()`` writes it without ``index=False``: an unnamed first column of row numbers."""
    return pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False).to_csv().encode("utf-8")


def frames(path: Path) -> dict[str, pd.DataFrame]:
    report = read_one(path, "r")
    source = report.source.drop(columns=["path"])
    return {"launches": report.launches, "values": report.values, "rules": report.rules, "source": source}


@pytest.mark.parametrize(
    "saved", [spreadsheet, pandas_again, pandas_typed, pandas_index], ids=["spreadsheet", "pandas", "typed", "index"]
)
@pytest.mark.parametrize("name", SAMPLES)
def test_an_export_saved_again_reads_as_ncus_own(tmp_path: Path, name: str, saved: Callable[[str], bytes]) -> None:
    text = text_of(name)
    ncu = tmp_path / "ncu.csv"
    ncu.write_text(text, encoding="utf-8")
    again = tmp_path / "again.csv"
    again.write_bytes(saved(text))
    assert not again.read_bytes().lstrip(b"\xef\xbb\xbf").startswith(b'"')  # its header is not quoted
    want, got = frames(ncu), frames(again)
    if saved is pandas_typed and name.endswith(".raw.csv"):  # pandas reads ncu's "nan" cells as NaN, writes ""
        nan_cells = sum(row.count("nan") for row in csv.reader(io.StringIO(text)))
        assert nan_cells  # (this page has some: a derived metric ncu could not compute)
        want["source"]["metric_rows"] -= nan_cells  # cells the raw page no longer has (their value NaN either way)
    for key, frame in want.items():
        pd.testing.assert_frame_equal(got[key], frame, obj=key)
    assert read_one(again).source["path"].iloc[0] == str(again)


def test_a_saved_page_cut_short_is_named_by_its_own_line(tmp_path: Path) -> None:
    lines = spreadsheet(text_of("micro_full.details.csv")).split(b"\r\n")
    cut = next(n for n in range(400, len(lines)) if b'"' in lines[n - 1])  # a row with a quoted field (its kernel's)
    at = lines[cut - 1].index(b'"') + 5  # cut inside that field
    p = tmp_path / "cut.csv"
    p.write_bytes(b"\r\n".join(lines[: cut - 1]) + b"\r\n" + lines[cut - 1][:at])
    with pytest.raises(ParseError) as info:
        read_one(p)
    assert str(info.value).startswith(f"{p}:{cut}: "), info.value  # the user's file and line, not the copy's


def test_lines_before_an_unquoted_header_are_kept_and_counted(tmp_path: Path) -> None:
    body = spreadsheet(text_of("micro_full.raw.csv")).removeprefix(b"\xef\xbb\xbf")
    p = tmp_path / "capture.csv"
    p.write_bytes(b"==PROF== Connected to process 663\r\nprogram output, 3 fields, not a header\r\n" + body)
    report = read_one(p)
    assert len(report.launches) == 16
    assert report.source["skipped_lines"].iloc[0] == 2
    assert "line 1" in report.source["skipped"].iloc[0]


@pytest.mark.parametrize("sep", [";", "\t"])
def test_another_separator_is_named_with_its_line(tmp_path: Path, sep: str) -> None:
    rows = list(csv.reader(io.StringIO(text_of("micro_full.details.csv"))))
    out = io.StringIO()
    csv.writer(out, delimiter=sep, lineterminator="\n").writerows(rows)
    p = tmp_path / "semicolons.csv"
    p.write_text("some program output\n" + out.getvalue())
    expected = re.escape(f"{p}:2: an ncu header with its fields separated by {sep!r}, not ','")
    with pytest.raises(FormatError, match=f"^{expected}"):
        read_one(p)


def test_a_key_written_back_as_a_float_must_still_be_a_whole_number(tmp_path: Path) -> None:
    typed = pandas_typed(text_of("micro_full.raw.csv")).decode("utf-8")
    assert ",663.0," in typed  # the Process ID as pandas writes it back
    p = tmp_path / "typed.csv"
    p.write_text(typed.replace(",663.0,", ",663.5,", 1))
    with pytest.raises(ParseError, match=r"Process ID '663\.5' is not an integer"):
        read_one(p)


def test_blank_lines_keep_their_place_and_a_field_too_long_is_named_by_its_line(tmp_path: Path) -> None:
    lines = spreadsheet(text_of("micro_full.details.csv")).removeprefix(b"\xef\xbb\xbf").split(b"\r\n")
    p = tmp_path / "blanks.csv"
    p.write_bytes(b"\r\n".join([*lines[:60], b"", b"   ", *lines[60:]]))  # lines 61 and 62
    assert len(read_one(p).launches) == 16
    damaged = [*lines[:60], b"", b"   ", *lines[60:]]
    # a line past the blanks cut short in its unquoted tail: still named by its own number
    cut = next(n for n in range(100, len(damaged)) if b'"' not in damaged[n - 1][-12:])
    damaged[cut - 1] = damaged[cut - 1][:-12]
    p.write_bytes(b"\r\n".join(damaged))
    with pytest.raises(ParseError, match=rf"^{re.escape(str(p))}:{cut}: "):
        read_one(p)
    long = [*lines]
    long[9] = long[9][:20] + b"x" * 200_000 + long[9][20:]  # line 10: more than Python's csv module takes
    p.write_bytes(b"\r\n".join(long))
    with pytest.raises(ParseError, match=rf"^{re.escape(str(p))}:10: malformed CSV \(field larger than field limit"):
        read_one(p)


def test_pandas_row_numbers_are_left_out_and_must_be_row_numbers(tmp_path: Path) -> None:
    indexed = pandas_index(text_of("micro_full.details.csv")).decode("utf-8")
    assert indexed.startswith(",ID,Process ID,")  # the unnamed column of row numbers
    p = tmp_path / "indexed.csv"
    lines = indexed.split("\n")
    assert lines[8].startswith("7,0,")  # line 9: row number 7, launch ID 0
    lines[8] = "x" + lines[8]  # its row number made "x7"
    p.write_text("\n".join(lines))
    with pytest.raises(ParseError, match=rf"^{re.escape(str(p))}:9: a row number 'x7' before the ncu columns"):
        read_one(p)


@pytest.mark.parametrize("version", ["ncu-2022.3", "ncu-2024.2"])
def test_a_source_page_saved_again_is_named_as_a_source_page(tmp_path: Path, version: str) -> None:
    p = tmp_path / "source.csv"  # its header "Address,Source" and maybe more columns, without quotes
    p.write_bytes(spreadsheet(text_of(f"reexport/{version}/gene_dzv.source-sass.csv")))
    with pytest.raises(FormatError, match=rf"^{re.escape(str(p))}:2: this is ncu's source page"):
        read_one(p)


def test_a_compute_capability_saved_as_a_whole_number_is_read_as_ncus(tmp_path: Path) -> None:
    """A spreadsheet reads ncu's CC "9.0" as the number 9 and saves it so: the launches keep CC 9.0, and with it
    their GPU and the peaks the table gives it (it was "unknown device (CC 9)", without L1/L2 peaks)."""
    from ncu_roofline.analysis import analyze

    rows = list(csv.reader(io.StringIO(text_of("micro_full.details.csv"))))
    cc = rows[0].index("CC")
    assert {r[cc] for r in rows[1:] if len(r) > cc} == {"9.0"}
    saved = [[*r[:cc], "9", *r[cc + 1 :]] if i and len(r) > cc else r for i, r in enumerate(rows)]
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n").writerows(saved)
    again = tmp_path / "again.csv"
    again.write_text(out.getvalue(), encoding="utf-8")
    ncu = tmp_path / "ncu.csv"
    ncu.write_text(text_of("micro_full.details.csv"), encoding="utf-8")
    pd.testing.assert_frame_equal(frames(again)["launches"], frames(ncu)["launches"])
    want, got = analyze(read_one(ncu, "r")), analyze(read_one(again, "r"))
    pd.testing.assert_frame_equal(got.peaks, want.peaks)
    assert (got.launches["device_name"] == "NVIDIA H200").all()
