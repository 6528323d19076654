//! `deep`: CPU perft with the transposition table against without it,
//! alternating rounds, on one thread and on all.

use crate::report::{Row, median, seconds};
use gpu_movegen::suite::published_count;
use gpu_movegen::{Position, perft};

pub(crate) fn deep_section(depth: u32, hash: u64, rounds: usize) -> Vec<Row> {
    use gpu_movegen::chess::transposition::{TranspositionTable, perft_hashed, perft_hashed_parallel};
    let start = Position::start();
    let expected = published_count(&start, depth);
    println!("CPU start perft({depth}), {rounds} alternating rounds, median; a fresh {hash} MiB table each round");
    println!("{:<12} {:>14} {:>14} {:>10}", "threads", "no table M/s", "table M/s", "speed-up");
    let mut rows = Vec::new();
    for parallel in [false, true] {
        let (mut plain, mut hashed, mut nodes) = (Vec::new(), Vec::new(), 0);
        for _ in 0..rounds {
            let (count, time) =
                seconds(|| if parallel { perft::perft_parallel(&start, depth) } else { perft::perft(&start, depth) });
            let (hashed_count, hashed_time) = seconds(|| {
                let table = TranspositionTable::with_mebibytes(hash).expect("a table of at least 1 MiB");
                if parallel {
                    perft_hashed_parallel(&start, depth, &table)
                } else {
                    perft_hashed(&start, depth, &table)
                }
            });
            if count != hashed_count || expected.is_some_and(|expected| expected != count) {
                eprintln!(
                    "deep: perft({depth}) is {count} without the table, {hashed_count} with it, published {expected:?}"
                );
                std::process::exit(1);
            }
            nodes = count;
            plain.push(time);
            hashed.push(hashed_time);
        }
        let (plain, hashed) = (median(plain), median(hashed));
        let threads = if parallel { format!("{}", rayon::current_num_threads()) } else { "1".to_owned() };
        println!(
            "{threads:<12} {:>14.1} {:>14.1} {:>10.2}",
            nodes as f64 / plain / 1e6,
            nodes as f64 / hashed / 1e6,
            plain / hashed
        );
        for (engine, time) in
            [(format!("{threads} threads, no table"), plain), (format!("{threads} threads, {hash} MiB table"), hashed)]
        {
            let checked = Some(if expected.is_some() { "published" } else { "each other" });
            rows.push(Row::counted("deep", engine, "start position", u64::from(depth), nodes as f64, time, checked));
        }
    }
    rows
}
