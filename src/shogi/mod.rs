//! Shogi (not built yet): 81-square bitboards, drops, checking moves and
//! exact perft, on the CPU and through the shared GPU perft engine. The
//! command line's `gpu-movegen shogi ...` says so until this module lands.
