//! The figures every section measures: one `Row` each, printed as a table,
//! written as JSON (`--json`) and drawn as an SVG plot (`--plot`), and the
//! timing helpers the sections share.

use serde::Serialize;
use std::path::Path;
use std::time::Instant;

/// One measured figure of any section, as the JSON and the plot see it.
#[derive(Serialize, Clone)]
pub(crate) struct Row {
    pub(crate) section: &'static str,
    /// What ran: "gpu per-position", "cpu 2 threads", "cozy-chess 1 thread", ...
    pub(crate) engine: String,
    /// "batch" for move generation, the position's name for perft.
    pub(crate) workload: String,
    /// Batch size (move generation) or depth (perft).
    pub(crate) size: u64,
    /// Positions (move generation) or nodes (perft) per second.
    pub(crate) rate: f64,
    /// Moves per second (move generation) or nodes (perft).
    pub(crate) amount: f64,
    pub(crate) seconds: f64,
    pub(crate) upload_ms: Option<f64>,
    pub(crate) dispatch_ms: Option<f64>,
    pub(crate) gpu_ms: Option<f64>,
    pub(crate) readback_ms: Option<f64>,
    /// For counts: how the count was checked ("published", "cpu") or "UNCHECKED".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) checked: Option<&'static str>,
}

impl Row {
    /// A row of `amount` nodes (or positions, or playouts) counted in
    /// `seconds`, with no GPU timings.
    pub(crate) fn counted(
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
pub(crate) struct Report<'a> {
    section: &'a str,
    unix_time: u64,
    adapter: Option<String>,
    cpu_threads: usize,
    rows: &'a [Row],
}

pub(crate) fn write_json(path: &Path, section: &str, adapter: Option<String>, rows: &[Row]) {
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
pub(crate) fn draw_plot(path: &Path, title: &str, x_label: &str, y_label: &str, rows: &[Row], log_x: bool) {
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

pub(crate) fn seconds<T>(run: impl FnOnce() -> T) -> (T, f64) {
    let started = Instant::now();
    let value = run();
    (value, started.elapsed().as_secs_f64())
}

pub(crate) fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

pub(crate) fn millis(duration: std::time::Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}
