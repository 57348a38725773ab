//! A project brief split into what each memory file asks for. Only what the person wrote
//! is used: a part is taken from a labelled line (`Users: hikers and guides`) or a
//! labelled section (`## Goals` then its lines); everything unlabelled is the mission.
//! Nothing is guessed from the wording, so a brief without labels fills the mission only.

/// The parts of a brief, each as the person wrote it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Brief {
    /// The unlabelled text, paragraphs kept.
    pub mission: String,
    pub problem: Vec<String>,
    pub users: Vec<String>,
    pub goals: Vec<String>,
    pub requirements: Vec<String>,
    pub constraints: Vec<String>,
    pub success: Vec<String>,
    pub in_scope: Vec<String>,
    pub out_of_scope: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Mission,
    Problem,
    Users,
    Goals,
    Requirements,
    Constraints,
    Success,
    InScope,
    OutOfScope,
}

/// The labels a brief may use for each part, compared without case.
const LABELS: [(&str, Part); 24] = [
    ("mission", Part::Mission),
    ("summary", Part::Mission),
    ("problem", Part::Problem),
    ("problems", Part::Problem),
    ("why", Part::Problem),
    ("users", Part::Users),
    ("target users", Part::Users),
    ("audience", Part::Users),
    ("for", Part::Users),
    ("goals", Part::Goals),
    ("goal", Part::Goals),
    ("ux goals", Part::Goals),
    ("requirements", Part::Requirements),
    ("core requirements", Part::Requirements),
    ("features", Part::Requirements),
    ("constraints", Part::Constraints),
    ("constraint", Part::Constraints),
    ("success", Part::Success),
    ("success criteria", Part::Success),
    ("scope", Part::InScope),
    ("in scope", Part::InScope),
    ("out of scope", Part::OutOfScope),
    ("non-goals", Part::OutOfScope),
    ("non goals", Part::OutOfScope),
];

fn part_named(label: &str) -> Option<Part> {
    let label = label.trim().trim_matches('*').trim().to_lowercase();
    LABELS
        .iter()
        .find(|(name, _)| *name == label)
        .map(|(_, part)| *part)
}

/// `- item` or `1. item` → `item`.
fn list_item(line: &str) -> &str {
    let line = line.trim();
    for marker in ["- ", "* ", "+ "] {
        if let Some(rest) = line.strip_prefix(marker) {
            return rest.trim();
        }
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if digits > 0
        && let Some(rest) = line[digits..].strip_prefix(". ")
    {
        return rest.trim();
    }
    line
}

impl Brief {
    pub fn parse(text: &str) -> Brief {
        let mut brief = Brief::default();
        let mut mission: Vec<String> = Vec::new();
        let mut section: Option<Part> = None;
        for line in text.lines() {
            let trimmed = line.trim();
            if let Some(heading) = trimmed.strip_prefix('#') {
                let heading = heading.trim_start_matches('#');
                section = part_named(heading);
                if section.is_none() {
                    mission.push(trimmed.to_string());
                }
                continue;
            }
            if trimmed.is_empty() {
                if section.is_none() || section == Some(Part::Mission) {
                    mission.push(String::new());
                }
                continue;
            }
            let item = list_item(trimmed);
            if let Some((label, value)) = item.split_once(':')
                && let Some(part) = part_named(label)
            {
                let values: Vec<&str> = value
                    .split(';')
                    .map(str::trim)
                    .filter(|v| !v.is_empty())
                    .collect();
                if part == Part::Mission {
                    mission.push(value.trim().to_string());
                } else {
                    for value in values {
                        brief.add(part, value);
                    }
                }
                continue;
            }
            match section {
                Some(Part::Mission) | None => mission.push(trimmed.to_string()),
                Some(part) => brief.add(part, item),
            }
        }
        brief.mission = mission
            .join("\n")
            .split("\n\n")
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join("\n\n");
        brief
    }

    fn add(&mut self, part: Part, value: &str) {
        let list = match part {
            Part::Mission => return,
            Part::Problem => &mut self.problem,
            Part::Users => &mut self.users,
            Part::Goals => &mut self.goals,
            Part::Requirements => &mut self.requirements,
            Part::Constraints => &mut self.constraints,
            Part::Success => &mut self.success,
            Part::InScope => &mut self.in_scope,
            Part::OutOfScope => &mut self.out_of_scope,
        };
        list.push(value.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unlabelled_brief_is_all_mission() {
        let brief = Brief::parse("A REST API for managing todo items.\n\nIt runs on one box.");
        assert_eq!(
            brief.mission,
            "A REST API for managing todo items.\n\nIt runs on one box."
        );
        assert_eq!(
            brief,
            Brief {
                mission: brief.mission.clone(),
                ..Brief::default()
            }
        );
    }

    #[test]
    fn labelled_lines_and_sections_fill_their_parts() {
        let brief = Brief::parse(
            "A tide-table API.\nUsers: sailors; harbour masters\n**Goals**: answers in under a second\n\n## Out of scope\n- payments\n- accounts\nConstraints: runs offline\n",
        );
        assert_eq!(brief.mission, "A tide-table API.");
        assert_eq!(brief.users, vec!["sailors", "harbour masters"]);
        assert_eq!(brief.goals, vec!["answers in under a second"]);
        assert_eq!(brief.out_of_scope, vec!["payments", "accounts"]);
        assert_eq!(brief.constraints, vec!["runs offline"]);
        // A colon in the mission's own words is not a label.
        let plain = Brief::parse("Note: the API is read-only.");
        assert_eq!(plain.mission, "Note: the API is read-only.");
    }
}
