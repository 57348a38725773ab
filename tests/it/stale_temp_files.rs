//! A temp file a killed write left behind is removed by the next write to its folder,
//! through the real binary; a recent one (possibly another process's write in progress)
//! and files not named the way mbank names its temp files are left alone.
use std::time::Duration;

use crate::common::{Sandbox, age, write};

#[test]
fn the_next_write_to_a_folder_removes_stale_temp_files_only() {
    let temp = tempfile::tempdir().unwrap();
    let bank = temp.path().join("shop/memory-bank");
    let orphan = bank.join(".progress.md.Ab12Cd34.mbank-tmp");
    let in_progress = bank.join(".activeContext.md.Zz98Yx76.mbank-tmp");
    let foreign = bank.join("draft.mbank-tmp");
    write(&orphan, "half a write, then kill -9");
    write(&in_progress, "another process is writing this");
    write(&foreign, "not mbank's naming");
    age(&orphan, Duration::from_secs(3600));
    age(&foreign, Duration::from_secs(3600));
    // `init` writes the missing core files into the folder.
    Sandbox::new()
        .run(&["init", temp.path().join("shop").to_str().unwrap()])
        .expect_code(0);
    assert!(bank.join("progress.md").is_file());
    assert!(!orphan.exists(), "the orphan of a killed write is removed");
    assert!(
        in_progress.exists(),
        "a recent temp file may be a write in progress"
    );
    assert!(
        foreign.exists(),
        "only mbank's own naming pattern is touched"
    );
}
