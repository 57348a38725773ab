//! One full frame of the TUI (`view` on a 200x60 TestBackend plus `after_draw`) on big
//! files: a generated 1.4 MB markdown progress.md (headings, lists, fenced code, tables)
//! and a bank file holding one 500 KB line; and the file tree of a 5,000-file bank (the
//! most a bank lists) built from its report and drawn, folded as it opens and with every
//! folder open. Target: no frame over 16 ms.
//!
//! The App runs with its real workers over a temp root; files are opened with keys as the
//! tests do, and every case waits until highlighting and the preview have answered, so a
//! frame is measured as a user sees it. Criterion gives the distribution; a plain loop
//! afterwards records the median and the slowest single frame of each case.
//!
//!     cargo bench --bench tui_frames
mod common;

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion};
use crossterm::event::{KeyCode, KeyModifiers};
use mbank::tui::app::{Focus, Main, ViewMode};
use mbank::tui::driver::{Driver, DriverOptions};
use mbank::tui::panes::tree::Tree;
use mbank::tui::theme::Theme;

const TARGET: Duration = Duration::from_millis(16);
const LOOP_FRAMES: usize = 300;

fn write_root(root: &Path) {
    let bank = root.join("big-project/memory-bank");
    std::fs::create_dir_all(&bank).unwrap();
    std::fs::write(bank.join("projectbrief.md"), "# Brief\n\nA big bank.\n").unwrap();
    std::fs::write(bank.join("progress.md"), common::big_markdown()).unwrap();
    // One 500 KB line, as a pasted log or minified blob would be.
    let line = "word ".repeat(100_000);
    std::fs::write(bank.join("techContext.md"), format!("{line}\n")).unwrap();
}

/// A Cline bank of 5,000 files: the core files, 4,900 notes in ten areas of ten topics,
/// and an archive.
fn write_tree_root(root: &Path) {
    let bank = root.join("big-tree/memory-bank");
    std::fs::create_dir_all(&bank).unwrap();
    for name in [
        "projectbrief.md",
        "productContext.md",
        "systemPatterns.md",
        "techContext.md",
        "activeContext.md",
        "progress.md",
    ] {
        std::fs::write(
            bank.join(name),
            format!(
                "# {name}

A big tree.
"
            ),
        )
        .unwrap();
    }
    for area in 0..10 {
        for topic in 0..10 {
            let folder = bank.join(format!("notes/area-{area:02}/topic-{topic:02}"));
            std::fs::create_dir_all(&folder).unwrap();
            for note in 0..49 {
                std::fs::write(
                    folder.join(format!("note-{note:02}.md")),
                    format!(
                        "# Note {area}.{topic}.{note}

Something worth keeping.
"
                    ),
                )
                .unwrap();
            }
        }
    }
    let archive = bank.join("archive/2024");
    std::fs::create_dir_all(&archive).unwrap();
    for old in 0..94 {
        std::fs::write(
            archive.join(format!("old-{old:02}.md")),
            "# Old
",
        )
        .unwrap();
    }
}

/// Builds the tree of a 5,000-file bank from its report and draws the frame: as it opens
/// (sub-folders folded) and with every folder open (a filter matching every file).
fn tree_cases(criterion: &mut Criterion, report: &mut Vec<(&'static str, Duration, Duration)>) {
    let dir = tempfile::tempdir().unwrap();
    write_tree_root(dir.path());
    let mut b = Bench::new(dir.path());
    b.open_project();
    b.driver
        .pump_until("every figure", |app| {
            app.tree
                .report
                .as_ref()
                .is_some_and(|r| r.banks.iter().all(|bank| bank.complete))
        })
        .unwrap();
    b.settle();
    let files: usize = b.app.tree.report.as_ref().unwrap().banks[0].files.len();
    println!("big-tree: {files} files");
    let project = b.app.tree.report.clone().unwrap();
    let contexts = b.app.tree.contexts.clone();
    for (name, filter) in [
        ("tree_5000_files_folded", ""),
        ("tree_5000_files_all_open", ".md"),
    ] {
        let build_and_draw = |b: &mut Bench, input: (_, _)| {
            let (project, contexts) = input;
            b.app.tree = Tree::default();
            b.app.tree.filter = filter.to_string();
            b.app.tree.set_report(project, contexts);
            b.frame();
        };
        criterion.bench_function(&format!("frame/{name}"), |bencher| {
            bencher.iter_batched(
                || (project.clone(), contexts.clone()),
                |input| build_and_draw(&mut b, input),
                BatchSize::LargeInput,
            )
        });
        let mut times: Vec<Duration> = (0..LOOP_FRAMES / 3)
            .map(|_| {
                let input = (project.clone(), contexts.clone());
                let start = Instant::now();
                build_and_draw(&mut b, input);
                start.elapsed()
            })
            .collect();
        times.sort();
        report.push((name, times[times.len() / 2], times[times.len() - 1]));
        println!("{name}: {} rows", b.app.tree.rows.len());
    }
}

/// The shared test driver, with waits that stop the bench instead of returning errors.
struct Bench {
    driver: Driver,
}

impl std::ops::Deref for Bench {
    type Target = Driver;
    fn deref(&self) -> &Driver {
        &self.driver
    }
}

impl std::ops::DerefMut for Bench {
    fn deref_mut(&mut self) -> &mut Driver {
        &mut self.driver
    }
}

impl Bench {
    fn new(root: &Path) -> Bench {
        let mut options = DriverOptions::new(root, &root.join("backups"));
        options.width = 200;
        options.height = 60;
        options.theme = Theme::load("dark", None).unwrap();
        let mut driver = Driver::start(options);
        driver.wait = Duration::from_secs(60);
        Bench { driver }
    }

    fn settle(&mut self) {
        self.driver.settle(Duration::from_millis(300)).unwrap();
    }

    /// One full frame, as the event loop draws it.
    fn frame(&mut self) {
        self.driver.draw().unwrap();
    }

    fn key(&mut self, code: KeyCode, modifiers: KeyModifiers) {
        self.driver.press(code, modifiers);
    }

    fn open_project(&mut self) {
        self.driver
            .pump_until("the scan", |app| app.projects.picker.visible_len() > 0)
            .unwrap();
        self.key(KeyCode::Enter, KeyModifiers::NONE);
        self.driver
            .pump_until("the report", |app| app.tree.report.is_some())
            .unwrap();
    }

    fn open_file(&mut self, file_name: &str) {
        self.app.focus = Focus::Tree;
        self.driver.open_file(file_name).unwrap();
        self.app.focus = Focus::Editor;
        self.settle();
    }

    /// Puts the cursor at `to` (row, column; clamped to the text), and lets the view follow.
    fn move_cursor(&mut self, to: (usize, usize)) {
        if let Some(doc) = &mut self.app.document.editor.doc {
            doc.buffer.set_cursor(to);
        }
        self.settle();
    }
}

/// Median and slowest of `frames` single frames, each timed alone.
fn timed_loop(frames: usize, mut one: impl FnMut()) -> (Duration, Duration) {
    let mut times: Vec<Duration> = (0..frames)
        .map(|_| {
            let start = Instant::now();
            one();
            start.elapsed()
        })
        .collect();
    times.sort();
    (times[times.len() / 2], times[times.len() - 1])
}

fn main() {
    let mut criterion = Criterion::default()
        .sample_size(60)
        .measurement_time(Duration::from_secs(4))
        .configure_from_args();
    let mut report: Vec<(&str, Duration, Duration)> = Vec::new();
    tree_cases(&mut criterion, &mut report);

    let dir = tempfile::tempdir().unwrap();
    write_root(dir.path());
    let mut b = Bench::new(dir.path());
    b.open_project();
    b.open_file("progress.md");
    let lines = b.app.document.doc().unwrap().buffer.lines().len();
    println!("progress.md: {lines} lines");

    // 1. Editor at the top of the 1.4 MB file.
    b.move_cursor((0, 0));
    criterion.bench_function("frame/editor_top_1.4MB", |bencher| {
        bencher.iter(|| b.frame())
    });
    let (median, max) = timed_loop(LOOP_FRAMES, || b.frame());
    report.push(("editor_top_1.4MB", median, max));

    // 2. Editor scrolled to the end (the last line), highlighting caught up.
    b.move_cursor((usize::MAX, 0));
    assert!(b.app.document.doc().unwrap().top > lines - 100);
    criterion.bench_function("frame/editor_end_1.4MB", |bencher| {
        bencher.iter(|| b.frame())
    });
    let (median, max) = timed_loop(LOOP_FRAMES, || b.frame());
    report.push(("editor_end_1.4MB", median, max));

    // 3. Editor and preview side by side, preview rendered.
    b.app.main = Main::Document(ViewMode::Split);
    b.move_cursor((0, 0));
    assert!(
        b.app.document.preview.rendered.is_some(),
        "the preview never arrived"
    );
    criterion.bench_function("frame/split_1.4MB", |bencher| bencher.iter(|| b.frame()));
    let (median, max) = timed_loop(LOOP_FRAMES, || b.frame());
    report.push(("split_1.4MB", median, max));
    b.app.main = Main::Document(ViewMode::Editor);
    b.settle();

    // 4. Typing: one character through update, then the frame.
    let mut typed = 0u32;
    let mut type_and_draw = |b: &mut Bench| {
        let c = char::from(b'a' + (typed % 26) as u8);
        typed += 1;
        b.key(KeyCode::Char(c), KeyModifiers::NONE);
        b.frame();
        // Worker answers (counts, highlights) arrive between keys, as in the loop.
        b.drain();
    };
    criterion.bench_function("frame/type_then_draw_1.4MB", |bencher| {
        bencher.iter(|| type_and_draw(black_box(&mut b)))
    });
    let (median, max) = timed_loop(LOOP_FRAMES, || type_and_draw(&mut b));
    report.push(("type_then_draw_1.4MB", median, max));
    // Where typing's time goes: the key alone (the buffer's edit and the soft-wrap
    // bookkeeping), then the frame alone.
    let (median, max) = timed_loop(LOOP_FRAMES, || {
        b.key(KeyCode::Char('x'), KeyModifiers::NONE)
    });
    report.push(("  of which the key (update)", median, max));
    b.drain();
    let mut frames: Vec<Duration> = (0..LOOP_FRAMES)
        .map(|_| {
            b.key(KeyCode::Char('y'), KeyModifiers::NONE);
            b.drain();
            let start = Instant::now();
            b.frame();
            start.elapsed()
        })
        .collect();
    frames.sort();
    report.push((
        "  of which the frame",
        frames[frames.len() / 2],
        frames[frames.len() - 1],
    ));
    // Throw the edits away so the next file opens without a question.
    b.app.document.discard();
    b.settle();

    // Typing at the end of the 500 KB line (cases 5 and 6).
    let mut typed = 0u32;
    let mut type_long = move |b: &mut Bench| {
        let c = char::from(b'a' + (typed % 26) as u8);
        typed += 1;
        b.key(KeyCode::Char(c), KeyModifiers::NONE);
        b.frame();
        b.drain();
    };
    // 5. The 500 KB line, cursor at its end: soft-wrapped (markdown's default), then cut
    // at the window and scrolled sideways (`alt-z`).
    b.open_file("techContext.md");
    assert!(b.app.document.editor.wraps());
    b.move_cursor((0, usize::MAX));
    criterion.bench_function("frame/500KB_line_wrapped_cursor_at_end", |bencher| {
        bencher.iter(|| b.frame())
    });
    let (median, max) = timed_loop(LOOP_FRAMES, || b.frame());
    report.push(("500KB_line_wrapped_at_end", median, max));
    let (median, max) = timed_loop(LOOP_FRAMES, || type_long(&mut b));
    report.push(("500KB_line_wrapped_type", median, max));

    b.key(KeyCode::Char('z'), KeyModifiers::ALT);
    assert!(!b.app.document.editor.wraps());
    b.move_cursor((0, usize::MAX));
    assert!(b.app.document.doc().unwrap().left > 400_000);
    criterion.bench_function("frame/500KB_line_cursor_at_end", |bencher| {
        bencher.iter(|| b.frame())
    });
    let (median, max) = timed_loop(LOOP_FRAMES, || b.frame());
    report.push(("500KB_line_cursor_at_end", median, max));
    let (median, max) = timed_loop(LOOP_FRAMES, || type_long(&mut b));
    report.push(("500KB_line_type_then_draw", median, max));

    criterion.final_summary();
    println!(
        "\nown loop, {LOOP_FRAMES} frames per case (target: none over {} ms)",
        TARGET.as_millis()
    );
    println!("{:<28} {:>10} {:>10}  verdict", "case", "median", "max");
    for (name, median, max) in report {
        let verdict = if max <= TARGET { "ok" } else { "OVER" };
        println!(
            "{name:<28} {:>8.2}ms {:>8.2}ms  {verdict}",
            median.as_secs_f64() * 1e3,
            max.as_secs_f64() * 1e3
        );
    }
}
