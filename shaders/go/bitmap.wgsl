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

// The number of points in both bitmaps, word by word (no bitmap of them
// made first and held whole).
fn go_count_both(first: GoBitmap, second: GoBitmap) -> u32 {
    var first_words = first;
    var second_words = second;
    var count = 0u;
    for (var index = 0u; index < GO_WORDS; index++) {
        count += countOneBits(first_words[index] & second_words[index]);
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

// The point next to `bit` in `direction` (0 to 3: one higher, one lower,
// a row up, a row down). Off the board it is a guard bit or past the
// bitmap, which no stone is on.
fn go_neighbour_bit(bit: u32, direction: u32) -> u32 {
    let step = select(1u, GO_LINE, direction >= 2u);
    return select(bit + step, bit - step, (direction & 1u) != 0u);
}

// go_from_bit(bit) by another formula. A compiler merges equal formulas
// into one value, held from its first use to its last: a point wanted
// again late in a function is made by this one, so that the first is not
// held in registers all the while.
fn go_from_bit_again(bit: u32) -> GoBitmap {
    var result: GoBitmap;
    for (var index = 0u; index < GO_WORDS; index++) {
        let offset = bit - 32u * index;
        result[index] = select(0u, 1u << (offset & 31u), offset < 32u);
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

// Word `index` of the bitmap with every bit moved `shift` (0 < shift < 32)
// places towards higher bits.
fn go_shifted_up_word(words: ptr<function, GoBitmap>, index: u32, shift: u32) -> u32 {
    var below = 0u;
    if index > 0u {
        below = (*words)[index - 1u];
    }
    return ((*words)[index] << shift) | (below >> (32u - shift));
}

// Word `index` of the bitmap with every bit moved `shift` (0 < shift < 32)
// places towards lower bits.
fn go_shifted_down_word(words: ptr<function, GoBitmap>, index: u32, shift: u32) -> u32 {
    var above = 0u;
    if index + 1u < GO_WORDS {
        above = (*words)[index + 1u];
    }
    return ((*words)[index] >> shift) | (above << (32u - shift));
}

// Word `index` of go_from_bit(bit).
fn go_bit_word(bit: u32, index: u32) -> u32 {
    return select(0u, 1u << (bit % 32u), bit / 32u == index);
}

// Word `index` of the points next to one of `words`, with guard bits: the
// word's own bits moved one point sideways and one row up and down, with
// the bits that cross in from the words on either side (GO_LINE < 32, so a
// row's shift reaches one word over). The bitmap kernels work word by word
// through it: four shifted bitmaps made whole before they were joined held
// four bitmaps' registers at once (48 on 19x19).
fn go_spread_word(words: ptr<function, GoBitmap>, index: u32) -> u32 {
    let word = (*words)[index];
    var below = 0u;
    var above = 0u;
    if index > 0u {
        below = (*words)[index - 1u];
    }
    if index + 1u < GO_WORDS {
        above = (*words)[index + 1u];
    }
    let sideways = (word << 1u) | (below >> 31u) | (word >> 1u) | (above << 31u);
    return sideways | (word << GO_LINE) | (below >> (32u - GO_LINE)) | (word >> GO_LINE) | (above << (32u - GO_LINE));
}

// The points next to one of `points`, with guard bits: for masking by a
// set of board points, which clears the guards anyway.
fn go_spread(points: GoBitmap) -> GoBitmap {
    var words = points;
    var result: GoBitmap;
    for (var index = 0u; index < GO_WORDS; index++) {
        result[index] = go_spread_word(&words, index);
    }
    return result;
}

// Every point next to one of `points` (the seed's gather).
fn go_neighbours(points: GoBitmap) -> GoBitmap {
    var words = points;
    var result: GoBitmap;
    for (var index = 0u; index < GO_WORDS; index++) {
        result[index] = go_spread_word(&words, index) & GO_BOARD[index];
    }
    return result;
}

// `bitmap` without its lowest point, word by word (no one-point bitmap
// made to take it out).
fn go_without_first(bitmap: GoBitmap) -> GoBitmap {
    var words = bitmap;
    var found = false;
    for (var index = 0u; index < GO_WORDS; index++) {
        let word = words[index];
        words[index] = select(word & (word - 1u), word, found);
        found = found || word != 0u;
    }
    return words;
}

// The points of `within` connected to `seed` through `within`. Each pass
// grows the region in place, word by word from the lowest, so a word sees
// the growth of the one below it in the same pass; it stops after a pass
// that changes nothing.
fn go_flood(seed: GoBitmap, within: GoBitmap) -> GoBitmap {
    var region = go_and(seed, within);
    var limits = within;
    loop {
        var changed = 0u;
        for (var index = 0u; index < GO_WORDS; index++) {
            let grown = (region[index] | go_spread_word(&region, index)) & limits[index];
            changed |= grown ^ region[index];
            region[index] = grown;
        }
        if changed == 0u {
            break;
        }
    }
    return region;
}

// The number of points of `empty` (points of the board) next to `group`.
fn go_liberty_count(group: GoBitmap, empty: GoBitmap) -> u32 {
    var free = empty;
    var members = group;
    var count = 0u;
    for (var index = 0u; index < GO_WORDS; index++) {
        count += countOneBits(go_spread_word(&members, index) & free[index]);
    }
    return count;
}

// Whether the group of `seed` in `stones` touches a point of `targets`
// (points of the board). The group grows as in go_flood, and each pass
// tests the neighbours of what it has reached so far.
fn go_touches(seed: GoBitmap, stones: GoBitmap, targets: GoBitmap) -> bool {
    var region = seed;
    var stone_words = stones;
    var target_words = targets;
    var touching = false;
    loop {
        var reached = 0u;
        var changed = 0u;
        for (var index = 0u; index < GO_WORDS; index++) {
            let around = go_spread_word(&region, index) & GO_BOARD[index];
            reached |= around & target_words[index];
            let grown = region[index] | (around & stone_words[index]);
            changed |= grown ^ region[index];
            region[index] = grown;
        }
        if reached != 0u {
            touching = true;
            break;
        }
        if changed == 0u {
            break;
        }
    }
    return touching;
}
