//! A memory file that is a plan nobody has begun: its task list is all open. The paths
//! and names it lists are what is to be built (an expansion plan's files to create),
//! not the code as it is, so none of them is checked against the code.

use super::MemoryDoc;
use crate::model::Role;

/// Fewest open tasks that make a file a plan rather than a note with a to-do or two.
const FEWEST_OPEN_TASKS: usize = 3;

/// Whether a memory file of no core role is a plan nobody has begun, whose paths and
/// names are to be built (the core files' open tasks sit beside what is).
pub(super) fn is_plan(doc: MemoryDoc<'_>, text: &str) -> bool {
    doc.role == Role::Other && is_plan_not_begun(text)
}

/// Whether `text` holds a task list of at least [`FEWEST_OPEN_TASKS`] items and none of
/// them done (task items inside code blocks are examples, not tasks).
fn is_plan_not_begun(text: &str) -> bool {
    let mut open = 0usize;
    let mut fence: Option<(u8, usize)> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(run) = fence_run(trimmed) {
            fence = match fence {
                None => Some(run),
                // A fence closes on a run of its own character at least as long.
                Some((ch, len)) if run.0 == ch && run.1 >= len => None,
                open_fence => open_fence,
            };
            continue;
        }
        if fence.is_some() {
            continue;
        }
        match task_state(trimmed) {
            Some(true) => return false,
            Some(false) => open += 1,
            None => {}
        }
    }
    open >= FEWEST_OPEN_TASKS
}

/// The character and length of a code fence opening or closing `line`.
fn fence_run(line: &str) -> Option<(u8, usize)> {
    let ch = *line.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let len = line.bytes().take_while(|b| *b == ch).count();
    (len >= 3).then_some((ch, len))
}

/// Whether a list item is a task, and done: `- [x]` is, `- [ ]` is not (`*`, `+` and
/// numbered items alike); `None` for anything else.
fn task_state(line: &str) -> Option<bool> {
    let rest = match line.as_bytes().first()? {
        b'-' | b'*' | b'+' => &line[1..],
        b'0'..=b'9' => {
            let digits = line.bytes().take_while(u8::is_ascii_digit).count();
            line[digits..].strip_prefix(['.', ')'])?
        }
        _ => return None,
    };
    let rest = rest.strip_prefix([' ', '\t'])?.trim_start();
    let mark = rest.strip_prefix('[')?;
    let (state, after) = mark.split_at_checked(1)?;
    let after = after.strip_prefix(']')?;
    if !(after.is_empty() || after.starts_with([' ', '\t'])) {
        return None;
    }
    match state {
        " " => Some(false),
        "x" | "X" => Some(true),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_list_all_open_is_a_plan_and_one_done_task_is_work_under_way() {
        let plan = "# Expansion plan\n\n## Files\n\n- src/app/user/user.routes.ts\n\n## Steps\n\n- [ ] routes\n- [ ] profile page\n1. [ ] settings form\n";
        assert!(is_plan_not_begun(plan));
        let begun = plan.replace("- [ ] routes", "- [x] routes");
        assert!(!is_plan_not_begun(&begun));
        let done_upper = plan.replace("- [ ] routes", "* [X] routes");
        assert!(!is_plan_not_begun(&done_upper));
    }

    #[test]
    fn a_to_do_or_two_or_tasks_quoted_in_code_make_no_plan() {
        assert!(!is_plan_not_begun(
            "# Patterns\n\nThe store is `src/store.ts`.\n\n- [ ] tidy\n- [ ] rename\n"
        ));
        assert!(!is_plan_not_begun(
            "# Tasks format\n\n```md\n- [ ] one\n- [ ] two\n- [ ] three\n```\n"
        ));
        assert!(!is_plan_not_begun(
            "# Notes\n\n- [link](a.md)\n- [ ]not a task\n-[ ] nor this\n- [-] nor this\n"
        ));
        assert!(!is_plan_not_begun(""));
    }
}
