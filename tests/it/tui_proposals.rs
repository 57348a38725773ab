//! Agent writes live in the TUI: a proposal staged or a write refused by another process
//! while the app runs shows on its project's picker row and in the status line without a
//! key; in the review, refused writes and pending proposals are rows a person selects and
//! expands, and a proposal is decided hunk by hunk (or whole, or edited first) through
//! the core, a conflict shown and never applied. The app watches for real here.
use crate::common;

use std::path::{Path, PathBuf};

use common::tui::Tui;
use crossterm::event::{KeyCode, KeyModifiers};
use mbank::core::agent::bank::{MarkdownBank, WriteMode};
use mbank::core::agent::proposals::{ProposalStore, State};
use mbank::core::clock::Clock;
use mbank::core::guard::refusals::{self, RefusalRecord};
use mbank::core::review::ReviewOptions;
use mbank::core::write::WriteContext;
use mbank::tui::overlays::Overlay;

/// The client the agent's MCP session named.
const CLIENT: &str = "test-agent 1.0";
const BRIEF: &str = "# Project Brief\n\nA tea shop.\n";
const PROGRESS: &str = "# Progress\n\n## Done\n\n- Cart\n";
/// Three paragraphs far enough apart that each change is its own hunk.
const ACTIVE: &str = "# Active Context\n\n## Focus\n- login form\n\n## Notes\n- one\n- two\n- three\n- four\n- five\n- six\n\n## Risks\n- none known\n- still none\n- really none\n- none at all\n\n## Next\n- ship it\n";
const REWRITE: &str = "# Active Context\n\n## Focus\n- password reset\n\n## Notes\n- one\n- two\n- three\n- four\n- five\n- six\n\n## Risks\n- none known\n- e-mail delivery\n- really none\n- none at all\n\n## Next\n- write the e-mail template\n";
/// ACTIVE with the first hunk of REWRITE only.
const FIRST_HUNK_ONLY: &str = "# Active Context\n\n## Focus\n- password reset\n\n## Notes\n- one\n- two\n- three\n- four\n- five\n- six\n\n## Risks\n- none known\n- still none\n- really none\n- none at all\n\n## Next\n- ship it\n";

/// A root with one project, `shop` (a Cline bank outside git), and a data folder for the
/// proposal store, the refusal logs and the review's snapshot.
struct Setup {
    temp: tempfile::TempDir,
    root: PathBuf,
    data: PathBuf,
}

impl Setup {
    fn new() -> Setup {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path().join("root");
        let bank = root.join("shop/memory-bank");
        std::fs::create_dir_all(&bank).unwrap();
        std::fs::write(bank.join("projectbrief.md"), BRIEF).unwrap();
        std::fs::write(bank.join("progress.md"), PROGRESS).unwrap();
        std::fs::write(bank.join("activeContext.md"), ACTIVE).unwrap();
        let data = temp.path().join("data");
        Setup { temp, root, data }
    }

    fn project(&self) -> PathBuf {
        self.root.join("shop")
    }

    fn active(&self) -> PathBuf {
        self.project().join("memory-bank/activeContext.md")
    }

    fn store(&self) -> ProposalStore {
        ProposalStore::new(&self.data)
    }

    /// The app, watching, over the root at `width` x `height`, every figure and watch in.
    fn start(&self, width: u16, height: u16) -> Tui {
        let mut h = Tui::options(&self.root)
            .home(self.temp.path())
            .watch()
            .size(width, height)
            .review(ReviewOptions {
                data_dir: Some(self.data.clone()),
                ..ReviewOptions::default()
            })
            .start();
        h.pump_until("the projects, the agent writes and the watches", |app| {
            app.shows_projects()
                && app.projects.picker.counted == app.projects.picker.rows.len()
                && app.review.agent.loaded
                && app.watches_settled()
        });
        h
    }

    /// An agent's `memory_bank_update` of activeContext.md, staged as a server with
    /// `--stage` stages it; returns the proposal's id.
    fn stage(&self, content: &str) -> u64 {
        let bank = MarkdownBank::open(&self.project())
            .unwrap()
            .with_staging(Some(self.store()));
        let ctx = WriteContext::new("mcp:memory_bank_update", Clock::system())
            .with_client(Some(CLIENT.into()));
        bank.write(&ctx, "activeContext.md", content, WriteMode::Update, None)
            .unwrap();
        self.store()
            .list()
            .unwrap()
            .iter()
            .filter(|p| p.state == State::Pending)
            .map(|p| p.id)
            .max()
            .unwrap()
    }

    fn refuse(&self, file: &str, rule: &str, message: &str) -> RefusalRecord {
        let via = "mcp:memory_bank_update";
        let record = RefusalRecord {
            client: Some(CLIENT.into()),
            ..RefusalRecord::at(&Clock::system(), &self.project(), file, rule, message, via)
        };
        refusals::append_in(&self.data, &record).unwrap();
        record
    }
}

/// Opens `shop`, marks its memory reviewed (so only what comes after shows) and leaves
/// the review open.
fn open_review_marked(h: &mut Tui) {
    h.open_project("shop");
    h.keys("r");
    h.idle();
    h.keys("c y");
    h.pump_until("the review marked reviewed", |app| {
        app.review
            .pane
            .review
            .as_ref()
            .is_some_and(|r| r.files.is_empty())
            && !app.review.pane.busy
    });
}

/// Moves the review's list cursor onto the proposal `id`.
fn select_proposal(h: &mut Tui, id: u64) {
    for key in [']', '['] {
        for _ in 0..20 {
            if h.app
                .review
                .pane
                .proposal()
                .is_some_and(|p| p.proposal.id == id)
            {
                return;
            }
            h.key(KeyCode::Char(key));
        }
    }
    panic!("proposal {id} is not in the review:\n{}", h.screen());
}

fn badge(h: &Tui, project: &Path) -> Option<(usize, usize)> {
    h.app.projects.picker.agent_badges.get(project).copied()
}

#[test]
fn a_proposal_and_a_refusal_from_another_process_show_a_badge_and_a_notice_without_a_key() {
    let setup = Setup::new();
    let mut h = setup.start(120, 30);
    assert_eq!(badge(&h, &setup.project()), None);

    // No key from here on: the watcher and the agent worker bring it in.
    let id = setup.stage(REWRITE);
    h.pump_until("the proposal's badge", |app| {
        app.projects.picker.agent_badges.get(&setup.project()) == Some(&(1, 0))
    });
    // On the picker `r` would be typed into the filter: the notice says how to get there.
    let notice = format!(
        "agent proposed a change to activeContext.md in shop (proposal {id}) — open shop, then r to review"
    );
    assert!(h.toasts().contains(&notice), "{}", h.toasts());
    assert!(
        h.app.messages.iter().any(|m| m.text == notice),
        "the notice stays in the message history"
    );
    let screen = h.screen();
    let row = screen
        .lines()
        .find(|l| l.contains("shop"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(row.contains("⧗1"), "{row}");
    assert!(screen.contains(&notice[..40]), "{screen}");

    setup.refuse("decisionLog.md", "append-only", "would drop 1 entry");
    h.pump_until("the refusal's badge", |app| {
        app.projects.picker.agent_badges.get(&setup.project()) == Some(&(1, 1))
    });
    assert!(
        h.toasts()
            .contains("agent write refused: decisionLog.md in shop [append-only] — open shop, then r to review"),
        "{}",
        h.toasts()
    );
    let screen = h.screen();
    assert!(
        screen
            .lines()
            .any(|l| l.contains("shop") && l.contains("⧗1 ⊘1")),
        "{screen}"
    );

    // Looking at the review counts the refusal as seen; the proposal waits on.
    h.open_project("shop");
    h.keys("r");
    h.idle();
    assert_eq!(badge(&h, &setup.project()), Some((1, 0)));
    let title = h.screen();
    assert!(title.contains("1 proposal"), "{title}");

    // In the open project, the notice is short.
    let next = setup.stage(ACTIVE);
    h.pump_until("the second proposal", |app| {
        app.review.pane.proposals.len() == 2
    });
    let notice =
        format!("agent proposed a change to activeContext.md (proposal {next}) — r to review");
    assert!(h.toasts().contains(&notice), "{}", h.toasts());
}

#[test]
fn a_refused_write_row_is_selected_and_expands_to_its_tool_time_and_whole_reason() {
    let setup = Setup::new();
    let mut h = setup.start(80, 24);
    open_review_marked(&mut h);
    let reason = "the write would drop 3 entries of the decision log (ADR-001 Use SQLite for the offline cache, ADR-002 Ship weekly, ADR-003 Sign every release); decision logs only grow: append the new entry instead, and ask the person before removing anything lastwordofthereason";
    let record = setup.refuse("decisionLog.md", "append-only", reason);
    h.pump_until("the refusal in the review", |app| {
        app.review
            .pane
            .review
            .as_ref()
            .is_some_and(|r| r.refused.len() == 1)
            && !app.review.pane.loading
    });
    h.idle();
    assert_eq!(
        h.app.review.pane.refusal().map(|r| r.message.as_str()),
        Some(reason),
        "the refused write is the selected row"
    );
    let collapsed = h.screen();
    assert!(
        !collapsed.contains("lastwordofthereason"),
        "closed, the row is one line cut at the width:\n{collapsed}"
    );

    h.keys("enter");
    assert!(h.app.review.pane.is_expanded());
    let screen = h.screen();
    assert!(screen.contains("tool: mcp:memory_bank_update"), "{screen}");
    assert!(screen.contains(&format!("time: {}", record.at)), "{screen}");
    assert!(screen.contains("rule: append-only"), "{screen}");
    assert!(screen.contains("client: test-agent 1.0"), "{screen}");
    // The whole reason, wrapped: every word of it on screen, in order, none cut.
    let words: Vec<&str> = screen
        .lines()
        .skip_while(|l| !l.contains("reason: "))
        .flat_map(|l| {
            let text = l.split("reason: ").last().unwrap_or(l);
            text.split(['│', ' '])
                .filter(|w| !w.is_empty())
                .collect::<Vec<_>>()
        })
        .collect();
    let expected: Vec<&str> = reason.split(' ').collect();
    let at = words
        .iter()
        .position(|w| *w == expected[0])
        .unwrap_or_else(|| panic!("{screen}"));
    assert_eq!(
        &words[at..at + expected.len()],
        &expected[..],
        "the reason, whole:\n{screen}"
    );

    // → on an open row moves on, ← closes it again.
    h.keys("left");
    assert!(!h.app.review.pane.is_expanded());
    h.keys("right");
    assert!(h.app.review.pane.is_expanded(), "→ opens a closed row");
}

#[test]
fn accepting_one_hunk_of_a_three_hunk_proposal_and_leaving_out_the_rest_writes_exactly_that_hunk() {
    let setup = Setup::new();
    let mut h = setup.start(120, 36);
    open_review_marked(&mut h);
    let id = setup.stage(REWRITE);
    h.pump_until("the proposal in the review", |app| {
        app.review.pane.proposals.len() == 1
    });
    select_proposal(&mut h, id);
    let view = h.app.review.pane.proposal().unwrap();
    assert_eq!(view.review.diff.hunks.len(), 3);
    assert_eq!(view.proposal.hunks().len(), 3);
    let screen = h.screen();
    assert!(
        screen.contains(&format!("proposal {id} · activeContext.md")),
        "{screen}"
    );
    assert!(screen.contains("+- password reset"), "{screen}");

    // The cursor starts on the first hunk: take it, leave out the next two.
    h.keys("a");
    assert!(
        h.toasts().contains("hunk 1 of 3: taken; 2 left to decide"),
        "{}",
        h.toasts()
    );
    assert_eq!(
        std::fs::read_to_string(setup.active()).unwrap(),
        ACTIVE,
        "nothing yet"
    );
    h.keys("x");
    h.keys("x");
    h.pump_until("the decision", |app| {
        app.review.pane.deciding.is_none() && app.review.pane.proposals.is_empty()
    });
    assert_eq!(
        std::fs::read_to_string(setup.active()).unwrap(),
        FIRST_HUNK_ONLY
    );
    let decided = setup.store().get(id).unwrap();
    assert_eq!(decided.state, State::Accepted);
    assert_eq!(decided.accepted_hunks, Some(vec![1]));
    assert!(
        h.toasts().contains(&format!(
            "accepted hunk 1 of proposal {id} into activeContext.md"
        )),
        "{}",
        h.toasts()
    );
}

#[test]
fn a_proposal_whose_lines_changed_since_is_shown_as_a_conflict_and_nothing_is_written() {
    let setup = Setup::new();
    let mut h = setup.start(120, 36);
    open_review_marked(&mut h);
    let id = setup.stage(REWRITE);
    // The person's own change to the same line, after the agent's proposal.
    let theirs = ACTIVE.replace("- login form", "- login form, with SSO");
    std::fs::write(setup.active(), &theirs).unwrap();
    h.pump_until("the proposal in the review", |app| {
        app.review.pane.proposals.len() == 1
    });
    select_proposal(&mut h, id);
    h.press(KeyCode::Char('a'), KeyModifiers::CONTROL);
    h.pump_until("the refused accept", |app| {
        app.review.pane.deciding.is_none() && app.review.pane.conflicts.contains_key(&id)
    });
    assert_eq!(std::fs::read_to_string(setup.active()).unwrap(), theirs);
    assert_eq!(setup.store().get(id).unwrap().state, State::Pending);
    assert!(
        h.toasts().contains("conflicts with changes made"),
        "{}",
        h.toasts()
    );
    let screen = h.screen();
    assert!(screen.contains("⚠ conflict"), "{screen}");
}

#[test]
fn a_proposal_edited_before_accepting_writes_the_edited_text_and_reject_leaves_the_file() {
    let setup = Setup::new();
    let mut h = setup.start(120, 36);
    open_review_marked(&mut h);
    let first = setup.stage(REWRITE);
    h.pump_until("the first proposal", |app| {
        app.review.pane.proposals.len() == 1
    });
    select_proposal(&mut h, first);
    h.keys("E");
    assert!(
        matches!(h.app.overlays.last(), Some(Overlay::Proposal(e)) if e.id == first),
        "the proposal's text opens for editing"
    );
    h.type_text("Edited: ");
    h.keys("ctrl-s");
    h.pump_until("the edited accept", |app| {
        app.overlays.is_empty() && app.review.pane.deciding.is_none()
    });
    let edited = format!("Edited: {REWRITE}");
    assert_eq!(std::fs::read_to_string(setup.active()).unwrap(), edited);
    assert_eq!(setup.store().get(first).unwrap().state, State::Accepted);

    // A second proposal, rejected whole after the prompt: the file stays.
    let second = setup.stage(ACTIVE);
    h.pump_until("the second proposal", |app| {
        app.review
            .pane
            .proposals
            .iter()
            .any(|p| p.proposal.id == second)
    });
    select_proposal(&mut h, second);
    h.press(KeyCode::Char('x'), KeyModifiers::CONTROL);
    h.keys("y");
    h.pump_until("the rejection", |app| {
        app.review.pane.deciding.is_none() && app.review.pane.proposals.is_empty()
    });
    assert_eq!(std::fs::read_to_string(setup.active()).unwrap(), edited);
    assert_eq!(setup.store().get(second).unwrap().state, State::Rejected);
}

/// Times as `<time>`: a snapshot must draw the same whenever it is taken. A narrow
/// pane wraps a time's clock onto the next row (`46:45.765Z`): that part is masked too.
fn without_times(screen: &str) -> String {
    let clock = regex::Regex::new(r"\b\d{2}:\d{2}(:\d{2})?(\.\d+)?Z").unwrap();
    let mut out = String::new();
    for line in screen.lines() {
        let mut line = line.trim_end().to_string();
        while let Some(start) = line.find("2026-").or_else(|| line.find("2027-")) {
            let end = line[start..]
                .find(|c: char| !(c.is_ascii_digit() || "-:.TZ".contains(c)))
                .map_or(line.len(), |e| start + e);
            let width = end - start;
            line.replace_range(start..end, &format!("{:<width$}", "<time>"));
        }
        while let Some(found) = clock.find(&line) {
            let width = found.end() - found.start();
            line.replace_range(found.range(), &format!("{:<width$}", "<time>"));
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The review with a pending proposal and two refused writes, reached with `keys`, at
/// both sizes.
fn snapshot(name: &str, keys: &str) {
    for (width, height) in [(60, 20), (80, 24), (160, 45)] {
        let setup = Setup::new();
        setup.stage(REWRITE);
        setup.refuse(
            "decisionLog.md",
            "append-only",
            "the write would drop 2 entries of the decision log (ADR-001 Use SQLite, ADR-002 Ship weekly); decision logs only grow: append the new entry instead",
        );
        setup.refuse(
            "activeContext.md",
            "secret",
            "line 4 holds an AWS access key",
        );
        let mut h = Tui::options(&setup.root)
            .home(setup.temp.path())
            .size(width, height)
            .review(ReviewOptions {
                data_dir: Some(setup.data.clone()),
                ..ReviewOptions::default()
            })
            .start();
        h.pump_until("the agent writes", |app| {
            app.shows_projects() && app.review.agent.loaded && app.review.agent.proposals.len() == 1
        });
        h.open_project("shop");
        h.keys("r");
        h.pump_until("the review with the agent rows", |app| {
            app.review
                .pane
                .review
                .as_ref()
                .is_some_and(|r| r.refused.len() == 2)
                && app.review.pane.proposals.len() == 1
                && !app.review.pane.loading
        });
        h.keys(keys);
        let screen = without_times(&h.settled_screen());
        insta::assert_snapshot!(format!("{name}_{width}x{height}"), screen);
    }
}

#[test]
fn snapshot_of_a_selected_proposal_and_its_first_hunk_marked() {
    snapshot("review_proposal", "] ] ] enter a");
}

#[test]
fn snapshot_of_a_refused_write_expanded() {
    snapshot("review_refusal_expanded", "] ] ] ] ] enter");
}

#[test]
fn a_burst_of_agent_writes_is_announced_in_three_notices_and_a_count() {
    use mbank::tui::Message;
    use mbank::tui::agent_worker::{AgentEvent, ProposalView};
    let setup = Setup::new();
    let mut h = setup.start(120, 30);
    let project = h
        .app
        .projects
        .picker
        .projects()
        .next()
        .unwrap()
        .path
        .clone();
    let proposal = |id: u64| mbank::core::agent::proposals::Proposal {
        id,
        created: "2026-11-25T10:00:00.000Z".into(),
        project: project.clone(),
        file: format!("note-{id}.md"),
        path: project.join(format!("memory-bank/note-{id}.md")),
        via: "mcp:memory_bank_write".into(),
        client: None,
        base: None,
        proposed: Some(format!("# Note {id}\n")),
        change: mbank::core::agent::proposals::ProposedChange::Replace,
        state: State::Pending,
        decided: None,
        accepted_hunks: None,
    };
    let proposals = (1..=5)
        .map(|id| std::sync::Arc::new(ProposalView::new(proposal(id), project.clone())))
        .collect();
    h.app.toasts.clear();
    h.app.update(Message::Agent(AgentEvent::Scanned {
        proposals,
        refusals: Default::default(),
        all: false,
        seen: Default::default(),
    }));
    let notices: Vec<&str> = h.app.toasts.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(notices.len(), 4, "{notices:?}");
    assert!(
        notices[..3]
            .iter()
            .all(|n| n.starts_with("agent proposed a change to note-"))
    );
    assert_eq!(notices[3], "… and 2 more agent writes — r to review");
    assert_eq!(badge(&h, &project), Some((5, 0)));
}

#[test]
fn refusals_of_two_projects_are_counted_apart_as_each_log_changes() {
    let setup = Setup::new();
    let tea = setup.root.join("tea");
    std::fs::create_dir_all(tea.join("memory-bank")).unwrap();
    std::fs::write(tea.join("memory-bank/projectbrief.md"), BRIEF).unwrap();
    let mut h = setup.start(120, 30);
    let tea = h
        .app
        .projects
        .picker
        .project(&tea)
        .map(|p| p.path.clone())
        .unwrap();
    setup.refuse("decisionLog.md", "append-only", "would drop 1 entry");
    h.pump_until("shop's refusal", |app| {
        app.projects.picker.agent_badges.get(&setup.project()) == Some(&(0, 1))
    });
    // Only tea's log changes now: shop's count stays.
    let record = RefusalRecord::at(
        &Clock::system(),
        &tea,
        "x.md",
        "secret",
        "line 1 holds a key",
        "mcp:t",
    );
    refusals::append_in(&setup.data, &record).unwrap();
    h.pump_until("tea's refusal", |app| {
        app.projects.picker.agent_badges.get(&tea) == Some(&(0, 1))
    });
    assert_eq!(badge(&h, &setup.project()), Some((0, 1)));
    setup.refuse("progress.md", "format", "not markdown");
    h.pump_until("shop's second refusal", |app| {
        app.projects.picker.agent_badges.get(&setup.project()) == Some(&(0, 2))
    });
    assert_eq!(badge(&h, &tea), Some((0, 1)));
}

#[test]
fn refusals_from_before_the_session_count_until_looked_at_and_looking_is_kept_across_sessions() {
    let setup = Setup::new();
    setup.refuse("decisionLog.md", "append-only", "would drop 1 entry");
    setup.refuse("activeContext.md", "secret", "line 2 holds a key");
    let mut h = setup.start(120, 30);
    assert_eq!(
        badge(&h, &setup.project()),
        Some((0, 2)),
        "not looked at yet"
    );
    assert!(
        !h.toasts().contains("agent write refused"),
        "what came before the session is counted, not announced: {}",
        h.toasts()
    );
    h.open_project("shop");
    h.keys("r");
    h.idle();
    assert_eq!(badge(&h, &setup.project()), None);
    drop(h);
    // The mark is written by the agent worker, off the drawing thread.
    let marks = setup.data.join("tui/refusals-seen.json");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !marks.exists() {
        assert!(std::time::Instant::now() < deadline, "no marks file");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }

    // The next session remembers what was looked at.
    let mut h = setup.start(120, 30);
    assert_eq!(badge(&h, &setup.project()), None);
    setup.refuse("progress.md", "format", "not markdown");
    h.pump_until("the new refusal", |app| {
        app.projects.picker.agent_badges.get(&setup.project()) == Some(&(0, 1))
    });
}
