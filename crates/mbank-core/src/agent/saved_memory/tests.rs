use std::fs;

use super::*;
use crate::agent::proposals::State;

fn agent() -> WriteContext {
    WriteContext::new("mcp:save_memory", crate::clock::Clock::system())
}

#[test]
fn a_missing_file_starts_with_the_section() {
    assert_eq!(
        with_fact(None, "- Port 5432"),
        "## Auto-saved Memories\n- Port 5432\n"
    );
}

#[test]
fn a_missing_section_is_added_at_the_end_after_a_blank_line() {
    assert_eq!(
        with_fact(Some("# Project\n\nUse pnpm."), "- Port 5432"),
        "# Project\n\nUse pnpm.\n\n## Auto-saved Memories\n- Port 5432\n"
    );
}

#[test]
fn a_section_in_the_middle_gets_the_fact_after_its_last_item() {
    let text = "# P\n\n## Auto-saved Memories\n\n- one\n- two\n\n## Testing\n- Vitest\n";
    assert_eq!(
        with_fact(Some(text), "- three"),
        "# P\n\n## Auto-saved Memories\n\n- one\n- two\n- three\n\n## Testing\n- Vitest\n"
    );
    let empty = "## Auto-saved Memories\n## Testing\n";
    assert_eq!(
        with_fact(Some(empty), "- one"),
        "## Auto-saved Memories\n- one\n\n## Testing\n"
    );
    let last = "# P\n## Auto-saved Memories\n- one";
    assert_eq!(
        with_fact(Some(last), "- two"),
        "# P\n## Auto-saved Memories\n- one\n- two\n"
    );
}

#[test]
fn a_heading_inside_a_code_fence_is_not_the_section() {
    let text = "```\n## Auto-saved Memories\n```\n";
    assert_eq!(
        with_fact(Some(text), "- one"),
        "```\n## Auto-saved Memories\n```\n\n## Auto-saved Memories\n- one\n"
    );
}

#[test]
fn a_fact_is_one_line_and_must_hold_words() {
    assert_eq!(
        fact_line("Database port\n## is   5432\n").unwrap(),
        "- Database port ## is 5432"
    );
    assert!(matches!(
        fact_line(" \n\t"),
        Err(AgentError::InvalidRequest(_))
    ));
}

#[test]
fn saving_creates_the_folder_file_and_section_then_appends() {
    let home = tempfile::tempdir().unwrap();
    let file = global_file(home.path());
    let report = save(
        &agent(),
        SavedScope::Global,
        &file,
        home.path(),
        "Prefers tabs",
        None,
    )
    .unwrap();
    assert!(report.created);
    assert!(report.proposal.is_none());
    let path = home.path().join(".beans/BEANS.md");
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        "## Auto-saved Memories\n- Prefers tabs\n"
    );
    save(
        &agent(),
        SavedScope::Global,
        &file,
        home.path(),
        "Uses fish",
        None,
    )
    .unwrap();
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        "## Auto-saved Memories\n- Prefers tabs\n- Uses fish\n"
    );
}

#[test]
fn a_secret_is_refused_and_nothing_is_written() {
    let project = tempfile::tempdir().unwrap();
    let file = project_file(project.path());
    let result = save(
        &agent(),
        SavedScope::Project,
        &file,
        project.path(),
        "token ghp_abcdefghijklmnopqrstuvwxyz0123456789AB",
        None,
    );
    assert!(matches!(result, Err(AgentError::Refused(_))), "{result:?}");
    assert!(!project.path().join("BEANS.md").exists());
}

#[cfg(unix)]
#[test]
fn a_beans_folder_that_is_a_link_is_refused() {
    let home = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), home.path().join(".beans")).unwrap();
    let file = global_file(home.path());
    let result = save(&agent(), SavedScope::Global, &file, home.path(), "x", None);
    assert!(result.is_err());
    assert!(!elsewhere.path().join("BEANS.md").exists());
}

#[test]
fn a_staged_fact_waits_and_lands_on_the_file_as_it_is_when_accepted() {
    let root = tempfile::tempdir().unwrap();
    let project = fs::canonicalize(root.path()).unwrap().join("app");
    fs::create_dir(&project).unwrap();
    fs::write(project.join("BEANS.md"), "# App\n").unwrap();
    let store = ProposalStore::new(root.path().join("data"));
    let file = project_file(&project);
    let report = save(
        &agent(),
        SavedScope::Project,
        &file,
        &project,
        "Deploys on Fridays",
        Some(&store),
    )
    .unwrap();
    let id = report.proposal.unwrap();
    assert_eq!(
        fs::read_to_string(project.join("BEANS.md")).unwrap(),
        "# App\n"
    );
    let staged = store.get(id).unwrap();
    assert_eq!(staged.kind(), "entry");
    assert_eq!(staged.file, "BEANS.md");
    assert_eq!(
        staged.proposed.as_deref(),
        Some("# App\n\n## Auto-saved Memories\n- Deploys on Fridays\n")
    );
    fs::write(project.join("BEANS.md"), "# App\n\nUse pnpm.\n").unwrap();
    let (decided, _) = store.accept(&agent(), root.path(), id, None).unwrap();
    assert_eq!(decided.state, State::Accepted);
    assert_eq!(
        fs::read_to_string(project.join("BEANS.md")).unwrap(),
        "# App\n\nUse pnpm.\n\n## Auto-saved Memories\n- Deploys on Fridays\n"
    );
}

#[test]
fn a_staged_project_fact_outside_the_root_is_refused_when_accepted() {
    let root = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let store = ProposalStore::new(root.path().join("data"));
    let file = project_file(elsewhere.path());
    let id = save(
        &agent(),
        SavedScope::Project,
        &file,
        elsewhere.path(),
        "x",
        Some(&store),
    )
    .unwrap()
    .proposal
    .unwrap();
    assert!(matches!(
        store.accept(&agent(), root.path(), id, None),
        Err(ProposalError::Outside { .. })
    ));
    assert!(!elsewhere.path().join("BEANS.md").exists());
}
