//! What says a folder or a file is unchanged since it was read: its inode, size,
//! modification and change times, and whether they are too close to the run that read
//! them to vouch for it.
use std::fs;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::io::hash_index::stable_hash;

/// A folder or file whose times are this close to the run that read it may still change
/// without its times changing (coarse timestamps), so it is read again next run.
pub const RACY_WINDOW: Duration = Duration::from_secs(2);

/// Nanoseconds since the Unix epoch (negative before it).
pub(crate) fn nanos(time: SystemTime) -> i128 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => after.as_nanos() as i128,
        Err(before) => -(before.duration().as_nanos() as i128),
    }
}

/// What says a folder (or a file) is unchanged: inode, size, modification and change
/// times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    pub(super) ino: u64,
    pub(super) len: u64,
    pub(super) mtime: i128,
    pub(super) ctime: i128,
}

impl Stamp {
    pub fn of(meta: &fs::Metadata) -> Option<Stamp> {
        let mtime = nanos(meta.modified().ok()?);
        let (ino, ctime) = crate::io::paths::inode_and_change(meta).unwrap_or((0, mtime));
        Some(Stamp {
            ino,
            len: meta.len(),
            mtime,
            ctime,
        })
    }

    /// A stamp from a `stat`'s own fields (times in nanoseconds since the epoch).
    pub fn from_parts(ino: u64, len: u64, mtime: i128, ctime: i128) -> Stamp {
        Stamp {
            ino,
            len,
            mtime,
            ctime,
        }
    }

    /// Changed so shortly before `read_at` that a later change could keep these times.
    pub(crate) fn is_racy(&self, read_at: i128) -> bool {
        self.mtime.max(self.ctime) >= read_at - RACY_WINDOW.as_nanos() as i128
    }

    /// The four fields in one number, for a cache that keeps many stamps and only asks
    /// whether they are the same.
    pub fn digest(&self) -> u64 {
        let mut bytes = [0u8; 48];
        bytes[..8].copy_from_slice(&self.ino.to_le_bytes());
        bytes[8..16].copy_from_slice(&self.len.to_le_bytes());
        bytes[16..32].copy_from_slice(&self.mtime.to_le_bytes());
        bytes[32..].copy_from_slice(&self.ctime.to_le_bytes());
        stable_hash(&bytes)
    }

    /// Size and modification time, as a file's figures and facts are keyed.
    pub fn version(&self) -> (u64, i128) {
        (self.len, self.mtime)
    }
}

/// A time in nanoseconds since the epoch, as [`Listings::fact_files`](crate::scan::listings::Listings::fact_files) gives it.
pub(crate) fn time_nanos(time: SystemTime) -> i128 {
    nanos(time)
}

/// The time `nanos` nanoseconds from the epoch (before it when negative): the inverse
/// of [`time_nanos`].
pub(crate) fn time_of_nanos(nanos: i128) -> SystemTime {
    let magnitude = Duration::from_nanos(u64::try_from(nanos.unsigned_abs()).unwrap_or(u64::MAX));
    if nanos >= 0 {
        UNIX_EPOCH + magnitude
    } else {
        UNIX_EPOCH - magnitude
    }
}
