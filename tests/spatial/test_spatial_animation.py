"""Animations of spatial results (``nonsmooth.spatial.animation``, ``Result.animate``,
``nonsmooth run ... --animate``): a GIF with one image per frame time, written off screen; a
planar result, a bad suffix or a missing folder refused in one line."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

import nonsmooth
from nonsmooth.errors import ModelError
from nonsmooth.models import build
from nonsmooth.spatial.animation import animate, frame_times


@pytest.fixture(scope="module")
def four_bar():
    return nonsmooth.simulate(build("spatial_four_bar"), 0.5, dt=0.01)


def test_frame_times():
    np.testing.assert_allclose(frame_times(0.0, 1.0, 30.0), np.arange(31) / 30.0)
    assert len(frame_times(0.0, 0.5, 20.0, speed=0.5)) == 21
    assert len(frame_times(0.0, 0.01, 30.0)) == 1


def test_result_animates_to_a_gif(four_bar, tmp_path):
    path = four_bar.animate(tmp_path / "run.gif", fps=20, trace=True)
    assert path == tmp_path / "run.gif" and path.stat().st_size > 0
    with Image.open(path) as im:
        assert im.format == "GIF" and im.n_frames == 11  # t = 0, 0.05, ... 0.5 s
        assert im.size == (480, 480)  # 6 in x 80 dpi


def test_animate_options(tmp_path):
    r = nonsmooth.simulate(build("spatial_gyroscope"), 0.2, dt=0.005)
    path = animate(r, tmp_path / "top.gif", fps=10, speed=0.5, triads=False, dpi=40,
                   title="top", elev=10, azim=30)
    with Image.open(path) as im:
        assert im.n_frames == 5 and im.size == (240, 240)


def test_animate_refuses_planar_results_and_bad_paths(four_bar, tmp_path):
    planar = nonsmooth.simulate(build("crank_rocker"), 0.1)
    with pytest.raises(ModelError, match="cannot animate 'crank_rocker': .*spatial models"):
        planar.animate(tmp_path / "x.gif")
    with pytest.raises(ModelError, match=r"unknown format '.png'"):
        four_bar.animate(tmp_path / "x.png")
    with pytest.raises(ModelError, match="does not exist"):
        four_bar.animate(tmp_path / "missing" / "x.gif")
    with pytest.raises(ModelError, match="must be positive"):
        four_bar.animate(tmp_path / "x.gif", fps=0)
    assert not list(tmp_path.iterdir())


def test_cli_animate(tmp_path, capsys):
    from nonsmooth.cli import main

    out = tmp_path / "run.gif"
    assert main(["run", "spatial_four_bar", "--t-end", "0.2", "--animate", str(out)]) == 0
    assert f"wrote animation to {out}" in capsys.readouterr().out
    with Image.open(out) as im:
        assert im.n_frames == 7  # 30 frames per simulated second
    for argv, match in (
            (["run", "crank_rocker", "--t-end", "0.1", "--animate", str(tmp_path / "p.gif")],
             "cannot animate 'crank_rocker'"),
            (["run", "spatial_four_bar", "--animate", str(tmp_path / "no" / "a.gif")],
             "does not exist"),
            (["run", "spatial_four_bar", "--animate", str(tmp_path / "a.avi")],
             "unknown format '.avi'")):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("nonsmooth: error: ") and err.count("\n") == 1, err
        assert match in err, err


def test_cli_refuses_too_many_frames_before_the_run(tmp_path, capsys, monkeypatch):
    """A run to --t-end 200 s is 6001 frames at 30 per second: refused before simulating
    (nothing is simulated, nothing is written), with the longest end time that fits."""
    import importlib

    from nonsmooth.cli import main

    sim = importlib.import_module("nonsmooth.simulate")  # the module (nonsmooth.simulate is
    # also the function)

    def no_run(*args, **kwargs):
        raise AssertionError("the run started")

    monkeypatch.setattr(sim, "simulate", no_run)
    out = tmp_path / "long.gif"
    assert main(["run", "spatial_four_bar", "--t-end", "200", "--animate", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and not out.exists()
    assert captured.err == (f"nonsmooth: error: --animate {out}: a run to --t-end 200 s is "
                            "6001 frames at 30 per second, more than the 5000 allowed; give "
                            "--t-end 166.633 or less, or animate part of the result in Python "
                            "(result.animate(path, fps, speed=...))\n")


def test_animate_refuses_too_many_frames_with_the_longest_span(four_bar, tmp_path):
    with pytest.raises(ModelError, match=r"animate: 10001 frames for t = 0 \.\. 0\.5 s at "
                       r"20000 frames per second .*at most 0\.24995 s of motion"):
        four_bar.animate(tmp_path / "x.gif", fps=20000)
    assert not list(tmp_path.iterdir())


def test_mp4_needs_ffmpeg(four_bar, tmp_path, monkeypatch):
    import nonsmooth.spatial.animation as anim

    monkeypatch.setattr(anim.shutil, "which", lambda name: None)
    with pytest.raises(ModelError, match="MP4 needs the ffmpeg executable"):
        four_bar.animate(tmp_path / "x.mp4")
