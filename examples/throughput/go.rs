//! `go`: Go legal-point bitmaps and playouts per second on 9×9, 13×13 and
//! 19×19, the GPU against the CPU on one thread and on all, each GPU result
//! checked against the CPU before it counts.

use crate::OrGpuExit as _;
use crate::report::{Row, seconds};
use gpu_movegen::gpu::GpuContext;
use rayon::prelude::*;

pub(crate) fn go_section(
    position_count: usize,
    playout_count: u32,
    gpu_playout_count: u32,
) -> (Option<String>, Vec<Row>) {
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
    for size in [9u32, 13, 19] {
        // Legal-point and playout bitmaps of random game positions.
        let positions = random_positions(size, position_count, u64::from(size)).expect("a supported size");
        let (expected, one) = seconds(|| positions.iter().map(GoPositionMoves::from_cpu).collect::<Vec<_>>());
        let (_, all) = seconds(|| positions.par_iter().map(GoPositionMoves::from_cpu).collect::<Vec<_>>());
        let gpu = context.as_ref().map(|context| {
            let mut generator = GoMoveGenerator::new(context);
            generator.generate(&positions[..positions.len().min(64)]).or_gpu_exit("GPU bitmaps");
            let (moves, time) = seconds(|| generator.generate(&positions).or_gpu_exit("GPU bitmaps"));
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
        let scale = match size {
            9 => 1,
            13 => 3,
            _ => 10,
        };
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
        let one = match size {
            9 => one_thread!(2),
            13 => one_thread!(3),
            _ => one_thread!(6),
        };
        let (_, all) = seconds(|| playouts(&empty, count, 1, 0));
        let gpu_count = gpu_playout_count / scale;
        let gpu = context.as_ref().map(|context| {
            let mut runner = GpuPlayouts::new(context);
            runner.playouts(&[empty], 64, 2, 0).or_gpu_exit("GPU playouts");
            let (results, time) = seconds(|| runner.playouts(&[empty], gpu_count, 2, 0).or_gpu_exit("GPU playouts"));
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
