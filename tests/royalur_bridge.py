"""Legal moves of an Ur position computed by the public `royalur` package, under its
settings made to match one of our rule sets (games/ur.py's UrRules).

Our position is seen by the player about to throw; here that player is light,
the opponent dark, and the results are translated back to reference states
(see tests/reference/ur_rules.py) seen by whoever throws next.
"""
from royalur.model import Board, GameSettings, Piece, PlayerState, PlayerType, Roll
from royalur.model.dice import DiceType
from royalur.model.path import PathType
from royalur.rules.simple import SimpleRuleSetProvider
from royalur.rules.state import WaitingForMoveGameState, WinGameState

LIGHT, DARK = PlayerType.LIGHT, PlayerType.DARK
ROYALUR_PATHS = {"bell": PathType.BELL, "masters": PathType.MASTERS}


def royalur_settings(rules, pieces) -> GameSettings:
    """royalur's settings of a rule set: its path pair, dice, pieces and switches."""
    dice = {(4, 0): DiceType.FOUR_BINARY, (3, 4): DiceType.THREE_BINARY_0MAX}
    return (GameSettings.create_finkel()
            .with_paths(ROYALUR_PATHS[rules.path])
            .with_dice(dice[(rules.dice, rules.zero_counts_as)])
            .with_starting_piece_count(pieces)
            .with_safe_rosettes(rules.safe_rosettes)
            .with_rosettes_grant_extra_rolls(rules.again_on_rosette)
            .with_captures_grant_extra_rolls(rules.again_on_capture))


def royalur_moves(pieces, rules):
    settings = royalur_settings(rules, pieces)
    provider = SimpleRuleSetProvider().create(settings, None)
    paths = settings.paths

    def side(board, player, waiting):
        path = paths.get(player)
        squares = frozenset(i + 1 for i, tile in enumerate(path)
                            if (p := board.get(tile)) is not None and p.owner == player)
        return squares, waiting

    def legal_moves(state, throw):
        me, me_waiting, opp, opp_waiting = state
        board = Board(settings.board_shape)
        for player, squares in ((LIGHT, me), (DARK, opp)):
            path = paths.get(player)
            for square in squares:
                board.set(path[square - 1], Piece(player, square - 1))
        light = PlayerState(LIGHT, me_waiting, pieces - me_waiting - len(me))
        dark = PlayerState(DARK, opp_waiting, pieces - opp_waiting - len(opp))
        roll = Roll(throw)
        available = provider.find_available_moves(board, light, roll)
        result = []
        for move in available:
            waiting_state = WaitingForMoveGameState(board, light, dark, LIGHT, roll, available)
            after = provider.apply_move(waiting_state, move)[-1]
            over = isinstance(after, WinGameState)
            again = not over and after.get_turn() == LIGHT
            mine = side(after.board, LIGHT, after.light_player.piece_count)
            theirs = side(after.board, DARK, after.dark_player.piece_count)
            result.append((mine + theirs if again else theirs + mine, again, over))
        return result

    return legal_moves
