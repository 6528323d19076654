//! Throughput measurements, each comparison made in one run on one machine.
//!
//! `cpu`: single-threaded CPU perft of this crate against cozy-chess on the
//! start position (depth 6) and Kiwipete (depth 5), alternating the two in
//! rounds so that drift in machine speed hits both; then multi-threaded
//! scaling of this crate's perft.
//!
//! `movegen`: positions and moves per second of the two GPU kernels and the
//! CPU reference over batch sizes from 1 to 1,000,000, with the GPU time
//! split into upload, dispatch (host clock and GPU timestamps) and readback.
//!
//! `perft`: nodes per second of GPU perft, the CPU backend (all threads),
//! this crate's CPU perft on one thread and cozy-chess on one thread, on the
//! start position and Kiwipete at several depths. With `--budget-seconds` the
//! start position goes as deep as the budget allows.
//!
//! `deep`: CPU perft of the start position with the transposition table
//! against without it, alternating rounds, on one thread and on all.
//!
//! `go`: Go legal-point bitmaps and random playouts per second on 9×9 and
//! 19×19, GPU against the CPU on one thread and on all threads; the GPU's
//! bitmaps and playouts are checked against the CPU's before they count.
//!
//! Every section prints a table; `--json FILE` writes the same figures and
//! `--plot FILE` draws them (SVG).
//!
//! ```text
//! cargo run --release --example throughput -- cpu --rounds 5
//! cargo run --release --example throughput -- go
//! cargo run --release --example throughput -- movegen --max-batch 1000000 --json movegen.json --plot movegen.svg
//! cargo run --release --example throughput -- perft --start-depths 4,5,6 --kiwipete-depths 3,4,5
//! ```

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{Parser, Subcommand};
use gpu_movegen::chess::gpu::{GeneratorOptions, GpuPerft, PerftOptions, ShaderVariant, shaders};
use gpu_movegen::chess::gpu::{Kernel, MoveGenerator, PositionMoves, Timings};
use gpu_movegen::gpu::GpuContext;
use gpu_movegen::gpu::reflect::reflect;
use gpu_movegen::sliders::SliderAlgorithm;
use gpu_movegen::suite::{KIWIPETE_FEN as KIWIPETE, published_count};
use gpu_movegen::{Position, perft, random_play};
use rayon::prelude::*;
use serde::Serialize;

#[derive(Parser)]
struct Arguments {
    #[command(subcommand)]
    section: Section,
    /// Write the figures as JSON to this file.
    #[arg(long, global = true)]
    json: Option<PathBuf>,
    /// Draw the figures as an SVG plot in this file.
    #[arg(long, global = true)]
    plot: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Section {
    /// CPU perft with the transposition table against without, alternating rounds.
    Deep {
        /// Depth of the start-position perft.
        #[arg(long, default_value_t = 6)]
        depth: u32,
        /// Transposition table size in MiB.
        #[arg(long, default_value_t = 16)]
        hash: u64,
        /// Timed rounds (the median is reported).
        #[arg(long, default_value_t = 5)]
        rounds: usize,
    },
    /// Go: legal-point bitmaps and playouts per second, GPU against the CPU.
    Go {
        /// Random game positions per bitmap measurement.
        #[arg(long, default_value_t = 20_000)]
        positions: usize,
        /// CPU playouts per board size (the 19x19 count is a tenth of it).
        #[arg(long, default_value_t = 100_000)]
        playouts: u32,
        /// GPU playouts per board size (the 19x19 count is a tenth of it).
        #[arg(long, default_value_t = 4_096)]
        gpu_playouts: u32,
    },
    /// Shogi CPU perft against shunsai, one thread each, alternating rounds.
    Shogi {
        /// Timed rounds per measurement (the median is reported).
        #[arg(long, default_value_t = 3)]
        rounds: usize,
        /// Depth of the start-position perft.
        #[arg(long, default_value_t = 4)]
        depth: u32,
    },
    /// CPU perft against cozy-chess, single-threaded, and thread scaling.
    Cpu {
        /// Timed rounds per measurement (the median is reported).
        #[arg(long, default_value_t = 5)]
        rounds: usize,
    },
    /// Move generation: GPU kernels against the CPU reference over batch sizes.
    Movegen {
        /// Largest batch (batches are 1, 10, 100, … up to this).
        #[arg(long, default_value_t = 1_000_000)]
        max_batch: usize,
    },
    /// Slider algorithms x bitboard representations: slider evaluations,
    /// move generation and perft on the GPU, and the CPU twins' evaluations.
    Sliders {
        /// Positions per move-generation batch.
        #[arg(long, default_value_t = 100_000)]
        batch: usize,
        /// Depth of the start-position perft.
        #[arg(long, default_value_t = 5)]
        perft_depth: u32,
        /// Invocations of the slider benchmark kernel (each evaluates 64 queens).
        #[arg(long, default_value_t = 1 << 16)]
        invocations: u32,
    },
    /// Perft: GPU, CPU (all threads), CPU (one thread) and cozy-chess (one thread).
    Perft {
        /// Depths for the start position, in order.
        #[arg(long, value_delimiter = ',', default_value = "4,5,6")]
        start_depths: Vec<u32>,
        /// Depths for Kiwipete, in order.
        #[arg(long, value_delimiter = ',', default_value = "3,4,5")]
        kiwipete_depths: Vec<u32>,
        /// Run the CPU backends only up to this many nodes.
        #[arg(long, default_value_t = 200_000_000)]
        cpu_max_nodes: u64,
        /// Skip a depth when the time spent plus a forecast for it (the previous
        /// depth's GPU time times 40, per round) would pass this many seconds.
        #[arg(long)]
        budget_seconds: Option<f64>,
        /// Rounds per depth; every engine runs once per round, in turn.
        #[arg(long, default_value_t = 3)]
        rounds: usize,
        /// Also time the other shape of the last two plies on the GPU: the
        /// last level stored and counted one ply per (position, move) pair.
        #[arg(long)]
        leaf_shapes: bool,
    },
}

/// One measured figure of any section, as the JSON and the plot see it.
#[derive(Serialize, Clone)]
struct Row {
    section: &'static str,
    /// What ran: "gpu per-position", "cpu 2 threads", "cozy-chess 1 thread", ...
    engine: String,
    /// "batch" for move generation, the position's name for perft.
    workload: String,
    /// Batch size (move generation) or depth (perft).
    size: u64,
    /// Positions (move generation) or nodes (perft) per second.
    rate: f64,
    /// Moves per second (move generation) or nodes (perft).
    amount: f64,
    seconds: f64,
    upload_ms: Option<f64>,
    dispatch_ms: Option<f64>,
    gpu_ms: Option<f64>,
    readback_ms: Option<f64>,
    /// For counts: how the count was checked ("published", "cpu") or "UNCHECKED".
    #[serde(skip_serializing_if = "Option::is_none")]
    checked: Option<&'static str>,
}

impl Row {
    /// A row of `amount` nodes (or positions, or playouts) counted in
    /// `seconds`, with no GPU timings.
    fn counted(
        section: &'static str,
        engine: String,
        workload: &str,
        size: u64,
        amount: f64,
        seconds: f64,
        checked: Option<&'static str>,
    ) -> Row {
        Row {
            section,
            engine,
            workload: workload.to_owned(),
            size,
            rate: amount / seconds,
            amount,
            seconds,
            upload_ms: None,
            dispatch_ms: None,
            gpu_ms: None,
            readback_ms: None,
            checked,
        }
    }
}

#[derive(Serialize)]
struct Report<'a> {
    section: &'a str,
    unix_time: u64,
    adapter: Option<String>,
    cpu_threads: usize,
    rows: &'a [Row],
}

fn write_json(path: &Path, section: &str, adapter: Option<String>, rows: &[Row]) {
    let report = Report {
        section,
        unix_time: std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |time| time.as_secs()),
        adapter,
        cpu_threads: rayon::current_num_threads(),
        rows,
    };
    let text = serde_json::to_string_pretty(&report).expect("figures serialise");
    std::fs::write(path, text).unwrap_or_else(|error| panic!("writing {}: {error}", path.display()));
}

/// Rate (log scale) against size, one line per engine (and workload).
/// `log_x` plots the size on a log scale (batch sizes); otherwise linear (depths).
fn draw_plot(path: &Path, title: &str, x_label: &str, y_label: &str, rows: &[Row], log_x: bool) {
    use plotters::prelude::*;
    let to_x = |size: u64| if log_x { (size as f64).log10() } else { size as f64 };
    let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for row in rows.iter().filter(|row| row.rate > 0.0) {
        let name =
            if row.section == "movegen" { row.engine.clone() } else { format!("{} ({})", row.engine, row.workload) };
        let point = (to_x(row.size), row.rate);
        match series.iter_mut().find(|(existing, _)| *existing == name) {
            Some((_, points)) => points.push(point),
            None => series.push((name, vec![point])),
        }
    }
    let xs = rows.iter().map(|row| to_x(row.size));
    let (min_x, max_x) = xs.fold((f64::MAX, f64::MIN), |(low, high), x| (low.min(x), high.max(x)));
    let rates = rows.iter().map(|row| row.rate).filter(|rate| *rate > 0.0);
    let (min_y, max_y) = rates.fold((f64::MAX, f64::MIN), |(low, high), rate| (low.min(rate), high.max(rate)));
    let root = SVGBackend::new(path, (960, 600)).into_drawing_area();
    root.fill(&WHITE).expect("plot background");
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(80)
        .build_cartesian_2d(min_x - 0.5..max_x + 0.5, (min_y / 2.0..max_y * 2.0).log_scale())
        .expect("plot axes");
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .x_labels(if log_x { 8 } else { (max_x - min_x) as usize + 2 })
        .x_label_formatter(&|x| if log_x { format!("{:.0}", 10f64.powf(*x)) } else { format!("{x:.0}") })
        .y_label_formatter(&|y| {
            if *y >= 1e9 {
                format!("{:.1} G", y / 1e9)
            } else if *y >= 1e6 {
                format!("{:.1} M", y / 1e6)
            } else {
                format!("{:.0} k", y / 1e3)
            }
        })
        .draw()
        .expect("plot mesh");
    for (index, (name, points)) in series.into_iter().enumerate() {
        let color = Palette99::pick(index).to_rgba();
        chart
            .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))
            .expect("plot line")
            .label(name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2)));
        chart.draw_series(points.into_iter().map(|point| Circle::new(point, 3, color.filled()))).expect("plot points");
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .expect("plot legend");
    root.present().unwrap_or_else(|error| panic!("writing {}: {error}", path.display()));
}

fn cozy_perft(board: &cozy_chess::Board, depth: u32) -> u64 {
    if depth == 1 {
        let mut nodes = 0;
        board.generate_moves(|moves| {
            nodes += moves.len() as u64;
            false
        });
        return nodes;
    }
    let mut nodes = 0;
    board.generate_moves(|moves| {
        for mv in moves {
            let mut child = board.clone();
            child.play_unchecked(mv);
            nodes += cozy_perft(&child, depth - 1);
        }
        false
    });
    nodes
}

fn seconds<T>(run: impl FnOnce() -> T) -> (T, f64) {
    let started = Instant::now();
    let value = run();
    (value, started.elapsed().as_secs_f64())
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn shunsai_perft(position: &mut shunsai::Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return position.legal_moves().len() as u64;
    }
    let mut nodes = 0;
    for mv in position.legal_moves() {
        let undo = position.do_move(mv);
        nodes += shunsai_perft(position, depth - 1);
        position.undo_move(mv, undo);
    }
    nodes
}

/// Shogi on the GPU, when an adapter opens: perft of the start position
/// (checked against the CPU) and the per-position kernel by batch size.
fn shogi_gpu_rows(depth: u32) {
    use gpu_movegen::shogi;
    let Ok(context) = GpuContext::new() else {
        println!("\nShogi on the GPU: no adapter");
        return;
    };
    let start = shogi::Position::start();
    let expected = shogi::perft::perft_parallel(&start, depth);
    println!(
        "\nShogi GPU perft({depth}) on {}, two bitboard layouts, 3 alternating rounds:",
        context.adapter_description()
    );
    use shogi::gpu::layout::BoardWords;
    let mut engines: Vec<(BoardWords, shogi::gpu::ShogiGpuPerft, Vec<f64>)> =
        [BoardWords::Full, BoardWords::ThreeRanks]
            .into_iter()
            .map(|variant| {
                let options = shogi::gpu::ShogiPerftOptions { variant, ..Default::default() };
                let mut gpu = shogi::gpu::ShogiGpuPerft::with_options(&context, options).expect("Shogi GPU perft");
                gpu.perft(&[start], 2, &mut |_| {}).expect("warm-up");
                (variant, gpu, Vec::new())
            })
            .collect();
    for _ in 0..3 {
        for (variant, gpu, times) in &mut engines {
            let (nodes, time) = seconds(|| gpu.perft(&[start], depth, &mut |_| {}).expect("Shogi GPU perft")[0]);
            if nodes != expected {
                eprintln!("shogi: the GPU ({variant:?}) counted {nodes} for perft({depth}), the CPU {expected}");
                std::process::exit(1);
            }
            times.push(time);
        }
    }
    for (variant, _, times) in engines {
        println!("Shogi GPU perft({depth}), {variant:?}: {:.2} M nodes/s", expected as f64 / median(times) / 1e6);
    }
    let mut generator = shogi::gpu::ShogiMoveGenerator::new(&context).expect("Shogi move generator");
    let positions = shogi::perft::random_positions(4_096, 2026);
    generator.generate(&positions[..64]).expect("warm-up");
    for batch in [64usize, 1_024, 4_096] {
        let started = Instant::now();
        let moves = generator.generate(&positions[..batch]).expect("Shogi move generation");
        let rate = batch as f64 / started.elapsed().as_secs_f64();
        assert_eq!(moves.len(), batch);
        println!("Shogi GPU move generation, batch {batch:>5}: {rate:>10.0} positions/s");
    }
}

fn shogi_section(rounds: usize, depth: u32) -> Vec<Row> {
    use gpu_movegen::shogi;
    println!("Shogi CPU perft from the start position, one thread each, {rounds} alternating rounds, median time");
    println!("{:<8} {:>12} {:>12} {:>14} {:>14}", "depth", "nodes", "ours M/s", "shunsai M/s", "ours/shunsai");
    let position = shogi::Position::start();
    let (mut ours, mut theirs, mut nodes) = (Vec::new(), Vec::new(), 0);
    for _ in 0..rounds {
        let (our_nodes, time) = seconds(|| shogi::perft::perft(&position, depth));
        let mut peer = shunsai::Position::startpos();
        let (peer_nodes, peer_time) = seconds(|| shunsai_perft(&mut peer, depth));
        if our_nodes != peer_nodes {
            eprintln!("shogi: perft({depth}) is {our_nodes} here and {peer_nodes} for shunsai");
            std::process::exit(1);
        }
        nodes = our_nodes;
        ours.push(time);
        theirs.push(peer_time);
    }
    let (ours, theirs) = (median(ours), median(theirs));
    println!(
        "{depth:<8} {nodes:>12} {:>12.2} {:>14.2} {:>14.3}",
        nodes as f64 / ours / 1e6,
        nodes as f64 / theirs / 1e6,
        theirs / ours
    );
    // The two ways to compute sliding attacks, on the same occupancies.
    use gpu_movegen::shogi::movegen::{DIAGONAL_DIRECTIONS, ORTHOGONAL_DIRECTIONS, slide};
    use gpu_movegen::shogi::{Bitboard, sliders};
    let occupancies: Vec<Bitboard> = (0..1024u128)
        .map(|index| {
            let bits = index.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835) ^ (index << 17);
            Bitboard(bits & bits.rotate_left(23) & Bitboard::ALL.0)
        })
        .collect();
    let evaluations = occupancies.len() as f64 * 81.0 * 2.0;
    let time_method = |rook: &dyn Fn(u8, Bitboard) -> Bitboard, bishop: &dyn Fn(u8, Bitboard) -> Bitboard| {
        let started = Instant::now();
        let mut folded = 0u128;
        for _ in 0..10 {
            for occupied in &occupancies {
                for square in 0..81 {
                    folded ^= rook(square, *occupied).0 ^ bishop(square, *occupied).0;
                }
            }
        }
        std::hint::black_box(folded);
        evaluations * 10.0 / started.elapsed().as_secs_f64() / 1e6
    };
    let rays = time_method(&|square, occupied| slide(square, &ORTHOGONAL_DIRECTIONS, occupied), &|square, occupied| {
        slide(square, &DIAGONAL_DIRECTIONS, occupied)
    });
    let fill = time_method(&sliders::rook_attacks, &sliders::bishop_attacks);
    println!(
        "\nShogi sliders, rook and bishop attacks, one thread: ray tables with a bit scan {rays:.1} M/s, \
              nine-by-nine Kogge-Stone fill {fill:.1} M/s"
    );
    shogi_gpu_rows(depth);
    [("gpu-movegen 1 thread", ours), ("shunsai 1 thread", theirs)]
        .into_iter()
        .map(|(engine, time)| {
            Row::counted(
                "shogi",
                engine.to_owned(),
                "start position",
                u64::from(depth),
                nodes as f64,
                time,
                Some("shunsai"),
            )
        })
        .collect()
}

fn deep_section(depth: u32, hash: u64, rounds: usize) -> Vec<Row> {
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

fn go_section(position_count: usize, playout_count: u32, gpu_playout_count: u32) -> (Option<String>, Vec<Row>) {
    use gpu_movegen::go::bitmap::Geometry;
    use gpu_movegen::go::board::Board;
    use gpu_movegen::go::chains::{Chains, fast_playout};
    use gpu_movegen::go::gpu::{GoMoveGenerator, GoPositionMoves, GpuPlayouts};
    use gpu_movegen::go::playout::{playouts, random_positions};
    use gpu_movegen::random::ShaderRandom;

    let context = GpuContext::new().ok();
    let adapter = context.as_ref().map(GpuContext::adapter_description);
    let threads = rayon::current_num_threads();
    let mut rows = Vec::new();
    println!("Go, per second (GPU: {})", adapter.as_deref().unwrap_or("none"));
    println!(
        "{:<6} {:<16} {:>16} {:>16} {:>16}",
        "size",
        "work",
        "cpu 1 thread",
        format!("cpu {threads} threads"),
        "gpu"
    );
    for size in [9u32, 19] {
        // Legal-point and playout bitmaps of random game positions.
        let positions = random_positions(size, position_count, u64::from(size)).expect("a supported size");
        let (expected, one) = seconds(|| positions.iter().map(GoPositionMoves::from_cpu).collect::<Vec<_>>());
        let (_, all) = seconds(|| positions.par_iter().map(GoPositionMoves::from_cpu).collect::<Vec<_>>());
        let gpu = context.as_ref().map(|context| {
            let mut generator = GoMoveGenerator::new(context);
            generator.generate(&positions[..positions.len().min(64)]).expect("GPU bitmaps");
            let (moves, time) = seconds(|| generator.generate(&positions).expect("GPU bitmaps"));
            if moves != expected {
                eprintln!("go: the GPU's {size}x{size} bitmaps differ from the CPU's");
                std::process::exit(1);
            }
            time
        });
        let amount = positions.len() as f64;
        let rate = |time: f64| format!("{:.0}", amount / time);
        println!(
            "{size:<6} {:<16} {:>16} {:>16} {:>16}",
            "legal bitmaps",
            rate(one),
            rate(all),
            gpu.map_or("-".to_owned(), rate)
        );
        rows.push(Row::counted(
            "go",
            "cpu 1 thread".into(),
            "legal bitmaps",
            u64::from(size),
            amount,
            one,
            Some("cpu"),
        ));
        rows.push(Row::counted(
            "go",
            format!("cpu {threads} threads"),
            "legal bitmaps",
            u64::from(size),
            amount,
            all,
            Some("cpu"),
        ));
        if let Some(time) = gpu {
            rows.push(Row::counted("go", "gpu".into(), "legal bitmaps", u64::from(size), amount, time, Some("cpu")));
        }
        // Playouts from the empty board.
        let scale = if size == 9 { 1 } else { 10 };
        let count = playout_count / scale;
        let empty = gpu_movegen::go::Position::new(size).expect("a supported size");
        macro_rules! one_thread {
            ($words:literal) => {{
                let geometry = Geometry::<$words>::new(size);
                let mut chains = Chains::default();
                seconds(|| {
                    (0..count)
                        .map(|stream| {
                            let mut random = ShaderRandom::new(1, stream);
                            fast_playout(&geometry, Board::EMPTY, &mut chains, &mut random).area_difference
                        })
                        .sum::<i32>()
                })
                .1
            }};
        }
        let one = if size == 9 { one_thread!(2) } else { one_thread!(6) };
        let (_, all) = seconds(|| playouts(&empty, count, 1, 0));
        let gpu_count = gpu_playout_count / scale;
        let gpu = context.as_ref().map(|context| {
            let mut runner = GpuPlayouts::new(context);
            runner.playouts(&[empty], 64, 2, 0).expect("GPU playouts");
            let (results, time) = seconds(|| runner.playouts(&[empty], gpu_count, 2, 0).expect("GPU playouts"));
            if results != playouts(&empty, gpu_count, 2, 0) {
                eprintln!("go: the GPU's {size}x{size} playouts differ from the CPU twin's");
                std::process::exit(1);
            }
            time
        });
        println!(
            "{size:<6} {:<16} {:>16.0} {:>16.0} {:>16}",
            "playouts",
            f64::from(count) / one,
            f64::from(count) / all,
            gpu.map_or("-".to_owned(), |time| format!("{:.0}", f64::from(gpu_count) / time))
        );
        rows.push(Row::counted("go", "cpu 1 thread".into(), "playouts", u64::from(size), f64::from(count), one, None));
        rows.push(Row::counted(
            "go",
            format!("cpu {threads} threads"),
            "playouts",
            u64::from(size),
            f64::from(count),
            all,
            None,
        ));
        if let Some(time) = gpu {
            rows.push(Row::counted(
                "go",
                "gpu".into(),
                "playouts",
                u64::from(size),
                f64::from(gpu_count),
                time,
                Some("cpu"),
            ));
        }
    }
    (adapter, rows)
}

fn shakmaty_position(fen: &str, mode: shakmaty::CastlingMode) -> shakmaty::Chess {
    let fen: shakmaty::fen::Fen = fen.parse().expect("valid FEN");
    fen.into_position(mode).expect("legal position")
}

/// The first position of chess960.perft, in Shredder-FEN (what all three libraries read).
const CHESS960_FEN: &str = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";

fn cpu_section(rounds: usize) -> Vec<Row> {
    let mut rows = Vec::new();
    println!("CPU perft, single thread, {rounds} alternating rounds, median time");
    println!(
        "{:<16} {:>5} {:>13} {:>10} {:>10} {:>13} {:>13} {:>11}",
        "position", "depth", "nodes", "ours M/s", "cozy M/s", "shakmaty M/s", "ours/shakm.", "ours/cozy"
    );
    let standard = shakmaty::CastlingMode::Standard;
    for (name, fen, depth, mode) in [
        ("start position", gpu_movegen::START_FEN, 6, standard),
        ("kiwipete", KIWIPETE, 5, standard),
        ("chess960 #0", CHESS960_FEN, 6, shakmaty::CastlingMode::Chess960),
    ] {
        let position = Position::from_fen(fen).expect("valid FEN");
        let chess960 = mode == shakmaty::CastlingMode::Chess960;
        let board = cozy_chess::Board::from_fen(fen, chess960).expect("valid FEN");
        let chess = shakmaty_position(fen, mode);
        let (mut ours, mut cozy, mut shakmaty_times) = (Vec::new(), Vec::new(), Vec::new());
        let mut node_count = 0;
        for _ in 0..rounds {
            let (nodes, time) = seconds(|| perft::perft(&position, depth));
            let (cozy_nodes, cozy_time) = seconds(|| cozy_perft(&board, depth));
            let (shakmaty_nodes, shakmaty_time) = seconds(|| shakmaty::perft(&chess, depth));
            if [cozy_nodes, shakmaty_nodes] != [nodes; 2] {
                eprintln!(
                    "cpu: the libraries disagree on {name}: {nodes}, cozy {cozy_nodes}, shakmaty {shakmaty_nodes}"
                );
                std::process::exit(1);
            }
            node_count = nodes;
            ours.push(time);
            cozy.push(cozy_time);
            shakmaty_times.push(shakmaty_time);
        }
        let (ours, cozy, shakmaty_time) = (median(ours), median(cozy), median(shakmaty_times));
        let rate = |time: f64| node_count as f64 / time / 1e6;
        for (engine, time) in
            [("gpu-movegen 1 thread", ours), ("cozy-chess 1 thread", cozy), ("shakmaty 1 thread", shakmaty_time)]
        {
            let checked = Some("cozy-chess, shakmaty");
            rows.push(Row::counted("cpu", engine.to_owned(), name, u64::from(depth), node_count as f64, time, checked));
        }
        println!(
            "{name:<16} {depth:>5} {node_count:>13} {:>10.1} {:>10.1} {:>13.1} {:>13.2} {:>11.2}",
            rate(ours),
            rate(cozy),
            rate(shakmaty_time),
            shakmaty_time / ours,
            cozy / ours
        );
    }

    let cores = std::thread::available_parallelism().map_or(1, |cores| cores.get());
    println!("\nCPU perft scaling, start position depth 6, median of {rounds}");
    println!("{:>7} {:>12} {:>10}", "threads", "M nodes/s", "speed-up");
    let position = Position::start();
    let mut single = 0.0;
    let mut threads = 1;
    while threads <= cores {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool");
        let times: Vec<f64> =
            (0..rounds).map(|_| seconds(|| pool.install(|| perft::perft_parallel(&position, 6))).1).collect();
        let time = median(times);
        if threads == 1 {
            single = time;
        }
        println!("{threads:>7} {:>12.1} {:>10.2}", 119_060_324.0 / time / 1e6, single / time);
        threads *= 2;
    }
    rows
}

/// Distinct positions from random play, repeated to `count`.
fn batch_of(distinct: &[Position], count: usize) -> Vec<Position> {
    distinct.iter().cycle().take(count).copied().collect()
}

fn millis(duration: std::time::Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}

fn movegen_section(max_batch: usize) -> (Option<String>, Vec<Row>) {
    let mut rows = Vec::new();
    let context = match GpuContext::new() {
        Ok(context) => context,
        Err(error) => {
            eprintln!("movegen: {error}");
            std::process::exit(2);
        }
    };
    let mut generator = MoveGenerator::new(&context).expect("move generator");
    println!("Move generation, adapter: {}", context.adapter_description());
    let distinct = random_play::random_positions(&Position::start(), 20_000, 120, 2026);
    let average_moves =
        distinct.iter().map(|position| position.legal_move_count() as f64).sum::<f64>() / distinct.len() as f64;
    println!("positions: random play from the start position, {average_moves:.1} legal moves on average");
    println!(
        "{:<14} {:>9} {:>13} {:>13} {:>10} {:>10} {:>10} {:>10}",
        "generator", "batch", "positions/s", "moves/s", "upload ms", "dispatch", "gpu ms", "readback"
    );
    let mut batch = 1;
    while batch <= max_batch {
        let positions = batch_of(&distinct, batch);
        // Warm-up so pipeline creation and buffer growth are not timed.
        for kernel in [Kernel::PerPiece, Kernel::PerPosition] {
            generator.generate(&positions, kernel).expect("GPU generation");
            let started = Instant::now();
            let (moves, timings): (Vec<PositionMoves>, Timings) =
                generator.generate_timed(&positions, kernel, true).expect("GPU generation");
            let seconds = started.elapsed().as_secs_f64();
            let move_total: u64 = moves.iter().map(|moves| u64::from(moves.move_count)).sum();
            rows.push(Row {
                section: "movegen",
                engine: format!("gpu {kernel:?}"),
                workload: "batch".to_owned(),
                size: batch as u64,
                rate: batch as f64 / seconds,
                amount: move_total as f64 / seconds,
                seconds,
                upload_ms: Some(millis(timings.upload)),
                dispatch_ms: Some(millis(timings.dispatch)),
                gpu_ms: timings.gpu_dispatch.map(millis),
                readback_ms: Some(millis(timings.readback)),
                checked: None,
            });
            println!(
                "{:<14} {batch:>9} {:>13.0} {:>13.0} {:>10.2} {:>10.2} {:>10} {:>10.2}",
                format!("gpu {kernel:?}"),
                batch as f64 / seconds,
                move_total as f64 / seconds,
                millis(timings.upload),
                millis(timings.dispatch),
                timings.gpu_dispatch.map_or("-".to_owned(), |time| format!("{:.2}", millis(time))),
                millis(timings.readback),
            );
        }
        let started = Instant::now();
        let single: Vec<PositionMoves> = positions.iter().map(PositionMoves::from_cpu).collect();
        let seconds = started.elapsed().as_secs_f64();
        let move_total: u64 = single.iter().map(|moves| u64::from(moves.move_count)).sum();
        let cpu_row = |engine: String, seconds: f64| Row {
            section: "movegen",
            engine,
            workload: "batch".to_owned(),
            size: batch as u64,
            rate: batch as f64 / seconds,
            amount: move_total as f64 / seconds,
            seconds,
            upload_ms: None,
            dispatch_ms: None,
            gpu_ms: None,
            readback_ms: None,
            checked: None,
        };
        rows.push(cpu_row("cpu 1 thread".to_owned(), seconds));
        println!(
            "{:<14} {batch:>9} {:>13.0} {:>13.0}",
            "cpu 1 thread",
            batch as f64 / seconds,
            move_total as f64 / seconds
        );
        let started = Instant::now();
        let parallel: Vec<PositionMoves> = positions.par_iter().map(PositionMoves::from_cpu).collect();
        let seconds = started.elapsed().as_secs_f64();
        assert_eq!(parallel.len(), batch);
        rows.push(cpu_row(format!("cpu {} threads", rayon::current_num_threads()), seconds));
        println!(
            "{:<14} {batch:>9} {:>13.0} {:>13.0}",
            format!("cpu {} threads", rayon::current_num_threads()),
            batch as f64 / seconds,
            move_total as f64 / seconds
        );
        batch *= 10;
    }
    (Some(context.adapter_description()), rows)
}

/// Each invocation evaluates 64 queen attack sets (varying square and
/// occupancy) and folds them into one word, so the work cannot be skipped.
const SLIDER_BENCH_KERNEL: &str = r#"
#import sliders

@group(0) @binding(1) var<storage, read> input: array<u32>;
@group(0) @binding(2) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(64)
fn slider_bench(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let index = id.y * groups.x * 64u + id.x;
    var occupied = bitboard_make(input[index % arrayLength(&input)], index * 0x9e3779b9u);
    var folded = BITBOARD_EMPTY;
    for (var step = 0u; step < 64u; step++) {
        let attacks = slider_queen_attacks((index + step * 7u) % 64u, occupied);
        folded = folded ^ attacks;
        occupied = occupied ^ bitboard_shift_left(attacks, step % 7u);
    }
    output[index] = bitboard_low(folded) ^ bitboard_high(folded);
}
"#;

/// Slider evaluations per second of `variant` on the GPU.
fn gpu_slider_evaluations(context: &GpuContext, variant: ShaderVariant, invocations: u32) -> f64 {
    use gpu_movegen::gpu::resources::{bind_group, buffer, buffer_with, record_dispatch};
    let device = &context.device;
    let source = shaders::compose_variant("bench", variant, &[("bench", SLIDER_BENCH_KERNEL)]).expect("composes");
    let kernels = reflect(source).expect("the bench kernel parses").kernels(device, "slider bench");
    let tables = buffer_with(device, "tables", &shaders::attack_table_data(), wgpu::BufferUsages::STORAGE);
    let seeds: Vec<u32> = (0..4096u32).map(|index| index.wrapping_mul(0x2545_f491) ^ 0x0f0f_1234).collect();
    let input = buffer_with(device, "seeds", &seeds, wgpu::BufferUsages::STORAGE);
    let output = buffer(device, "output", u64::from(invocations) * 4, wgpu::BufferUsages::STORAGE);
    let bind_group = bind_group(device, "slider bench", &kernels.layout, &[(0, &tables), (1, &input), (2, &output)]);
    let max_per_dimension = device.limits().max_compute_workgroups_per_dimension;
    // Every invocation of the grid runs its 64 evaluations, the spare ones too.
    let (x, y) = gpu_movegen::gpu::resources::grid(invocations.div_ceil(64), max_per_dimension);
    let run = || {
        let mut encoder = device.create_command_encoder(&Default::default());
        let pipeline = kernels.pipeline("slider_bench");
        record_dispatch(&mut encoder, pipeline, &bind_group, &[], invocations, 64, max_per_dimension);
        context.queue.submit([encoder.finish()]);
        context.wait().expect("GPU work finishes");
    };
    run();
    let started = Instant::now();
    run();
    (u64::from(x * y) * 64 * 64) as f64 / started.elapsed().as_secs_f64()
}

fn sliders_section(batch: usize, perft_depth: u32, invocations: u32) -> (Option<String>, Vec<Row>) {
    let context = match GpuContext::new() {
        Ok(context) => context,
        Err(error) => {
            eprintln!("sliders: {error}");
            std::process::exit(2);
        }
    };
    let native = context.device.features().contains(wgpu::Features::SHADER_INT64);
    println!("Slider algorithms, adapter: {} (SHADER_INT64: {native})", context.adapter_description());
    let positions = batch_of(&random_play::random_positions(&Position::start(), 20_000, 120, 2026), batch);
    // The published count where there is one, else the CPU's.
    let expected_nodes = published_count(&Position::start(), perft_depth)
        .unwrap_or_else(|| perft::perft_parallel(&Position::start(), perft_depth));
    println!(
        "{:<20} {:>16} {:>18} {:>16} {:>18}",
        "variant", "G evals/s", "movegen pos/s", "perft M n/s", "cpu twin M evals/s"
    );
    let mut rows = Vec::new();
    for slider in SliderAlgorithm::ALL {
        // The CPU twin's rate, one thread, for scale.
        let started = Instant::now();
        let mut folded = 0u64;
        let mut occupied = 0x0000_ff00_1234_5678u64;
        let evaluations = 2_000_000u32;
        for step in 0..evaluations {
            let square = (step * 7 % 64) as u8;
            let attacks = slider.rook_attacks(square, occupied) | slider.bishop_attacks(square, occupied);
            folded ^= attacks;
            occupied ^= attacks << (step % 7);
        }
        std::hint::black_box(folded);
        let cpu_rate = f64::from(evaluations) / started.elapsed().as_secs_f64();
        for native_u64 in [false, true] {
            if native_u64 && !native {
                continue;
            }
            let variant = ShaderVariant { slider, native_u64 };
            let evaluation_rate = gpu_slider_evaluations(&context, variant, invocations);
            let mut generator =
                MoveGenerator::with_options(&context, GeneratorOptions { variant, ..Default::default() })
                    .expect("generator");
            generator.generate(&positions[..positions.len().min(1_000)], Kernel::PerPosition).expect("warm-up");
            let started = Instant::now();
            generator.generate(&positions, Kernel::PerPosition).expect("generation");
            let movegen_rate = batch as f64 / started.elapsed().as_secs_f64();
            let mut gpu =
                GpuPerft::with_options(&context, PerftOptions { variant, ..Default::default() }).expect("perft");
            gpu.perft(&[Position::start()], 3, &mut |_| {}).expect("warm-up");
            let (nodes, perft_seconds) =
                seconds(|| gpu.perft(&[Position::start()], perft_depth, &mut |_| {}).expect("perft")[0]);
            if nodes != expected_nodes {
                eprintln!(
                    "sliders: {} counted {nodes} for start perft({perft_depth}); expected {expected_nodes}",
                    variant.name()
                );
                std::process::exit(1);
            }
            let perft_rate = nodes as f64 / perft_seconds;
            println!(
                "{:<20} {:>16.3} {:>18.0} {:>16.1} {:>18.1}",
                variant.name(),
                evaluation_rate / 1e9,
                movegen_rate,
                perft_rate / 1e6,
                cpu_rate / 1e6
            );
            let row = |engine: &str, workload: &str, size: u64, rate: f64| Row {
                section: "sliders",
                engine: format!("{} {engine}", variant.name()),
                workload: workload.to_owned(),
                size,
                rate,
                amount: rate,
                seconds: 0.0,
                upload_ms: None,
                dispatch_ms: None,
                gpu_ms: None,
                readback_ms: None,
                checked: None,
            };
            rows.push(row("slider evaluations", "queen attacks", 1, evaluation_rate));
            rows.push(row("movegen", "per-position kernel", batch as u64, movegen_rate));
            rows.push(row("perft", "start position", u64::from(perft_depth), perft_rate));
            rows.push(row("cpu twin", "queen attacks", 1, cpu_rate));
        }
    }
    (Some(context.adapter_description()), rows)
}

const POSITIONS: [(&str, &str); 2] = [("start position", gpu_movegen::START_FEN), ("kiwipete", KIWIPETE)];

/// The variant the command line's defaults pick on this adapter.
fn adapter_variant(context: &GpuContext) -> ShaderVariant {
    let default = gpu_movegen::chess::gpu::adapter_default(context.adapter_info.as_ref());
    let native = default.native_u64 && context.device.features().contains(wgpu::Features::SHADER_INT64);
    ShaderVariant { slider: default.slider, native_u64: native }
}

struct PerftSettings {
    cpu_max_nodes: u64,
    budget_seconds: Option<f64>,
    rounds: usize,
    leaf_shapes: bool,
}

fn perft_section(
    start_depths: &[u32],
    kiwipete_depths: &[u32],
    settings: &PerftSettings,
) -> (Option<String>, Vec<Row>) {
    let PerftSettings { cpu_max_nodes, budget_seconds, rounds, leaf_shapes } = *settings;
    let context = match GpuContext::new() {
        Ok(context) => context,
        Err(error) => {
            eprintln!("perft: {error}");
            std::process::exit(2);
        }
    };
    let variant = adapter_variant(&context);
    let mut gpu = GpuPerft::with_options(&context, PerftOptions { variant, ..Default::default() }).expect("GPU perft");
    println!(
        "Perft, adapter: {}, shaders {}, arena {} positions, {rounds} alternating rounds, median time",
        context.adapter_description(),
        variant.name(),
        gpu.capacity()
    );
    // Pipelines compile on first use; keep that out of the timings.
    gpu.perft(&[Position::start()], 3, &mut |_| {}).expect("warm-up");
    let mut pairs = leaf_shapes.then(|| {
        let options = PerftOptions { variant, fused_leaves: false, ..Default::default() };
        let mut engine = GpuPerft::with_options(&context, options).expect("GPU perft");
        engine.perft(&[Position::start()], 3, &mut |_| {}).expect("warm-up");
        engine
    });
    let threads = rayon::current_num_threads();
    println!(
        "{:<14} {:>5} {:>16} {:>10} {:>11} {:>10} {:>10} {:>13} {:>13} {:>10}",
        "position",
        "depth",
        "nodes",
        "gpu M/s",
        format!("cpu {threads}t M/s"),
        "cpu 1t",
        "cozy 1t",
        "shakmaty 1t",
        "gpu/shakm.",
        "checked"
    );
    let started_all = Instant::now();
    let mut rows = Vec::new();
    for ((name, fen), depths) in POSITIONS.iter().zip([start_depths, kiwipete_depths]) {
        let position = Position::from_fen(fen).expect("valid FEN");
        let board = cozy_chess::Board::from_fen(fen, false).expect("valid FEN");
        let chess = shakmaty_position(fen, shakmaty::CastlingMode::Standard);
        let mut previous_gpu_seconds: Option<f64> = None;
        for &depth in depths {
            if let (Some(budget), Some(previous)) = (budget_seconds, previous_gpu_seconds) {
                let shapes = if leaf_shapes { 2.0 } else { 1.0 };
                if started_all.elapsed().as_secs_f64() + previous * 40.0 * rounds as f64 * shapes > budget {
                    println!("{name:<14} {depth:>5} skipped: the forecast passes the {budget} s budget");
                    break;
                }
            }
            let published = published_count(&position, depth);
            let with_cpu = published.is_none_or(|nodes| nodes <= cpu_max_nodes);
            // Every engine once per round, in turn, so drift hits them alike.
            let engines: Vec<(String, Box<dyn Fn() -> u64>)> = {
                let mut engines: Vec<(String, Box<dyn Fn() -> u64>)> = Vec::new();
                if with_cpu {
                    engines.push((
                        format!("cpu {threads} threads"),
                        Box::new(move || perft::perft_parallel(&position, depth)),
                    ));
                    engines.push(("cpu 1 thread".to_owned(), Box::new(move || perft::perft(&position, depth))));
                    let board = board.clone();
                    engines.push(("cozy-chess 1 thread".to_owned(), Box::new(move || cozy_perft(&board, depth))));
                    let chess = chess.clone();
                    engines.push(("shakmaty 1 thread".to_owned(), Box::new(move || shakmaty::perft(&chess, depth))));
                }
                engines
            };
            let mut gpu_times = Vec::new();
            let mut pair_times = Vec::new();
            let mut cpu_times: Vec<Vec<f64>> = vec![Vec::new(); engines.len()];
            let mut nodes = 0;
            for _ in 0..rounds {
                let (gpu_nodes, gpu_seconds) =
                    seconds(|| gpu.perft(&[position], depth, &mut |_| {}).expect("GPU perft")[0]);
                // Every count is checked before it is printed: against the
                // published value, else against the CPU engines.
                if let Some(expected) = published {
                    if gpu_nodes != expected {
                        eprintln!("perft: the GPU counted {gpu_nodes} for {name} depth {depth}; published: {expected}");
                        std::process::exit(1);
                    }
                }
                nodes = gpu_nodes;
                gpu_times.push(gpu_seconds);
                if let Some(pairs) = pairs.as_mut() {
                    let (pair_nodes, pair_seconds) =
                        seconds(|| pairs.perft(&[position], depth, &mut |_| {}).expect("GPU perft")[0]);
                    if pair_nodes != gpu_nodes {
                        eprintln!(
                            "perft: the two leaf shapes disagree on {name} depth {depth}: {gpu_nodes}, {pair_nodes}"
                        );
                        std::process::exit(1);
                    }
                    pair_times.push(pair_seconds);
                }
                for ((engine, run), times) in engines.iter().zip(&mut cpu_times) {
                    let (engine_nodes, time) = seconds(run);
                    if engine_nodes != gpu_nodes {
                        eprintln!(
                            "perft: {engine} counted {engine_nodes} for {name} depth {depth}; the GPU {gpu_nodes}"
                        );
                        std::process::exit(1);
                    }
                    times.push(time);
                }
            }
            let checked = match (published, engines.is_empty()) {
                (Some(_), _) => "published",
                (None, false) => "cpu",
                (None, true) => "UNCHECKED",
            };
            let gpu_seconds = median(gpu_times);
            previous_gpu_seconds = Some(gpu_seconds);
            let mut row = |engine: String, seconds: f64| {
                rows.push(Row {
                    section: "perft",
                    engine,
                    workload: name.to_string(),
                    size: u64::from(depth),
                    rate: nodes as f64 / seconds,
                    amount: nodes as f64,
                    seconds,
                    upload_ms: None,
                    dispatch_ms: None,
                    gpu_ms: None,
                    readback_ms: None,
                    checked: Some(checked),
                });
                nodes as f64 / seconds / 1e6
            };
            let mut cells = vec![format!("{:>10.1}", row("gpu".to_owned(), gpu_seconds))];
            if !pair_times.is_empty() {
                let rate = row("gpu, last ply per (position, move)".to_owned(), median(pair_times));
                println!("{name:<14} {depth:>5} gpu with the last level stored: {rate:.1} M nodes/s");
            }
            let mut shakmaty_seconds = None;
            for ((engine, _), times) in engines.iter().zip(cpu_times) {
                let time = median(times);
                if engine.starts_with("shakmaty") {
                    shakmaty_seconds = Some(time);
                }
                cells.push(format!("{:>10.1}", row(engine.clone(), time)));
            }
            while cells.len() < 5 {
                cells.push(format!("{:>10}", "-"));
            }
            let ratio = shakmaty_seconds.map_or("-".to_owned(), |time| format!("{:.2}", time / gpu_seconds));
            println!("{name:<14} {depth:>5} {nodes:>16} {} {ratio:>13} {checked:>10}", cells.join(" "));
        }
    }
    (Some(context.adapter_description()), rows)
}

fn main() {
    // Mesa's device-select layer prints a harmless XDG_RUNTIME_DIR error on
    // headless machines; this turns it off (see src/main.rs).
    if std::env::var_os("NODEVICE_SELECT").is_none() {
        // SAFETY: no other thread exists yet.
        unsafe { std::env::set_var("NODEVICE_SELECT", "1") };
    }
    let arguments = Arguments::parse();
    let (name, adapter, rows) = match &arguments.section {
        Section::Cpu { rounds } => ("cpu", None, cpu_section(*rounds.max(&1))),
        Section::Shogi { rounds, depth } => ("shogi", None, shogi_section(*rounds.max(&1), *depth)),
        Section::Deep { depth, hash, rounds } => ("deep", None, deep_section(*depth, *hash, (*rounds).max(1))),
        Section::Go { positions, playouts, gpu_playouts } => {
            let (adapter, rows) = go_section(*positions.max(&1), *playouts.max(&10), *gpu_playouts.max(&10));
            ("go", adapter, rows)
        }
        Section::Movegen { max_batch } => {
            let (adapter, rows) = movegen_section(*max_batch.max(&1));
            ("movegen", adapter, rows)
        }
        Section::Sliders { batch, perft_depth, invocations } => {
            let (adapter, rows) = sliders_section(*batch.max(&1), *perft_depth, *invocations.max(&64));
            ("sliders", adapter, rows)
        }
        Section::Perft { start_depths, kiwipete_depths, cpu_max_nodes, budget_seconds, rounds, leaf_shapes } => {
            let settings = PerftSettings {
                cpu_max_nodes: *cpu_max_nodes,
                budget_seconds: *budget_seconds,
                rounds: (*rounds).max(1),
                leaf_shapes: *leaf_shapes,
            };
            let (adapter, rows) = perft_section(start_depths, kiwipete_depths, &settings);
            ("perft", adapter, rows)
        }
    };
    if let Some(path) = &arguments.json {
        write_json(path, name, adapter, &rows);
    }
    if let Some(path) = &arguments.plot {
        match name {
            "movegen" => draw_plot(
                path,
                "Move generation throughput",
                "batch size (positions)",
                "positions per second",
                &rows,
                true,
            ),
            "perft" => draw_plot(path, "Perft throughput", "depth", "nodes per second", &rows, false),
            "sliders" => {
                let perft_rows: Vec<Row> = rows.iter().filter(|row| row.engine.ends_with(" perft")).cloned().collect();
                draw_plot(path, "GPU perft by slider algorithm", "depth", "nodes per second", &perft_rows, false)
            }
            _ => draw_plot(path, "CPU perft, one thread", "depth", "nodes per second", &rows, false),
        }
    }
}
