"""The balance lab: simulate, compare, the same report whatever the workers, the CLI."""

from __future__ import annotations

import io
import json
from concurrent.futures import ThreadPoolExecutor

import pytest

import blockyard
from blockyard import lab
from blockyard.bots import get_bot
from blockyard.cli import main


def test_each_game_plays_its_seed_and_the_record_matches_a_game_played_by_hand():
    report = lab.simulate("eu-classic", bot="greedy", games=3, seed=10)
    assert [g.seed for g in report.games] == [10, 11, 12]
    game = blockyard.new_game("eu-classic", seed=11)
    get_bot("greedy").play(game)
    record = report.games[1]
    assert (record.score, record.moves, record.lines, record.over_reason) == \
        (game.score, game.moves, game.lines_cleared, "stuck")
    assert record.failed_pieces == tuple(p.id for p in game.tray if p is not None)
    assert record.sets == game.set_index and record.dead_sets == 0


def test_the_summary_figures():
    report = lab.simulate("arcadeforge", bot="random", games=6, seed=0)
    s = report.summary()
    scores = sorted(g.score for g in report.games)
    assert s["games"] == 6
    assert s["score"]["mean"] == pytest.approx(sum(scores) / 6)
    assert s["score"]["median"] == pytest.approx((scores[2] + scores[3]) / 2)
    assert len(s["score"]["deciles"]) == 9
    moves = sum(g.moves for g in report.games)
    assert s["lines_per_move"] == pytest.approx(sum(g.lines for g in report.games) / moves)
    assert s["clear_rate"] == pytest.approx(sum(g.clearing_moves for g in report.games) / moves)
    sets = sum(g.sets for g in report.games)
    assert s["dead_set_rate"] == pytest.approx(sum(g.dead_sets for g in report.games) / sets)
    for piece, share in s["killer_pieces"].items():
        assert share == sum(piece in g.failed_pieces for g in report.games) / 6
    assert s["over_reasons"] == {"stuck": 6}
    assert "arcadeforge, bot random: 6 games, seeds 0–5" in report.text()


def test_a_game_that_never_ends_stops_at_the_move_limit():
    report = lab.simulate("eu-zen", bot="random", games=2, max_moves=40)
    assert [(g.moves, g.over_reason) for g in report.games] == [(40, None), (40, None)]


def test_sudoku_is_simulated_on_the_clock():
    report = lab.simulate("sudoku-bloxx", bot="greedy", games=1, seconds_per_move=60)
    game = blockyard.new_game("sudoku-bloxx", seed=0)
    get_bot("greedy").play(game, seconds_per_move=60)
    record = report.games[0]
    assert (record.score, record.moves, record.over_reason) == \
        (game.score, game.moves, game.over_reason)
    assert game.over_reason in ("time", "errors") and record.sets == 0


def test_the_report_is_the_same_whatever_the_workers_or_executor():
    local = lab.simulate("tiered", bot="greedy", games=6, seed=3)
    processes = lab.simulate("tiered", bot="greedy", games=6, seed=3, workers=2)
    with ThreadPoolExecutor(3) as pool:
        threads = lab.simulate("tiered", bot="greedy", games=6, seed=3, executor=pool, chunk=1)
    assert local == processes == threads


def test_the_report_is_the_same_on_a_dask_cluster():
    import distributed  # a test dependency (the cluster extra): never skipped
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = lab.simulate("eu-classic", bot="greedy", games=4, seed=7,
                              executor=client.get_executor())
    assert remote == lab.simulate("eu-classic", bot="greedy", games=4, seed=7)


def test_a_dask_cluster_that_loses_every_worker_fails_with_a_message():
    # issue 22, reproducer 11: the simulation waited forever, silently
    import threading

    import distributed
    outcome: list[BaseException | lab.SimulationReport] = []
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        def close_the_workers(done: int, total: int) -> None:
            if done == 1:  # mid-run: one game played, the rest waiting
                for worker in list(cluster.workers.values()):
                    cluster.sync(worker.close)  # closed, not retired: its games are lost

        def run() -> None:
            try:
                outcome.append(lab.simulate(
                    "eu-classic", bot="greedy", games=200, seed=1, chunk=1,
                    executor=client.get_executor(), progress=close_the_workers,
                    workers_alive=lab.dask_workers(client), worker_timeout=0.5))
            except BaseException as exc:  # handed to the test thread
                outcome.append(exc)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        thread.join(120)  # a bound on a hang, not a timing assertion
        assert not thread.is_alive(), "simulate still waiting with no worker left"
        assert len(cluster.scheduler.workers) == 0
    error, = outcome
    assert isinstance(error, lab.NoWorkersError)
    assert str(error).startswith("no worker has been left to play the games for 0.5 s (")
    assert "batches unplayed" in str(error)


def test_worker_timeout_must_be_a_positive_number():
    for bad in (0, -1, float("nan"), float("inf"), True, "30"):
        with pytest.raises(ValueError, match="worker_timeout"):
            lab.simulate("tiered", games=1, worker_timeout=bad)


def test_wrong_arguments_are_named():
    with pytest.raises(ValueError, match="games"):
        lab.simulate("eu-classic", games=0)
    with pytest.raises(ValueError, match="workers"):
        lab.simulate("eu-classic", games=1, workers=0)
    with pytest.raises(ValueError, match="no bot named 'nobody'"):
        lab.simulate("eu-classic", games=1, bot="nobody")


def test_compare_pairs_the_seeds():
    comparison = lab.compare("eu-classic", "eu-hardcore", bot="greedy", games=4, seed=0)
    diffs = comparison.differences()
    expected = [b.score - a.score for a, b in zip(comparison.a.games, comparison.b.games,
                                                  strict=True)]
    mean, low, high = diffs["score"]
    assert mean == pytest.approx(sum(expected) / 4)
    assert low <= mean <= high
    assert "eu-hardcore − eu-classic" in comparison.text()


def test_the_command_line(tmp_path, capsys):
    out_json = tmp_path / "run.json"
    out_png = tmp_path / "run.png"
    assert main(["simulate", "woodoku", "--games", "3", "--bot", "random", "--json",
                 str(out_json), "--plot", str(out_png)]) == 0
    captured = capsys.readouterr()
    assert "woodoku, bot random: 3 games" in captured.out
    assert "ETA" in captured.err and "3/3 games" in captured.err
    assert "\r" not in captured.err  # not a terminal: plain lines
    data = json.loads(out_json.read_text())
    assert set(data) >= {"ruleset", "bot", "seed", "games", "summary"}
    assert [g["seed"] for g in data["games"]] == [0, 1, 2]
    assert set(data["games"][0]) >= {"seed", "score", "moves", "lines", "over_reason",
                                     "failed_pieces"}
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_command_line_compares(capsys):
    assert main(["simulate", "--compare", "eu-classic", "eu-hardcore", "--games", "3",
                 "--quiet", "--bot-param", "seed=2"]) == 0
    out = capsys.readouterr().out
    assert "score mean" in out and "eu-hardcore − eu-classic" in out
    assert main(["simulate", "eu-classic", "--bot", "nobody", "--games", "1"]) == 2
    assert "no bot named 'nobody'" in capsys.readouterr().err


def test_simulate_scheduler_with_no_worker_says_so_on_the_command_line(capsys):
    import distributed
    with distributed.LocalCluster(n_workers=0, processes=False,
                                  dashboard_address=":0") as cluster:  # any free port
        code = main(["simulate", "tiered", "--games", "2", "--quiet", "--scheduler",
                     cluster.scheduler_address, "--worker-timeout", "0.5"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("blockyard simulate: no worker has been left to play the games "
                          "for 0.5 s (")
    assert "--worker-timeout" in err


def test_action_use_is_counted_per_game_and_summarised():
    report = lab.simulate("tiered", bot="greedy", games=6, seed=0)
    for record in report.games:
        assert all(name not in ("place", "tick") and count > 0
                   for name, count in record.actions)
    use = report.summary()["actions"]
    total = {name: sum(g.used(name) for g in report.games) for name in use}
    for name, figures in use.items():
        assert figures["per_game"] == pytest.approx(total[name] / 6)
        users = [g.score for g in report.games if g.used(name)]
        assert figures["share"] == pytest.approx(len(users) / 6)
        assert figures["score_with"] == (sum(users) / len(users) if users else None)
    data = report.to_json()
    assert data["games"][0]["actions"] == dict(report.games[0].actions)


def test_actions_used_reads_the_log():
    game = blockyard.new_game("tiered", seed=3)
    game.swap()
    game.place(*game.legal_moves()[0])
    assert lab.actions_used(game) == (("swap", 1),)


def test_compare_warns_when_the_scoring_differs_and_not_when_it_does_not(capsys):
    same = lab.compare("eu-classic", "eu-hardcore", bot="greedy", games=2, seed=0)
    assert same.scoring_note is None and "WARNING" not in same.text()
    assert same.to_json()["scores_comparable"] is True
    other = lab.compare("eu-classic", "woodoku", bot="greedy", games=2, seed=0)
    assert other.scoring_note is not None
    assert "raw scores are not comparable" in other.scoring_note
    assert "line-scoring" in other.scoring_note
    assert other.text().endswith(f"WARNING: {other.scoring_note}.")
    assert other.to_json()["scores_comparable"] is False
    assert "lines" in other.differences()


def test_compare_reports_action_use_beside_the_scores():
    comparison = lab.compare("tiered", "eu-classic", bot="greedy", games=4, seed=0)
    text = comparison.text()
    if comparison.a.summary()["actions"]:
        name = next(iter(comparison.a.summary()["actions"]))
        assert f"{name[:13]} per game" in text
        assert f"tiered: action {name} in " in text
    assert "lines per move" in text and "moves mean" in text


def test_the_command_line_draws_one_comparison_figure(tmp_path, capsys):
    out_png = tmp_path / "cmp.png"
    assert main(["simulate", "--compare", "eu-classic", "woodoku", "--games", "3",
                 "--quiet", "--plot", str(out_png)]) == 0
    out = capsys.readouterr().out
    assert f"wrote {out_png}" in out and "WARNING: the two rulesets score differently" in out
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cmp.png"]  # one file, not two


def test_pieces_used_counts_each_family_dealt_and_placed():
    game = blockyard.new_game("tiered", seed=3)
    first = [p.family for p in game.tray]
    game.swap()
    second = [p.family for p in game.tray]
    game.place(*game.legal_moves()[0])
    placed = game.log[-1][1]
    expected: dict[str, list[int]] = {}
    for family in first + second:
        expected.setdefault(family, [0, 0])[0] += 1
    expected[second[placed]][1] += 1
    assert lab.pieces_used(game) == tuple(sorted((f, d, p) for f, (d, p) in expected.items()))


def test_a_turned_piece_is_not_dealt_again():
    game = blockyard.new_game("arcadeforge-rotate", seed=1)
    families = sorted(p.family for p in game.tray)
    game.act("rotate", 0)
    assert game.tray[0].id.endswith("+r")
    assert sorted(f for f, dealt, _ in lab.pieces_used(game) for _ in range(dealt)) == families


@pytest.mark.parametrize("ruleset", ["eu-zen", "arcadeforge-rotate"])
def test_every_placed_piece_was_dealt_refills_and_turns_included(ruleset):
    report = lab.simulate(ruleset, bot="greedy", games=2, seed=0, max_moves=400)
    for record in report.games:
        assert sum(placed for _, _, placed in record.pieces) == record.moves
        assert all(placed <= dealt for _, dealt, placed in record.pieces), record.pieces


def test_piece_use_is_in_the_summary_the_json_and_the_text():
    report = lab.simulate("eu-classic", bot="greedy", games=3, seed=0)
    use = report.summary()["pieces"]
    for family, figures in use.items():
        dealt = sum(d for g in report.games for f, d, _ in g.pieces if f == family)
        placed = sum(p for g in report.games for f, _, p in g.pieces if f == family)
        assert figures == {"dealt_per_game": pytest.approx(dealt / 3),
                           "placed_per_game": pytest.approx(placed / 3),
                           "placed_share": pytest.approx(placed / dealt)}
    data = json.loads(json.dumps(report.to_json()))
    assert data["games"][0]["pieces"] == {f: {"dealt": d, "placed": p}
                                          for f, d, p in report.games[0].pieces}
    assert data["summary"]["pieces"].keys() == use.keys()
    line = next(x for x in report.text().splitlines() if "pieces per game" in x)
    dot = use["dot"]
    assert f"dot {dot['dealt_per_game']:.2f}/{dot['placed_per_game']:.2f}" in line


def test_a_falling_game_has_no_piece_use():
    game = blockyard.new_game("sudoku-bloxx", seed=0)
    assert lab.pieces_used(game) == ()
    report = lab.simulate("sudoku-bloxx", bot="greedy", games=1, seed=0, max_moves=20)
    assert report.summary()["pieces"] == {} and "pieces per game" not in report.text()


def test_compare_shows_piece_use_of_both_rulesets_side_by_side():
    comparison = lab.compare("eu-classic", "woodoku", bot="greedy", games=2, seed=0)
    rows = comparison.text().splitlines()
    start = rows.index("pieces per game, dealt/placed:")
    ua, ub = comparison.a.summary()["pieces"], comparison.b.summary()["pieces"]
    for offset, family in enumerate(sorted(set(ua) | set(ub)), start=1):
        shown = [f"{u[family]['dealt_per_game']:.2f}/{u[family]['placed_per_game']:.2f}"
                 if family in u else "—" for u in (ua, ub)]
        assert rows[start + offset].split() == [family, *shown]
    data = comparison.to_json()
    assert data["a"]["summary"]["pieces"] == ua


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_bar_redraws_one_line_on_a_terminal_only():
    from blockyard.lab import ProgressBar

    terminal, log = _Terminal(), io.StringIO()
    for stream in (terminal, log):
        bar = ProgressBar(stream)
        for done in range(101):
            bar(done, 100)
    assert terminal.getvalue().startswith("\r[") and terminal.getvalue().endswith("\n")
    assert terminal.getvalue().count("\n") == 1
    lines = log.getvalue().splitlines()
    assert "\r" not in log.getvalue()
    # a line at each tenth: 0, 10, …, 100
    assert [line.split()[0] for line in lines] == [f"{n}/100" for n in range(0, 101, 10)]
