// atari.wgsl — the rules of a playout move by move: the set of stones in
// atari kept up to date, so that legal points need no flood per group.
//
// Reads: nothing. Writes: nothing. Library only, for a kernel whose
// invocations each play a whole playout: `go_atari` is the invocation's
// private set of the stones whose chain has exactly one liberty (both
// colours), the bitmap twin of src/go/chains.rs's `in_atari`, from which
// go_legal_given_atari (board.wgsl) takes the legal points. A move changes the
// liberties only of the chains next to it and of the capturer's chains next
// to what it captures, so only those are flooded, and a flood stops as soon
// as it has seen two liberties.

#import go_board

var<private> go_atari: GoBitmap;

// Sets `go_atari` up for `position`.
fn go_atari_setup(position: GoPosition) {
    go_atari = go_empty_bitmap();
    let empty = go_empty_points(position);
    var rest = go_or(position.black, position.white);
    while !go_is_empty(rest) {
        let bit = go_first(rest);
        var stones = position.white;
        if go_contains(position.black, bit) {
            stones = position.black;
        }
        let group = go_flood(go_from_bit(bit), stones);
        rest = go_and_not(rest, group);
        if go_count(go_and(go_neighbours(group), empty)) == 1u {
            go_atari = go_or(go_atari, group);
        }
    }
}

// The liberties of the group of `seed` in `stones`, counted up to two. The
// group is grown only until a second liberty shows, so `group` is whole
// only when `count` is 0 or 1. The liberties themselves are not kept: a
// bitmap held for one test is twelve registers on 19x19.
struct GoLiberties {
    group: GoBitmap,
    count: u32,
}

fn go_liberties_up_to_two(seed: GoBitmap, stones: GoBitmap, empty: GoBitmap) -> GoLiberties {
    // One return after the loop: naga wants a function to end in one, and
    // Tint warns of a return after a loop that never breaks. Each pass
    // works on whole bitmaps in small loops: one loop growing the region in
    // place while counting was as lean on ACO but too large for Mesa to
    // unroll, and 19x19 playouts took 1.5 times as long on lavapipe.
    var region = seed;
    var count = 0u;
    loop {
        let around = go_spread(region);
        count = go_count_both(around, empty);
        if count >= 2u {
            count = 2u;
            break;
        }
        let grown = go_or(region, go_and(around, stones));
        if go_equal(grown, region) {
            break;
        }
        // Two rings between counts, which halves the counts and comparisons.
        region = go_or(grown, go_and(go_spread(grown), stones));
    }
    return GoLiberties(region, count);
}

// Plays a legal stone at `bit` for the side whose stones are `own`
// against `enemy`, and keeps `go_atari`: the same captures as go_play.
// Returns the ko point (GO_NO_POINT for none). A playout keeps its stones
// as the mover's and the other side's rather than by colour: a bitmap
// chosen by colour at run time is a copy, twelve registers on 19x19. What
// the move needs of the point's neighbourhood is taken first, and the
// enemy stones next to it are kept as four bits, one a direction, so that
// no bitmap of the neighbourhood is held through the floods.
fn go_atari_play(own_stones: ptr<function, GoBitmap>, enemy_stones: ptr<function, GoBitmap>, bit: u32) -> u32 {
    var own = *own_stones;
    var enemy = *enemy_stones;
    let around = go_neighbours(go_from_bit(bit));
    // Whether the point touches a stone of its own, and how many empty points.
    let lone = go_is_empty(go_and(around, own));
    let empty_around = go_count(go_and_not(around, go_or(own, enemy)));
    // The point's own chains in atari join the new chain: out of the set
    // until the new chain's state is known.
    let joined = go_and(go_and(around, own), go_atari);
    if !go_is_empty(joined) {
        go_atari = go_and_not(go_atari, go_flood(joined, go_and(own, go_atari)));
    }
    // An enemy chain in atari next to the point had the point as its last
    // liberty (doomed); the others lose one.
    var doomed = 0u;
    var losing = 0u;
    for (var direction = 0u; direction < 4u; direction++) {
        let neighbour = go_neighbour_bit(bit, direction);
        if go_contains(enemy, neighbour) {
            if go_contains(go_atari, neighbour) {
                doomed |= 1u << direction;
            } else {
                losing |= 1u << direction;
            }
        }
    }
    own = go_or(own, go_from_bit(bit));
    var empty = go_and_not(GO_BOARD, go_or(own, enemy));
    // Those left with one liberty are now in atari. The stones taken below
    // are no liberty of theirs: a chain next to a taken stone would be the
    // taken chain. A chain next to the point on two sides is counted twice,
    // to the same end: testing which directions its flood reached held
    // four sets of word tests in scalar registers, which spilled.
    while losing != 0u {
        let direction = firstTrailingBit(losing);
        losing &= losing - 1u;
        let result = go_liberties_up_to_two(go_from_bit(go_neighbour_bit(bit, direction)), enemy, empty);
        if result.count == 1u {
            go_atari = go_or(go_atari, result.group);
        }
    }
    var ko = GO_NO_POINT;
    // The stone taken when exactly one is, for the ko test.
    var single_capture = GO_NO_POINT;
    if doomed != 0u {
        var seeds = go_empty_bitmap();
        for (var direction = 0u; direction < 4u; direction++) {
            if (doomed & (1u << direction)) != 0u {
                seeds = go_or(seeds, go_from_bit_again(go_neighbour_bit(bit, direction)));
            }
        }
        let captured = go_flood(seeds, go_and(enemy, go_atari));
        if go_count(captured) == 1u {
            single_capture = go_first(captured);
        }
        enemy = go_and_not(enemy, captured);
        empty = go_or(empty, captured);
        go_atari = go_and_not(go_atari, captured);
        // Our other chains in atari next to the captured stones leave it:
        // each keeps its liberty (not the point, or it would have joined
        // the new chain above) and gains a captured one.
        let gainers = go_and(go_and(go_neighbours(captured), own), go_atari);
        if !go_is_empty(gainers) {
            go_atari = go_and_not(go_atari, go_flood(gainers, go_and(own, go_atari)));
        }
    }
    // The new chain's empty neighbours: the point's, and the stones taken
    // next to it (the doomed ones). With two, it has two liberties.
    if empty_around + countOneBits(doomed) < 2u {
        let result = go_liberties_up_to_two(go_from_bit_again(bit), own, empty);
        if result.count == 1u {
            go_atari = go_or(go_atari, result.group);
            // A lone stone in atari that took one stone: a ko. The stone
            // taken was next to it, so it is the one liberty.
            if lone {
                ko = single_capture;
            }
        }
    }
    *own_stones = own;
    *enemy_stones = enemy;
    return ko;
}
