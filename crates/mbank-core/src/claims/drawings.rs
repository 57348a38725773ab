//! Folder trees judged as a whole: a drawing most of whose entries the work tree does not
//! hold draws another place or a layout to follow (where new files should go), not this
//! project as it once was, so none of its entries is reported.
use std::collections::HashMap;
use std::path::Path;

use super::Made;

/// `missing` (one entry per claim of `made`: the spellings of a path that is not here)
/// with the entries of every drawing that is mostly missing cleared.
pub(super) fn judged_as_drawn(
    made: &[Made<'_>],
    mut missing: Vec<Option<Vec<String>>>,
) -> Vec<Option<Vec<String>>> {
    // (file, drawing's first line) → (entries, entries missing).
    let mut drawings: HashMap<(&Path, usize), (usize, usize)> = HashMap::new();
    for (m, missing) in made.iter().zip(&missing) {
        if let Some(drawing) = m.claim.drawing {
            let counts = drawings.entry((m.doc.path, drawing)).or_default();
            counts.0 += 1;
            counts.1 += usize::from(missing.is_some());
        }
    }
    for (m, missing) in made.iter().zip(missing.iter_mut()) {
        let foreign = m.claim.drawing.is_some_and(|drawing| {
            drawings
                .get(&(m.doc.path, drawing))
                .is_some_and(|(entries, gone)| gone * 2 > *entries)
        });
        if foreign {
            *missing = None;
        }
    }
    missing
}
