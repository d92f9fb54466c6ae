"""eval/mcts.py: the tree search over decision and chance nodes, checked against the
exact tables of small variants (issue 51)."""
import numpy as np
import pytest

from tabula.cli import main
from tabula.runtime.sampling import uniform_positions
from tabula.eval.measures import regret
from tabula.eval.mcts import PLAYOUT_CHUNK, best_moves, search
from tabula.eval.players import PlayerError, make_player
from tabula.eval.search import decision_worths
from tabula.games import get_game
from tabula.infra.batch import all_throws
from tabula.solver.solution import open_solution, solve_game


@pytest.fixture(scope="module")
def ur2(tmp_path_factory):
    path = tmp_path_factory.mktemp("mcts") / "ur2.h5"
    solve_game(get_game("ur", 2), path, quiet=True)
    return open_solution(path)


def decisions(game, n, seed=3):
    """n decisions with two or more moves, in decision form."""
    codes = uniform_positions(game, 20 * n, seed)
    counts, nxt, infos = all_throws(game.moves, game.mirror, game.throws, game.max_moves,
                                    codes)
    rows, throws = np.nonzero(counts >= 2)
    rows, throws = rows[:n], throws[:n]
    return codes[rows], counts[rows, throws], nxt[rows, throws], infos[rows, throws]


def test_with_the_exact_values_as_leaf_the_search_is_exact_at_every_size(ur2):
    """The table as leaf: a chance node's value is the expectation over its throws once
    all are searched (the leaf's value before), so every root move's value is its
    exact worth whatever the number of simulations, and every choice perfect."""
    game = ur2.game
    _, counts, nxt, infos = decisions(game, 60)
    exact = decision_worths(game, counts, nxt, infos, 0, ur2.values)
    legal = np.arange(game.max_moves) < counts[:, None]
    rows = np.arange(len(counts))
    keys = np.arange(len(counts), dtype=np.uint64)
    for sims in (1, 7, 300):
        visits, values = search(game, counts, nxt, infos, keys, sims, ur2.values)
        assert np.abs(np.where(legal, values - exact, 0)).max() < 1e-6
        chosen = best_moves(counts, visits, values, by_value=True)
        assert (exact[rows, chosen] >= exact.max(axis=1) - 1e-6).all()
        assert (visits.sum(axis=1) == sims - 1).all()   # the first values the root


def test_leaves_valued_together_keep_the_search_exact_in_fewer_calls(ur2):
    """Several leaves of a tree valued in one call (the spec's xL): with exact values
    the search stays exact, a step's walks turn apart (most of them find a new node
    to value, few collide), and one tree makes ceil(sims / L) calls; x1 is the plain
    search, visit for visit."""
    game = ur2.game
    _, counts, nxt, infos = decisions(game, 40)
    exact = decision_worths(game, counts, nxt, infos, 0, ur2.values)
    legal = np.arange(game.max_moves) < counts[:, None]
    keys = np.arange(len(counts), dtype=np.uint64)
    for leaves in (4, 16):
        visits, values = search(game, counts, nxt, infos, keys, 200, ur2.values,
                                leaves=leaves)
        assert np.abs(np.where(legal, values - exact, 0)).max() < 1e-6
    valued = []

    def counting(codes):
        valued.append(len(codes))
        return ur2.values(codes)
    for i in range(len(counts)):
        valued.clear()
        search(game, counts[i:i + 1], nxt[i:i + 1], infos[i:i + 1], keys[i:i + 1], 64,
               counting, leaves=16)
        assert len(valued) == 4 and valued[0] == counts[i]   # the first: the root alone
        assert min(valued[1:]) >= 8   # then the walks of a step value apart
    plain = search(game, counts, nxt, infos, keys, 50, ur2.values)
    one = search(game, counts, nxt, infos, keys, 50, ur2.values, leaves=1)
    assert all(np.array_equal(a, b) for a, b in zip(plain, one))


def test_more_simulations_give_away_less(ur2):
    """Exact regret over 100 games: random playouts with 300 simulations a move
    against 10, and the heuristic as leaf against the heuristic alone."""
    def loss(spec):
        return regret(ur2, make_player(spec, ur2.game), 100, 1).summary

    few, many = loss("mcts:10"), loss("mcts:300")
    assert many["loss_per_game_ci95"][1] < few["loss_per_game_ci95"][0]
    greedy, searched = loss("heuristic"), loss("mcts:100:heuristic")
    assert searched["loss_per_game_points"] < greedy["loss_per_game_points"]


def test_a_search_replays_exactly_from_its_seed(ur2):
    player = make_player("mcts:50", ur2.game)
    first = regret(ur2, player, 40, 7).summary
    again = regret(ur2, player, 40, 7).summary
    other = regret(ur2, player, 40, 8).summary
    assert first["loss_per_game_points"] == again["loss_per_game_points"]
    assert first["loss_per_game_points"] != other["loss_per_game_points"]


@pytest.mark.parametrize("name, pieces, rules", [("ur", 3, "finkel"), ("ur", 3, "masters"),
                                                 ("ur", 3, "blitz"), ("senet", 3, None),
                                                 ("einstein", 3, "4x4"), ("bearoff", 4, None)])
def test_every_game_is_searched_to_a_legal_move(name, pieces, rules):
    game = get_game(name, pieces, rules)
    codes, counts, nxt, infos = decisions(game, 30)
    for spec in ("mcts:64", "mcts:64:heuristic"):
        chosen = make_player(spec, game).choose(codes, counts, nxt, infos,
                                                np.linspace(0, 1, len(counts), endpoint=False))
        assert ((0 <= chosen) & (chosen < counts)).all()


def test_a_time_limit_stops_the_search_and_a_loose_one_changes_nothing(ur2):
    """A search of 20,000 simulations stopped after 1 ms has run a part of them (at
    least one clock's chunk of playouts, or one step with a leaf); one whose limit is
    never reached is the search without a limit."""
    game = ur2.game
    _, counts, nxt, infos = decisions(game, 4)
    keys = np.arange(len(counts), dtype=np.uint64)
    for leaf, least in ((None, PLAYOUT_CHUNK), (ur2.values, 0)):
        visits, _ = search(game, counts, nxt, infos, keys, 20_000, leaf, seconds=0.001)
        assert (least <= visits.sum(axis=1)).all() and (visits.sum(axis=1) < 19_999).all()
        plain = search(game, counts, nxt, infos, keys, 200, leaf)
        limited = search(game, counts, nxt, infos, keys, 200, leaf, seconds=600)
        assert all((a == b).all() for a, b in zip(plain, limited))
    def loss(spec):
        return regret(ur2, make_player(spec, game), 20, 5).summary["loss_per_game_points"]
    assert loss("mcts:200/600000ms") == loss("mcts:200")


@pytest.mark.parametrize("spec", ["mcts", "mcts:0", "mcts:x", "mcts:2000000",
                                  "mcts:10:nope.onnx", "mcts:10/", "mcts:10/5",
                                  "mcts:10/0ms", "mcts:10/5s", "mcts:/5ms", "mcts:10x0",
                                  "mcts:10x:heuristic", "mcts:10x2000:heuristic",
                                  "mcts:10x4", "mcts:10:heuristic+0", "mcts:10:heuristic+x",
                                  "mcts:10:playout+8", "mcts:10:heuristic+20000",
                                  # digits str.isdigit takes and int refuses or reads
                                  # otherwise, and digits by the thousand (issue 65)
                                  "mcts:²", "mcts:100x²:heuristic", "mcts:100/²ms",
                                  "mcts:100:heuristic+²", "mcts:" + "9" * 5000,
                                  "mcts:100x" + "9" * 5000, "mcts:100:heuristic+" + "9" * 5000])
def test_bad_specs_are_one_line(spec):
    with pytest.raises(PlayerError if "onnx" not in spec else Exception) as caught:
        make_player(spec, get_game("ur", 2))
    assert "\n" not in str(caught.value)


def test_eval_regret_takes_an_mcts_player(ur2, capsys):
    assert main(["eval", "regret", "ur", "--pieces", "2", "--table", str(ur2.path),
                 "--player", "mcts:30", "--games", "20", "--json"]) == 0
    assert '"player": "mcts:30"' in capsys.readouterr().out


def test_a_race_is_measured_without_the_cube_by_its_cubeless_chances(ur2, tmp_path, capsys):
    """eval regret --cubeless: checker play in a bear-off judged by the table's cubeless
    winning chances, so that a search (which plays checkers only) has an exact regret.
    Each decision's loss is the best move's worth less the chosen one's, by the
    table's `answer` of each position (its own reading, not the batch one); perfect
    play loses nothing and random play more than a search."""
    from tabula.games.game import OVER
    from tabula.solver.race_table import RaceTable, solve_race
    game = get_game("bearoff", 3)
    path = tmp_path / "bo3.h5"
    solve_race(game, path, quiet=True)
    table = RaceTable(path)
    _, counts, nxt, infos = decisions(game, 40)
    chosen = np.zeros(len(counts), dtype=np.int64)
    losses = table.decision_losses(counts, nxt, infos, chosen)
    for i in range(len(counts)):
        worths = [1.0 if infos[i, j] & OVER else 1.0 - table.answer(nxt[i, j])["win"]
                  for j in range(counts[i])]
        assert losses[i] == pytest.approx(max(worths) - worths[0], abs=1e-6)

    def loss(spec):
        assert main(["eval", "regret", "bearoff", "--checkers", "3", "--table", str(path),
                     "--cubeless", "--player", spec, "--games", "200", "--json",
                     "--quiet"]) == 0
        import json
        return json.loads(capsys.readouterr().out)["loss_per_game_points"]
    assert loss("perfect") == 0
    assert loss("random") > loss("mcts:200") > 0
    assert main(["eval", "regret", "ur", "--pieces", "2", "--table", str(ur2.path),
                 "--cubeless", "--player", "random"]) == 2
    assert "--cubeless is for games with the doubling cube" in capsys.readouterr().err


def test_playouts_mixed_into_a_valuing_leaf_replay_and_change_its_values(ur2):
    """LEAF+K: each position the leaf values also gets the mean of K random playouts,
    half and half; the same keys give the same search, other keys another, and the
    values move from the leaf's alone."""
    game = ur2.game
    _, counts, nxt, infos = decisions(game, 30)
    keys = np.arange(len(counts), dtype=np.uint64)
    plain = search(game, counts, nxt, infos, keys, 60, ur2.values, leaves=4)
    mixed = search(game, counts, nxt, infos, keys, 60, ur2.values, leaves=4, playouts=8)
    again = search(game, counts, nxt, infos, keys, 60, ur2.values, leaves=4, playouts=8)
    other = search(game, counts, nxt, infos, keys + 99, 60, ur2.values, leaves=4,
                   playouts=8)
    assert all(np.array_equal(a, b) for a, b in zip(mixed, again))
    assert not np.array_equal(mixed[1], other[1])
    legal = np.arange(game.max_moves) < counts[:, None]
    moved = np.abs(np.where(legal, mixed[1] - plain[1], 0)).max()
    assert 0.01 < moved < 0.6   # half a value from playouts: moved, but not replaced
    player = make_player("mcts:50x4:heuristic+8", game)
    assert regret(ur2, player, 20, 1).summary["games"] == 20
