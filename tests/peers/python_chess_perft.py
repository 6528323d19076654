#!/usr/bin/env python3
"""The python-chess peer of gpu-movegen's variant tests (tests/differential_python_chess.rs).

python-chess (PyPI `chess`, GPL-3.0) is run as this separate program and
never linked into the crate. Each line of stdin is a request, tab-separated:

    perft <TAB> VARIANT <TAB> DEPTH <TAB> FEN    -> the perft count
    moves <TAB> VARIANT <TAB> 0 <TAB> FEN        -> the legal moves in UCI, sorted, space-separated

VARIANT is a UCI_Variant name (chess, antichess, atomic, kingofthehill,
3check, horde, racingkings, crazyhouse). One answer line per request, in
order; requests are shared among the machine's cores. perft counts the last
ply with legal_moves.count(), without playing it.
"""

import multiprocessing
import sys

import chess
import chess.variant

BOARDS = {
    "chess": chess.Board,
    "antichess": chess.variant.AntichessBoard,
    "atomic": chess.variant.AtomicBoard,
    "kingofthehill": chess.variant.KingOfTheHillBoard,
    "3check": chess.variant.ThreeCheckBoard,
    "horde": chess.variant.HordeBoard,
    "racingkings": chess.variant.RacingKingsBoard,
    "crazyhouse": chess.variant.CrazyhouseBoard,
}


def perft(board, depth):
    if depth == 0:
        return 1
    if depth == 1:
        return board.legal_moves.count()
    nodes = 0
    for move in list(board.legal_moves):
        board.push(move)
        nodes += perft(board, depth - 1)
        board.pop()
    return nodes


def answer(line):
    kind, variant, depth, fen = line.rstrip("\n").split("\t")
    board = BOARDS[variant](fen)
    if kind == "moves":
        return " ".join(sorted(move.uci() for move in board.legal_moves))
    return str(perft(board, int(depth)))


def main():
    requests = [line for line in sys.stdin if line.strip()]
    with multiprocessing.Pool() as pool:
        for result in pool.imap(answer, requests, chunksize=8):
            print(result, flush=False)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
