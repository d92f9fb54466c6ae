"""Legal moves of a checkers position computed by the public `imparaai-checkers` package
(PyPI; imported as `checkers`), whose moves are single jumps: a capture chain is played
jump by jump while the same side stays on move, and counted here as one move.

Positions are those of tests/reference/checkers_rules.py: (pieces, side), pieces a
frozenset of (square, colour, king). imparaai's player 1 is Black (it moves towards the
higher squares, and numbers the squares as the rules do).
"""
from checkers.game import Game
from checkers.piece import Piece

from tests.reference.checkers_rules import BLACK, WHITE

PLAYERS = {BLACK: 1, WHITE: 2}
COLOURS = {1: BLACK, 2: WHITE}


def board_of(position):
    """An imparaai board holding `position`."""
    pieces, side = position
    board = Game().board
    board.player_turn = PLAYERS[side]
    made = []
    for square, colour, king in sorted(pieces):
        piece = Piece()
        piece.player = PLAYERS[colour]
        piece.position = square
        piece.king = king
        piece.board = board
        made.append(piece)
    board.pieces = made
    return board


def position_of(board):
    pieces = frozenset((p.position, COLOURS[p.player], bool(p.king))
                       for p in board.pieces if not p.captured)
    return pieces, COLOURS[board.player_turn]


def whole_moves(position) -> set:
    """{(squares of the move: the origin and each landing, the next position)}."""
    found = set()

    def play(board, path):
        for step in board.get_possible_moves():
            after = board.create_new_board_from_move(step)
            route = path + (step[1],) if path else tuple(step)
            if after.player_turn == board.player_turn:   # the chain goes on
                play(after, route)
            else:
                found.add((route, position_of(after)))
    play(board_of(position), ())
    return found
