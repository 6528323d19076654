//! `movegen`: the GPU move-generation kernels against the CPU reference
//! over batch sizes, with upload, dispatch and readback apart.

use crate::OrGpuExit as _;
use crate::report::{Row, millis};
use gpu_movegen::chess::gpu::{Kernel, MoveGenerator, PositionMoves, Timings};
use gpu_movegen::gpu::GpuContext;
use gpu_movegen::{Position, random_play};
use rayon::prelude::*;
use std::time::Instant;

/// Distinct positions from random play, repeated to `count`.
pub(crate) fn batch_of(distinct: &[Position], count: usize) -> Vec<Position> {
    distinct.iter().cycle().take(count).copied().collect()
}

pub(crate) fn movegen_section(max_batch: usize) -> (Option<String>, Vec<Row>) {
    let mut rows = Vec::new();
    let context = match GpuContext::new() {
        Ok(context) => context,
        Err(error) => {
            eprintln!("movegen: {error}");
            std::process::exit(crate::GPU_FAILURE);
        }
    };
    let mut generator = MoveGenerator::new(&context).or_gpu_exit("move generator");
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
            generator.generate(&positions, kernel).or_gpu_exit("GPU generation");
            let started = Instant::now();
            let (moves, timings): (Vec<PositionMoves>, Timings) =
                generator.generate_timed(&positions, kernel, true).or_gpu_exit("GPU generation");
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
