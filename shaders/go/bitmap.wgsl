// bitmap.wgsl — Go bitmaps: one bit per point in GO_WORDS 32-bit words.
//
// Reads: nothing. Writes: nothing. Library only. Point (x, y), column from
// the left and row from the bottom, is bit y * GO_LINE + x; each row has
// one guard bit (x = GO_SIZE) that stays clear, so a neighbour is a shift
// by 1 or by GO_LINE and a bit shifted off a row's end lands on a guard,
// which GO_BOARD clears. The composing host (src/go/gpu/shaders.rs)
// generates GO_SIZE, GO_LINE, GO_WORDS and the masks for one board size;
// 9x9 is four words (one 128-bit value), 19x19 twelve. The CPU twin is
// src/go/bitmap.rs, the same bits in 64-bit words.

alias GoBitmap = array<u32, GO_WORDS>;

fn go_empty_bitmap() -> GoBitmap {
    var result: GoBitmap;
    for (var index = 0u; index < GO_WORDS; index++) {
        result[index] = 0u;
    }
    return result;
}

fn go_and(first: GoBitmap, second: GoBitmap) -> GoBitmap {
    var left = first;
    var right = second;
    for (var index = 0u; index < GO_WORDS; index++) {
        left[index] &= right[index];
    }
    return left;
}

fn go_or(first: GoBitmap, second: GoBitmap) -> GoBitmap {
    var left = first;
    var right = second;
    for (var index = 0u; index < GO_WORDS; index++) {
        left[index] |= right[index];
    }
    return left;
}

// `first` without the points of `second`.
fn go_and_not(first: GoBitmap, second: GoBitmap) -> GoBitmap {
    var left = first;
    var right = second;
    for (var index = 0u; index < GO_WORDS; index++) {
        left[index] &= ~right[index];
    }
    return left;
}

fn go_is_empty(bitmap: GoBitmap) -> bool {
    var words = bitmap;
    var any = 0u;
    for (var index = 0u; index < GO_WORDS; index++) {
        any |= words[index];
    }
    return any == 0u;
}

fn go_equal(first: GoBitmap, second: GoBitmap) -> bool {
    var left = first;
    var right = second;
    var difference = 0u;
    for (var index = 0u; index < GO_WORDS; index++) {
        difference |= left[index] ^ right[index];
    }
    return difference == 0u;
}

fn go_count(bitmap: GoBitmap) -> u32 {
    var words = bitmap;
    var count = 0u;
    for (var index = 0u; index < GO_WORDS; index++) {
        count += countOneBits(words[index]);
    }
    return count;
}

// The one-point bitmap of `bit`. Every word is written by a select rather
// than one by index: an indexed store would keep the array out of
// registers on some compilers (lavapipe's among them).
fn go_from_bit(bit: u32) -> GoBitmap {
    var result: GoBitmap;
    let word = bit / 32u;
    let mask = 1u << (bit % 32u);
    for (var index = 0u; index < GO_WORDS; index++) {
        result[index] = select(0u, mask, index == word);
    }
    return result;
}

fn go_contains(bitmap: GoBitmap, bit: u32) -> bool {
    var words = bitmap;
    var found = 0u;
    let word = bit / 32u;
    for (var index = 0u; index < GO_WORDS; index++) {
        found |= select(0u, words[index], index == word);
    }
    return ((found >> (bit % 32u)) & 1u) != 0u;
}

// The lowest set bit, GO_NO_POINT for an empty bitmap. The words are
// visited from the top without an early return, so every invocation of a
// SIMD group takes the same path.
fn go_first(bitmap: GoBitmap) -> u32 {
    var words = bitmap;
    var first = GO_NO_POINT;
    for (var index = GO_WORDS; index > 0u; index--) {
        let word = words[index - 1u];
        first = select(first, (index - 1u) * 32u + firstTrailingBit(word), word != 0u);
    }
    return first;
}

// The `rank`-th set bit from the lowest (0-based); there must be more than
// `rank`. The word is found by running counts, then the bit within it by
// halving, as the CPU twin's select_in_word: one halving for every
// invocation, not one per word.
fn go_nth(bitmap: GoBitmap, rank_in: u32) -> u32 {
    var words = bitmap;
    var rank = rank_in;
    var word = 0u;
    var base = GO_NO_POINT;
    for (var index = 0u; index < GO_WORDS; index++) {
        let ones = countOneBits(words[index]);
        let searching = base == GO_NO_POINT;
        let here = searching && rank < ones;
        word = select(word, words[index], here);
        base = select(base, index * 32u, here);
        rank = select(rank, rank - ones, searching && !here);
    }
    if base == GO_NO_POINT {
        return GO_NO_POINT;
    }
    var position = 0u;
    for (var width = 16u; width > 0u; width /= 2u) {
        let low = countOneBits(word & ((1u << width) - 1u));
        if rank >= low {
            rank -= low;
            word >>= width;
            position += width;
        }
    }
    return base + position;
}

// Every bit moved `shift` (0 < shift < 32) places towards higher bits.
fn go_shifted_up(bitmap: GoBitmap, shift: u32) -> GoBitmap {
    var words = bitmap;
    var result: GoBitmap;
    result[0] = words[0] << shift;
    for (var index = 1u; index < GO_WORDS; index++) {
        result[index] = (words[index] << shift) | (words[index - 1u] >> (32u - shift));
    }
    return result;
}

// Every bit moved `shift` (0 < shift < 32) places towards lower bits.
fn go_shifted_down(bitmap: GoBitmap, shift: u32) -> GoBitmap {
    var words = bitmap;
    var result: GoBitmap;
    for (var index = 0u; index + 1u < GO_WORDS; index++) {
        result[index] = (words[index] >> shift) | (words[index + 1u] << (32u - shift));
    }
    result[GO_WORDS - 1u] = words[GO_WORDS - 1u] >> shift;
    return result;
}

// The points next to one of `points`, with guard bits: for masking by a
// set of board points, which clears the guards anyway.
fn go_spread(points: GoBitmap) -> GoBitmap {
    return go_or(go_or(go_shifted_up(points, 1u), go_shifted_down(points, 1u)),
                 go_or(go_shifted_up(points, GO_LINE), go_shifted_down(points, GO_LINE)));
}

// Every point next to one of `points` (the seed's gather).
fn go_neighbours(points: GoBitmap) -> GoBitmap {
    return go_and(go_spread(points), GO_BOARD);
}

// The points of `within` connected to `seed` through `within`.
fn go_flood(seed: GoBitmap, within: GoBitmap) -> GoBitmap {
    var region = go_and(seed, within);
    loop {
        let grown = go_and(go_or(region, go_spread(region)), within);
        if go_equal(grown, region) {
            break;
        }
        region = grown;
    }
    return region;
}

// Whether the group of `seed` in `stones` touches a point of `targets`.
fn go_touches(seed: GoBitmap, stones: GoBitmap, targets: GoBitmap) -> bool {
    var region = seed;
    var touching = false;
    loop {
        let around = go_neighbours(region);
        if !go_is_empty(go_and(around, targets)) {
            touching = true;
            break;
        }
        let grown = go_or(region, go_and(around, stones));
        if go_equal(grown, region) {
            break;
        }
        region = grown;
    }
    return touching;
}
