//! `deep`: perft with transposition tables against without, alternating
//! rounds: the CPU on one thread and on all, and the GPU with its table in
//! GPU memory and without one, side by side in one run.

use crate::OrGpuExit as _;
use crate::report::{Row, median, seconds};
use gpu_movegen::suite::published_count;
use gpu_movegen::{Position, perft};

pub(crate) fn deep_section(depth: u32, hash: u64, gpu_hash: Option<u64>, rounds: usize) -> Vec<Row> {
    let mut rows = cpu_rows(depth, hash, rounds);
    rows.extend(gpu_rows(depth, gpu_hash, rounds));
    rows
}

/// The GPU with a table (cleared before each round, inside its time, as the
/// CPU's is made anew) and without one; the engines are built and warmed first.
fn gpu_rows(depth: u32, gpu_hash: Option<u64>, rounds: usize) -> Vec<Row> {
    use gpu_movegen::chess::gpu::{GpuPerft, PerftOptions};
    use gpu_movegen::gpu::GpuContext;
    let context = match GpuContext::new() {
        Ok(context) => context,
        Err(error) => {
            eprintln!("deep: {error}");
            std::process::exit(3);
        }
    };
    let build = crate::perft::adapter_build(&context);
    let table_bytes = gpu_hash.map_or_else(
        || gpu_movegen::gpu::perft::default_table_bytes(&context, None, Some(depth)),
        |mebibytes| mebibytes << 20,
    );
    let engine = |table_bytes: u64| {
        let options = PerftOptions { build, table_bytes: Some(table_bytes), ..Default::default() };
        let mut engine = GpuPerft::with_options(&context, options).or_gpu_exit("GPU perft");
        engine.perft(&[Position::start()], 3, &mut |_| {}).or_gpu_exit("warm-up");
        engine
    };
    let (mut plain_engine, mut table_engine) = (engine(0), engine(table_bytes));
    let start = Position::start();
    let expected = published_count(&start, depth);
    println!(
        "GPU start perft({depth}) on {}, {rounds} alternating rounds, median; a {} MiB table cleared each round; without it,\n  equal positions of a level are merged under each root",
        context.adapter_description(),
        table_engine.transposition_table_bytes() >> 20
    );
    let (mut plain, mut hashed, mut nodes) = (Vec::new(), Vec::new(), 0);
    for _ in 0..rounds {
        let (count, time) = seconds(|| plain_engine.perft(&[start], depth, &mut |_| {}).or_gpu_exit("GPU perft")[0]);
        let (hashed_count, hashed_time) = seconds(|| {
            table_engine.clear_table().or_gpu_exit("clearing the table");
            table_engine.perft(&[start], depth, &mut |_| {}).or_gpu_exit("GPU perft")[0]
        });
        if count != hashed_count || expected.is_some_and(|expected| expected != count) {
            eprintln!(
                "deep: GPU perft({depth}) is {count} without the table, {hashed_count} with it, published {expected:?}"
            );
            std::process::exit(1);
        }
        nodes = count;
        plain.push(time);
        hashed.push(hashed_time);
    }
    let (plain, hashed) = (median(plain), median(hashed));
    println!(
        "{:<12} {:>14.1} {:>14.1} {:>10.2}",
        "gpu",
        nodes as f64 / plain / 1e6,
        nodes as f64 / hashed / 1e6,
        plain / hashed
    );
    let checked = Some(if expected.is_some() { "published" } else { "each other" });
    let table = format!("gpu, {} MiB table", table_engine.transposition_table_bytes() >> 20);
    [("gpu, no table (levels merged per root)".to_owned(), plain), (table, hashed)]
        .into_iter()
        .map(|(engine, time)| {
            Row::counted("deep", engine, "start position", u64::from(depth), nodes as f64, time, checked)
        })
        .collect()
}

fn cpu_rows(depth: u32, hash: u64, rounds: usize) -> Vec<Row> {
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
