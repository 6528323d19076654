// variant_selected.wgsl — written by src/chess/gpu/variant.rs for one variant.
//
// Reads: nothing. Writes: nothing. The variants' numbers, and VARIANT, the one this module is for.

const VARIANT_CHESS: u32 = 0u;
const VARIANT_ANTICHESS: u32 = 1u;
const VARIANT_ATOMIC: u32 = 2u;
const VARIANT_KING_OF_THE_HILL: u32 = 3u;
const VARIANT_THREE_CHECK: u32 = 4u;
const VARIANT_HORDE: u32 = 5u;
const VARIANT_RACING_KINGS: u32 = 6u;
const VARIANT_CRAZYHOUSE: u32 = 7u;
const VARIANT: u32 = 0u;
