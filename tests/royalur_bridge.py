"""Legal moves of an Ur position computed by the public `royalur` package (Finkel rules).

Our position is seen by the player about to throw; here that player is light,
the opponent dark, and the results are translated back to reference states
(see tests/reference/ur_rules.py) seen by whoever throws next.
"""
from royalur.model import Board, GameSettings, Piece, PlayerState, PlayerType, Roll
from royalur.rules.simple import SimpleRuleSetProvider
from royalur.rules.state import WaitingForMoveGameState, WinGameState

LIGHT, DARK = PlayerType.LIGHT, PlayerType.DARK


def royalur_moves(pieces):
    settings = GameSettings.create_finkel()
    rules = SimpleRuleSetProvider().create(settings, None)
    paths = settings.paths

    def side(board, player, waiting, score):
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
        available = rules.find_available_moves(board, light, roll)
        result = []
        for move in available:
            waiting_state = WaitingForMoveGameState(board, light, dark, LIGHT, roll, available)
            after = rules.apply_move(waiting_state, move)[-1]
            over = isinstance(after, WinGameState)
            again = not over and after.get_turn() == LIGHT
            mine = side(after.board, LIGHT, after.light_player.piece_count, 0)
            theirs = side(after.board, DARK, after.dark_player.piece_count, 0)
            result.append((mine + theirs if again else theirs + mine, again, over))
        return result

    return legal_moves
