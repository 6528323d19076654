//! The two ways the engine looks up slider attacks, and the choice between
//! them, made once per process from what the processor has.

use std::sync::OnceLock;

use crate::chess::sliders::magic;

/// Rook and bishop attacks for a square (0..64) and the occupied squares.
/// Implementors are zero-sized tokens passed by value, so that a lookup that
/// needs an instruction can only be reached through a token made where the
/// instruction exists.
pub(super) trait Sliders: Copy {
    fn rook(self, square: usize, occupied: u64) -> u64;
    fn bishop(self, square: usize, occupied: u64) -> u64;
}

/// Fancy magic multipliers: every processor.
#[derive(Clone, Copy)]
pub(super) struct Magic;

impl Sliders for Magic {
    #[inline(always)]
    fn rook(self, square: usize, occupied: u64) -> u64 {
        magic::rook_attacks(square as u8, occupied)
    }

    #[inline(always)]
    fn bishop(self, square: usize, occupied: u64) -> u64 {
        magic::bishop_attacks(square as u8, occupied)
    }
}

/// BMI2 PEXT. Only [`Pext::detect`] makes one.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(super) struct Pext(());

#[cfg(target_arch = "x86_64")]
impl Pext {
    pub(super) fn detect() -> Option<Pext> {
        std::arch::is_x86_feature_detected!("bmi2").then_some(Pext(()))
    }
}

#[cfg(target_arch = "x86_64")]
impl Sliders for Pext {
    #[inline(always)]
    fn rook(self, square: usize, occupied: u64) -> u64 {
        // SAFETY: a `Pext` exists only where the processor has BMI2.
        unsafe { crate::chess::sliders::pext::rook_attacks(square as u8, occupied) }
    }

    #[inline(always)]
    fn bishop(self, square: usize, occupied: u64) -> u64 {
        // SAFETY: as above.
        unsafe { crate::chess::sliders::pext::bishop_attacks(square as u8, occupied) }
    }
}

/// How the CPU perft engine looks up slider attacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SliderLookup {
    /// BMI2 `pext` into dense tables: Intel since Haswell, AMD since Zen 3.
    Pext,
    /// Magic multipliers: any processor.
    Magic,
}

/// The environment variable that overrides the choice: `magic` or `pext`
/// (`pext` is honoured only where the processor has BMI2).
pub const SLIDER_LOOKUP_VARIABLE: &str = "GPU_MOVEGEN_CPU_SLIDERS";

impl SliderLookup {
    /// Both look-ups.
    pub const ALL: [SliderLookup; 2] = [SliderLookup::Pext, SliderLookup::Magic];

    /// `pext` or `magic`, as `GPU_MOVEGEN_CPU_SLIDERS` names them.
    pub const fn name(self) -> &'static str {
        match self {
            SliderLookup::Pext => "pext",
            SliderLookup::Magic => "magic",
        }
    }

    /// Whether this processor can run the lookup at all.
    pub fn is_available(self) -> bool {
        match self {
            SliderLookup::Magic => true,
            #[cfg(target_arch = "x86_64")]
            SliderLookup::Pext => Pext::detect().is_some(),
            #[cfg(not(target_arch = "x86_64"))]
            SliderLookup::Pext => false,
        }
    }

    /// What the engine uses: the variable's choice when it is available,
    /// otherwise PEXT where the processor has a fast one, otherwise magic.
    /// Decided once per process.
    pub fn selected() -> SliderLookup {
        static SELECTED: OnceLock<SliderLookup> = OnceLock::new();
        *SELECTED.get_or_init(|| {
            let chosen = std::env::var(SLIDER_LOOKUP_VARIABLE).ok();
            match chosen.as_deref() {
                Some("magic") => SliderLookup::Magic,
                Some("pext") if SliderLookup::Pext.is_available() => SliderLookup::Pext,
                _ if SliderLookup::Pext.is_available() && has_fast_pext() => SliderLookup::Pext,
                _ => SliderLookup::Magic,
            }
        })
    }
}

impl std::fmt::Display for SliderLookup {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.name())
    }
}

/// AMD processors before Zen 3 (family 0x19) run `pext` in microcode, one
/// bit at a time, far slower than a multiply; every other BMI2 processor
/// runs it in three cycles.
#[cfg(target_arch = "x86_64")]
fn has_fast_pext() -> bool {
    use std::arch::x86_64::__cpuid;
    let vendor = __cpuid(0);
    let amd = (vendor.ebx, vendor.edx, vendor.ecx) == (0x6874_7541, 0x6974_6e65, 0x444d_4163);
    if !amd {
        return true;
    }
    let signature = __cpuid(1).eax;
    let base_family = (signature >> 8) & 0xf;
    let family = if base_family == 0xf { base_family + ((signature >> 20) & 0xff) } else { base_family };
    family >= 0x19
}

#[cfg(not(target_arch = "x86_64"))]
fn has_fast_pext() -> bool {
    false
}
