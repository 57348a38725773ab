//! The terminal side of the loop: raw mode, alternate screen, mouse and paste on the
//! way in and always off on the way out (on panic too); reading input on its own thread
//! (paused while `$EDITOR` owns the terminal); drawing only when something changed.
use std::io::{self, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use color_eyre::eyre::{Result, WrapErr};
use crossterm::event::{
    self, DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
    Event,
};
use crossterm::execute;
use crossterm::terminal::{
    Clear, ClearType, EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

use super::app::{App, External, Options};
use super::message::Message;

type Term = Terminal<CrosstermBackend<io::Stdout>>;

/// How long the loop takes queued messages before it draws.
const DRAIN_BUDGET: Duration = Duration::from_millis(12);

fn enter() -> io::Result<()> {
    enable_raw_mode()?;
    // A cleared screen matches ratatui's blank first buffer; `Terminal::clear` would ask
    // the terminal for the cursor position, which not every terminal answers.
    execute!(
        io::stdout(),
        EnterAlternateScreen,
        Clear(ClearType::All),
        EnableMouseCapture,
        EnableBracketedPaste
    )
}

/// Puts the terminal back as it was. Safe to call more than once.
pub fn restore() {
    let _ = disable_raw_mode();
    let _ = execute!(
        io::stdout(),
        DisableBracketedPaste,
        DisableMouseCapture,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
    let _ = io::stdout().flush();
}

/// Restores the terminal before the panic report (color-eyre's hook, installed first in
/// `main`) prints, so the message is readable and the shell usable.
fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
}

/// Reads terminal events on a thread of its own; `paused` stops it reading (for `$EDITOR`).
fn spawn_input(outbox: mpsc::Sender<Message>, paused: Arc<AtomicBool>) {
    thread::spawn(move || {
        loop {
            if paused.load(Ordering::Acquire) {
                thread::sleep(Duration::from_millis(30));
                continue;
            }
            // Polling with a timeout (not a busy loop) lets a pause take effect.
            match event::poll(Duration::from_millis(100)) {
                Ok(true) => {}
                Ok(false) => continue,
                Err(_) => return,
            }
            if paused.load(Ordering::Acquire) {
                continue;
            }
            let message = match event::read() {
                Ok(Event::Key(key)) => Message::Key(key),
                Ok(Event::Mouse(mouse)) => Message::Mouse(mouse),
                Ok(Event::Paste(text)) => Message::Paste(text),
                Ok(Event::Resize(..)) => Message::Resize,
                Ok(_) => continue,
                Err(_) => return,
            };
            if outbox.send(message).is_err() {
                return;
            }
        }
    });
}

/// How the loop runs, beyond what the app shows.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunMode {
    /// A background "agent" writes into the root (the demo).
    pub simulate_agent: bool,
    /// Quit right after the first frame that shows the scanned projects (benchmarks time
    /// start-up to first useful frame with it).
    pub exit_after_first_frame: bool,
}

/// Runs the TUI until the user quits.
pub fn run(options: Options, mode: RunMode) -> Result<()> {
    install_panic_hook();
    enter().wrap_err("cannot set up the terminal")?;
    let result = run_loop(options, mode);
    restore();
    result
}

fn run_loop(options: Options, mode: RunMode) -> Result<()> {
    let mut terminal =
        Term::new(CrosstermBackend::new(io::stdout())).wrap_err("cannot open the terminal")?;
    let (outbox, inbox) = mpsc::channel();
    let paused = Arc::new(AtomicBool::new(false));
    spawn_input(outbox.clone(), paused.clone());
    let agent_root = mode.simulate_agent.then(|| options.root.clone());
    let clock = options.clock;
    let mut app = App::new(options, outbox);
    app.start();
    let _agent = agent_root.map(|root| mbank_core::demo::simulate_agent(root, clock));
    let mut redraw = true;
    loop {
        if redraw {
            terminal.draw(|frame| app.view(frame))?;
            app.after_draw(Instant::now());
            if mode.exit_after_first_frame && app.shows_projects() {
                break;
            }
            redraw = false;
        }
        // Sleep until a message, or until the next toast expires: no busy redraw loop.
        let message = match app.next_deadline() {
            Some(deadline) => {
                let wait = deadline.saturating_duration_since(Instant::now());
                match inbox.recv_timeout(wait) {
                    Ok(message) => Some(message),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => break,
                }
            }
            None => match inbox.recv() {
                Ok(message) => Some(message),
                Err(_) => break,
            },
        };
        if let Some(message) = message {
            app.update(message);
            redraw = true;
        }
        // Take what is already waiting before drawing once, but not for longer than a
        // frame: a flood of worker results (2,000 projects' figures) must not hold the
        // screen back.
        let draining = Instant::now();
        while draining.elapsed() < DRAIN_BUDGET
            && let Ok(message) = inbox.try_recv()
        {
            app.update(message);
            redraw = true;
        }
        if app.expire_toasts(Instant::now()) {
            redraw = true;
        }
        if let Some(text) = app.document.editor.take_clipboard() {
            copy_to_system_clipboard(&text);
        }
        if app.take_due_work(Instant::now()) {
            redraw = true;
        }
        if let Some(External::Edit(path)) = app.external.take() {
            let result = edit_externally(&mut terminal, &paused, &path);
            app.after_external_edit(result);
            redraw = true;
        }
        if app.quit {
            break;
        }
    }
    Ok(())
}

/// Puts an editor copy on the system clipboard with an OSC 52 escape: no clipboard
/// library, no helper program; a terminal without OSC 52 ignores it (tmux passes it on
/// with `set -g set-clipboard on`). Only base64 is written, never the text itself.
fn copy_to_system_clipboard(text: &str) {
    if let Some(sequence) = super::panes::editor::clipboard::osc52(text) {
        let mut out = io::stdout();
        let _ = out.write_all(sequence.as_bytes());
        let _ = out.flush();
    }
}

/// Suspends the UI, runs `$VISUAL`/`$EDITOR` (else `vi`) on `path`, and comes back.
fn edit_externally(
    terminal: &mut Term,
    paused: &AtomicBool,
    path: &std::path::Path,
) -> Result<(), String> {
    paused.store(true, Ordering::Release);
    // Let the input thread leave its poll before the editor reads the terminal.
    thread::sleep(Duration::from_millis(120));
    restore();
    let editor = std::env::var("VISUAL")
        .or_else(|_| std::env::var("EDITOR"))
        .unwrap_or_else(|_| "vi".to_string());
    let mut words = editor.split_whitespace();
    let program = words.next().unwrap_or("vi").to_string();
    let status = std::process::Command::new(&program)
        .args(words)
        .arg(path)
        .status();
    let back = enter();
    paused.store(false, Ordering::Release);
    back.map_err(|e| format!("cannot restore the terminal: {e}"))?;
    // A fresh terminal has blank buffers, like the screen `enter` just cleared, so the
    // next draw repaints everything.
    *terminal = Term::new(CrosstermBackend::new(io::stdout()))
        .map_err(|e| format!("cannot restore the terminal: {e}"))?;

    match status {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => Err(format!("{program} exited with {status}")),
        Err(e) => Err(format!("cannot run {program:?} (set $EDITOR): {e}")),
    }
}
