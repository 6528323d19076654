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
// group is grown only until a second liberty shows, so `group` and `points`
// are whole only when `count` is 0 or 1.
struct GoLiberties {
    group: GoBitmap,
    points: GoBitmap,
    count: u32,
}

fn go_liberties_up_to_two(seed: GoBitmap, stones: GoBitmap, empty: GoBitmap) -> GoLiberties {
    // One return after the loop: naga wants a function to end in one, and
    // Tint warns of a return after a loop that never breaks.
    var region = seed;
    var liberties = GoBitmap();
    var count = 0u;
    loop {
        let around = go_spread(region);
        liberties = go_and(around, empty);
        count = go_count(liberties);
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
    return GoLiberties(region, liberties, count);
}

// The points with at least two empty neighbours.
fn go_two_empty_neighbours(empty: GoBitmap) -> GoBitmap {
    let left = go_shifted_up(empty, 1u);
    let right = go_shifted_down(empty, 1u);
    let below = go_shifted_up(empty, GO_LINE);
    let above = go_shifted_down(empty, GO_LINE);
    let pairs = go_or(go_and(left, right), go_and(below, above));
    return go_or(pairs, go_and(go_or(left, right), go_or(below, above)));
}

// Plays a legal stone of `color` at `bit` and keeps `go_atari`: the same
// captures and ko point as go_play.
fn go_atari_play(position: ptr<function, GoPosition>, color: u32, bit: u32) {
    let point = go_from_bit(bit);
    let around = go_neighbours(point);
    var own = go_or(go_stones(*position, color), point);
    var enemy = go_stones(*position, 1u - color);
    var empty = go_and_not(GO_BOARD, go_or(own, enemy));
    let seeds = go_and(around, enemy);
    // An enemy chain in atari next to the point had the point as its last liberty.
    let doomed = go_and(seeds, go_atari);
    var captured = go_empty_bitmap();
    if !go_is_empty(doomed) {
        captured = go_flood(doomed, go_and(enemy, go_atari));
    }
    // The others keep a liberty; those left with one are now in atari. A
    // stone with two empty neighbours has two liberties already.
    var rest = go_and_not(go_and_not(seeds, go_atari), go_two_empty_neighbours(empty));
    while !go_is_empty(rest) {
        let result = go_liberties_up_to_two(go_from_bit(go_first(rest)), enemy, empty);
        rest = go_and_not(rest, result.group);
        if result.count == 1u {
            go_atari = go_or(go_atari, result.group);
        }
    }
    // The point's own chains in atari joined the new chain: out of the set
    // until the new chain's state is known.
    let joined = go_and(go_and(around, own), go_atari);
    if !go_is_empty(joined) {
        go_atari = go_and_not(go_atari, go_flood(joined, go_and(own, go_atari)));
    }
    (*position).ko = GO_NO_POINT;
    if !go_is_empty(captured) {
        enemy = go_and_not(enemy, captured);
        empty = go_or(empty, captured);
        go_atari = go_and_not(go_atari, captured);
        // Other chains in atari next to the captured stones gained a liberty.
        var gainers = go_and(go_and(go_neighbours(captured), own), go_atari);
        while !go_is_empty(gainers) {
            let chain = go_flood(go_from_bit(go_first(gainers)), go_and(own, go_atari));
            gainers = go_and_not(gainers, chain);
            if go_liberties_up_to_two(chain, own, empty).count >= 2u {
                go_atari = go_and_not(go_atari, chain);
            }
        }
    }
    // With two empty neighbours the new chain has two liberties.
    if go_count(go_and(around, empty)) < 2u {
        let result = go_liberties_up_to_two(point, own, empty);
        if result.count == 1u {
            go_atari = go_or(go_atari, result.group);
            if go_equal(result.group, point) && go_count(captured) == 1u && go_equal(result.points, captured) {
                (*position).ko = go_first(captured);
            }
        }
    }
    go_finish_move(position, color, own, enemy);
}
