""".ncu-rep reports cut short: one line naming the file, exit 3 (an input error), never a crash or "no kernels".

Each cut file is made from the real micro_roof.ncu-rep (16 launches, 10,684,224 bytes), as a copy interrupted
while it was written or downloaded would be. ncu_report itself reads such a file without a word: its last result
has no name and no metrics (which crashed with AttributeError), or, cut in the first blocks, it has no result.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import data

import ncu_roofline
from ncu_roofline import cli
from ncu_roofline.errors import EXIT_INPUT, ParseError
from ncu_roofline.io import ncurep

MICRO_ROOF = gzip.decompress(data("micro_roof.ncu-rep.gz").read_bytes())
#: 9: in the file header; 100: in the first block's header; 5 kB and 50 kB: in the first block (no result read
#: yet, which said "the report holds no profiled kernels"); 2 MB, 8 MB and 224 bytes before the end: in a result
#: block (the AttributeError); 1 byte before the end.
CUTS = [9, 100, 5_000, 50_000, 2_000_000, 8_000_000, len(MICRO_ROOF) - 224, len(MICRO_ROOF) - 1]


def cut_copy(tmp_path: Path, size: int) -> Path:
    p = tmp_path / "cut.ncu-rep"
    p.write_bytes(MICRO_ROOF[:size])
    return p


def damaged(path: Path, size: int, message: str) -> None:
    assert "\n" not in message, message
    assert message.startswith(f"{path}: the report is damaged or cut short ("), message
    assert f"it ends at byte {size}, " in message, message


@pytest.mark.parametrize("size", CUTS)
def test_a_cut_report_is_damaged(tmp_path: Path, size: int) -> None:
    p = cut_copy(tmp_path, size)
    with pytest.raises(ParseError) as info:
        ncu_roofline.read(p)
    assert info.value.exit_code == EXIT_INPUT
    damaged(p, size, str(info.value))


def test_the_missing_bytes_are_counted(tmp_path: Path) -> None:
    p = cut_copy(tmp_path, len(MICRO_ROOF) - 224)
    with pytest.raises(ParseError, match=r"inside block \d+ \(from byte \d+\), 224 bytes short;"):
        ncu_roofline.read(p)


@pytest.mark.parametrize("size", [100, 50_000, len(MICRO_ROOF) - 224])
def test_command_line_exit_3_one_line(tmp_path: Path, size: int) -> None:
    ncurep._module()  # skipped as every .ncu-rep test is (conftest) where the ncu-rep extra is not installed
    p = cut_copy(tmp_path, size)
    r = CliRunner().invoke(cli.main, [str(p)])
    assert r.exit_code == EXIT_INPUT, r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    assert lines[0].startswith("ncu-roofline: error: ")
    damaged(p, size, lines[0].removeprefix("ncu-roofline: error: "))


@pytest.mark.parametrize("name", ["micro_roof.ncu-rep.gz", "wild/public/v100_summit_gene_dzv.ncu-rep.gz"])
def test_whole_reports_are_not_cut(tmp_path: Path, name: str) -> None:
    p = tmp_path / "whole.ncu-rep"
    p.write_bytes(gzip.decompress(data(name).read_bytes()))
    assert ncurep.cut_short(p) is None


def test_a_result_without_a_name_is_damaged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Damage the container walk does not see: ncu_report's result without a kernel name is refused too."""
    monkeypatch.setattr(ncurep, "cut_short", lambda path: None)
    p = cut_copy(tmp_path, len(MICRO_ROOF) - 224)
    with pytest.raises(ParseError) as info:
        ncu_roofline.read(p)
    message = str(info.value)
    assert "\n" not in message
    assert re.fullmatch(
        rf"{re.escape(str(p))}: the report is damaged or cut short \(result 16 has no kernel name.*", message
    )
