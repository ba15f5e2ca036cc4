"""Success vs k: from k sweeps, or read off one run of an anytime method."""

from lats.method_comparison.plot import plot_success_vs_k, success_curves

from tests.bench.helpers import record


def curve(records, label):
    return next(points for key, points in success_curves(records).items() if key[0] == label)


def test_a_sweep_gives_one_point_per_k():
    records = [record("t1", k=1, solved=False), record("t2", k=1, solved=True),
               record("t1", k=4, solved=True), record("t2", k=4, solved=True)]
    assert curve(records, "lats") == [(1, 0.5), (4, 1.0)]


def test_one_run_of_an_anytime_method_gives_success_within_j_iterations():
    records = [record("t1", k=4, solved=True, iterations=1),
               record("t2", k=4, solved=True, iterations=3),
               record("t3", k=4, solved=False, iterations=4)]
    assert curve(records, "lats") == [(1, 1 / 3), (2, 1 / 3), (3, 2 / 3), (4, 2 / 3)]


def test_no_curve_is_read_off_honest_runs_or_methods_whose_k_is_not_a_stop():
    honest = [record("t1", k=4, solved=True, iterations=1, mode="honest")]
    assert curve(honest, "lats") == [(4, 1.0)]
    beam = [record("t1", spec="tot_bfs", k=4, solved=True, iterations=2)]
    assert curve(beam, "tot_bfs") == [(4, 1.0)]


def test_the_png_is_written(tmp_path):
    records = [record("t1", k=3, iterations=2), record("t1", spec="react", k=1, solved=False),
               record("t2", spec="reflexion", k=3, iterations=3)]
    path = plot_success_vs_k(records, tmp_path / "plot.png")
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
