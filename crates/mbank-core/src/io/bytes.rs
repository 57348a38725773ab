//! Paths as bytes, as mbank's caches keep them: the platform's bytes (any bytes on
//! Unix, UTF-8 elsewhere).

use std::ffi::{OsStr, OsString};

/// A path's bytes as the caches keep them; `None` where the platform's path is not
/// UTF-8 (never on Unix).
#[cfg(unix)]
pub fn os_bytes(value: &OsStr) -> Option<&[u8]> {
    use std::os::unix::ffi::OsStrExt;
    Some(value.as_bytes())
}

#[cfg(not(unix))]
pub fn os_bytes(value: &OsStr) -> Option<&[u8]> {
    value.to_str().map(str::as_bytes)
}

/// The path [`os_bytes`] gave these bytes for.
#[cfg(unix)]
pub fn os_str(bytes: &[u8]) -> Option<&OsStr> {
    use std::os::unix::ffi::OsStrExt;
    Some(OsStr::from_bytes(bytes))
}

#[cfg(not(unix))]
pub fn os_str(bytes: &[u8]) -> Option<&OsStr> {
    std::str::from_utf8(bytes).ok().map(OsStr::new)
}

pub(crate) fn os_string(bytes: &[u8]) -> Option<OsString> {
    os_str(bytes).map(OsStr::to_os_string)
}
