//! The GTP commands front ends send around a game: handicaps, the clock,
//! `loadsgf`, scoring with dead stones taken off, `kgs-genmove_cleanup` and
//! GoGui's analyze list, each answered as GTP version 2 specifies.

use gpu_movegen::go::gtp::{COMMANDS, CpuPlayouts, GtpEngine, SearchSettings};

fn engine() -> GtpEngine<CpuPlayouts> {
    GtpEngine::new(CpuPlayouts, SearchSettings { playouts: 512, time: None, seed: 3, resign: true })
}

/// The reply's text after `= `, or the failure after `? ` as an `Err`.
fn ask(engine: &mut GtpEngine<CpuPlayouts>, command: &str) -> Result<String, String> {
    let text = engine.handle(command).expect("a reply").text;
    match text.split_at(1) {
        ("=", rest) => Ok(rest.trim().to_owned()),
        (_, rest) => Err(rest.trim().to_owned()),
    }
}

#[test]
fn fixed_handicaps_follow_the_specification() {
    let mut engine = engine();
    for (size, stones, expected) in [
        (9, 5, "C3 G7 C7 G3 E5"),
        (9, 8, "C3 G7 C7 G3 C5 G5 E3 E7"),
        (13, 2, "D4 K10"),
        (19, 6, "D4 Q16 D16 Q4 D10 Q10"),
        (19, 9, "D4 Q16 D16 Q4 D10 Q10 K4 K16 K10"),
        (8, 4, "C3 F6 C6 F3"),
    ] {
        ask(&mut engine, &format!("boardsize {size}")).unwrap();
        assert_eq!(ask(&mut engine, &format!("fixed_handicap {stones}")).unwrap(), expected, "{size} {stones}");
        assert_eq!(engine.position().to_move(), gpu_movegen::go::Color::White, "white moves after a handicap");
        assert_eq!(ask(&mut engine, "fixed_handicap 2"), Err("board not empty".to_owned()));
    }
    for (size, stones) in [(19, 10), (19, 1), (8, 5), (6, 2), (9, 0)] {
        ask(&mut engine, &format!("boardsize {size}")).unwrap();
        assert_eq!(
            ask(&mut engine, &format!("fixed_handicap {stones}")),
            Err("invalid number of stones".to_owned()),
            "{size} {stones}"
        );
    }
}

#[test]
fn free_handicaps_are_placed_and_checked() {
    let mut engine = engine();
    ask(&mut engine, "boardsize 9").unwrap();
    let placed = ask(&mut engine, "place_free_handicap 12").unwrap();
    let mut points: Vec<&str> = placed.split_whitespace().collect();
    assert_eq!(points.len(), 12, "{placed}");
    points.sort();
    points.dedup();
    assert_eq!(points.len(), 12, "no point twice: {placed}");
    assert_eq!(engine.position().stones(gpu_movegen::go::Color::Black).len(), 12);
    ask(&mut engine, "clear_board").unwrap();
    assert_eq!(ask(&mut engine, "set_free_handicap C3 C3"), Err("bad vertex list: C3 twice".to_owned()));
    assert!(ask(&mut engine, "set_free_handicap C3 pass").unwrap_err().starts_with("bad vertex list"));
    assert_eq!(ask(&mut engine, "set_free_handicap C3"), Err("invalid number of stones".to_owned()));
    assert!(engine.position().stones(gpu_movegen::go::Color::Black).is_empty(), "a refused list places nothing");
    ask(&mut engine, "set_free_handicap C3 G7 E5").unwrap();
    assert_eq!(engine.position().stones(gpu_movegen::go::Color::Black).len(), 3);
}

#[test]
fn loadsgf_sets_up_the_position_before_a_move_number() {
    let folder = std::env::temp_dir().join(format!("gpu-movegen-gtp-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join("game.sgf");
    std::fs::write(&path, "(;FF[4]GM[1]SZ[9]KM[5.5];B[ee];W[cc];B[gg];W[cg])").unwrap();
    let mut engine = engine();
    ask(&mut engine, &format!("loadsgf {}", path.display())).unwrap();
    assert_eq!(engine.position().size(), 9);
    assert_eq!(engine.position().stones(gpu_movegen::go::Color::White).len(), 2);
    ask(&mut engine, &format!("loadsgf {} 3", path.display())).unwrap();
    // Before move 3: black E5 and white C7 only.
    assert_eq!(engine.position().stones(gpu_movegen::go::Color::Black).len(), 1);
    assert_eq!(engine.position().stones(gpu_movegen::go::Color::White).len(), 1);
    assert_eq!(engine.position().to_move(), gpu_movegen::go::Color::Black);
    let missing = ask(&mut engine, &format!("loadsgf {}", folder.join("none.sgf").display())).unwrap_err();
    assert!(missing.starts_with("cannot load file"), "{missing}");
    std::fs::write(&path, "(;FF[4]SZ[9];B[zz])").unwrap();
    let bad = ask(&mut engine, &format!("loadsgf {}", path.display())).unwrap_err();
    assert!(bad.starts_with("cannot load file"), "{bad}");
    assert_eq!(engine.position().stones(gpu_movegen::go::Color::White).len(), 1, "a refused file changes nothing");
    std::fs::remove_dir_all(folder).unwrap();
}

/// Black's wall across the board, with a white stone left in atari inside
/// Black's side: a finished game where that stone is dead.
fn finished_game(engine: &mut GtpEngine<CpuPlayouts>) {
    ask(engine, "boardsize 9").unwrap();
    ask(engine, "komi 0.5").unwrap();
    for column in "ABCDEFGHJ".chars() {
        ask(engine, &format!("play b {column}5")).unwrap();
        ask(engine, &format!("play w {column}6")).unwrap();
    }
    // A white stone inside Black's half, in atari.
    ask(engine, "play w E3").unwrap();
    ask(engine, "play b D3").unwrap();
    ask(engine, "play w pass").unwrap();
    ask(engine, "play b F3").unwrap();
    ask(engine, "play w pass").unwrap();
    ask(engine, "play b E4").unwrap();
}

#[test]
fn scoring_takes_the_dead_stones_off() {
    let mut engine = engine();
    finished_game(&mut engine);
    assert_eq!(ask(&mut engine, "final_status_list dead").unwrap(), "E3");
    let alive = ask(&mut engine, "final_status_list alive").unwrap();
    assert!(!alive.contains("E3") && alive.contains("E4") && alive.contains("E6"), "{alive}");
    assert_eq!(ask(&mut engine, "final_status_list seki").unwrap(), "");
    assert!(ask(&mut engine, "final_status_list frozen").is_err());
    // Each side owns its four rows; E3 counts for Black, not White.
    assert_eq!(ask(&mut engine, "final_score").unwrap(), "B+8.5");
    // The board as it stands (Tromp–Taylor, every stone alive) gives White
    // the game: E3 keeps Black's half from counting for anyone.
    assert_eq!(engine.position().area_difference(), -25);
}

#[test]
fn genmove_passes_when_passing_wins_and_cleanup_plays_on() {
    let mut engine = engine();
    finished_game(&mut engine);
    ask(&mut engine, "play w pass").unwrap();
    // Black wins with E3 dead, but takes it before passing: on the board
    // as it stands, Tromp–Taylor would give White the game.
    assert_eq!(ask(&mut engine, "genmove b").unwrap(), "E2");
    ask(&mut engine, "play w pass").unwrap();
    // Now a pass ends the game, won.
    assert_eq!(ask(&mut engine, "genmove b").unwrap(), "pass");
    for _ in 0..3 {
        ask(&mut engine, "undo").unwrap();
    }
    // Cleanup never passes while a move remains: it takes E3 off by play.
    let cleanup = ask(&mut engine, "kgs-genmove_cleanup b").unwrap();
    assert_ne!(cleanup, "pass");
    assert_ne!(cleanup, "resign");
}

#[test]
fn the_clock_is_read_and_bad_times_are_refused() {
    let mut engine = engine();
    ask(&mut engine, "boardsize 9").unwrap();
    ask(&mut engine, "time_settings 60 10 5").unwrap();
    ask(&mut engine, "time_left b 30 0").unwrap();
    assert!(ask(&mut engine, "genmove b").is_ok());
    ask(&mut engine, "time_left w 8 3").unwrap();
    assert!(ask(&mut engine, "genmove w").is_ok());
    for bad in
        ["time_settings 60 x 5", "time_settings -1 0 0", "time_settings 60 10", "time_left b nan 0", "time_left x 5 0"]
    {
        assert!(ask(&mut engine, bad).is_err(), "{bad}");
    }
    // Byo-yomi time with no stones: no time limit.
    ask(&mut engine, "time_settings 0 10 0").unwrap();
    assert!(ask(&mut engine, "genmove b").is_ok());
    // Clock values past a day are refused, as --time is.
    for huge in ["time_settings 0 1000000000 1", "time_settings 1000000000 0 0", "time_left b 1e10 0"] {
        assert_eq!(ask(&mut engine, huge), Err("syntax error: time from 0 to 86400 seconds".to_owned()), "{huge}");
    }
}

#[test]
fn no_clock_holds_a_move_past_the_engines_own_budget() {
    use std::time::{Duration, Instant};
    // Playouts only: one pass of them, however much the clock allows.
    let mut engine = engine();
    ask(&mut engine, "boardsize 9").unwrap();
    for clock in ["time_settings 0 86400 1", "time_settings 86400 0 0", "time_settings 86400 86400 25"] {
        ask(&mut engine, clock).unwrap();
        let started = Instant::now();
        assert!(ask(&mut engine, "genmove b").is_ok());
        assert!(started.elapsed() < Duration::from_secs(10), "{clock}: {:?}", started.elapsed());
        ask(&mut engine, "undo").unwrap();
    }
    // With --time, the clock may use up to it and no more.
    let settings = SearchSettings { playouts: 64, time: Some(Duration::from_millis(300)), seed: 3, resign: true };
    let mut engine = GtpEngine::new(CpuPlayouts, settings);
    ask(&mut engine, "boardsize 9").unwrap();
    ask(&mut engine, "time_settings 0 86400 1").unwrap();
    let started = Instant::now();
    assert!(ask(&mut engine, "genmove b").is_ok());
    let took = started.elapsed();
    assert!(took >= Duration::from_millis(300) && took < Duration::from_secs(10), "{took:?}");
    // A short clock shortens it.
    ask(&mut engine, "time_settings 1 0 0").unwrap();
    ask(&mut engine, "time_left w 0.1 0").unwrap();
    let started = Instant::now();
    assert!(ask(&mut engine, "genmove w").is_ok());
    assert!(started.elapsed() < Duration::from_millis(300), "{:?}", started.elapsed());
}

#[test]
fn every_analyze_command_is_known() {
    let mut engine = engine();
    let listed = ask(&mut engine, "gogui-analyze_commands").unwrap();
    assert!(listed.lines().count() >= 3, "{listed}");
    for line in listed.lines() {
        let command = line.split('/').nth(2).expect("type/label/command").split_whitespace().next().unwrap();
        assert!(COMMANDS.contains(&command), "{line}");
        assert_eq!(ask(&mut engine, &format!("known_command {command}")).unwrap(), "true");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(32))]

    /// Any clock GTP can set, in range or not: every command gets a reply,
    /// and a move never takes much past the engine's own budget (here one
    /// pass of 64 playouts), however long the clock.
    #[test]
    fn no_clock_setting_stalls_genmove(
        main in proptest::prop_oneof![0.0f64..100.0, 0.0f64..1e6, proptest::num::f64::ANY],
        byo_yomi in proptest::prop_oneof![0.0f64..100.0, 0.0f64..1e6],
        stones in proptest::prop_oneof![0u32..30, proptest::num::u32::ANY],
        left in 0.0f64..1e5,
        left_stones in 0u32..30,
    ) {
        use std::time::{Duration, Instant};
        let settings = SearchSettings { playouts: 64, time: None, seed: 3, resign: true };
        let mut engine = GtpEngine::new(CpuPlayouts, settings);
        for command in ["boardsize 9".to_owned(), format!("time_settings {main} {byo_yomi} {stones}"), format!("time_left b {left} {left_stones}")] {
            let reply = engine.handle(&command).expect("a reply").text;
            proptest::prop_assert!(reply.starts_with('=') || reply.starts_with('?'), "{}: {}", command, reply);
        }
        let started = Instant::now();
        let reply = engine.handle("genmove b").expect("a reply").text;
        proptest::prop_assert!(reply.starts_with("= "), "{}", reply);
        proptest::prop_assert!(started.elapsed() < Duration::from_secs(5), "genmove took {:?}", started.elapsed());
    }
}
