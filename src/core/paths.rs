//! Where mbank keeps its own files. Each folder can be redirected by an environment
//! variable, which tests and sandboxed CI use to stay hermetic.
use std::path::PathBuf;

fn project_dirs() -> Option<directories::ProjectDirs> {
    directories::ProjectDirs::from("", "", "mbank")
}

fn from_env(var: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// Token and git caches: `$MBANK_CACHE_DIR`, else the platform cache folder.
pub fn cache_dir() -> Option<PathBuf> {
    from_env("MBANK_CACHE_DIR").or_else(|| project_dirs().map(|d| d.cache_dir().to_path_buf()))
}

/// `config.toml`, keymaps and user themes: `$MBANK_CONFIG_DIR`, else the platform config folder.
pub fn config_dir() -> Option<PathBuf> {
    from_env("MBANK_CONFIG_DIR").or_else(|| project_dirs().map(|d| d.config_dir().to_path_buf()))
}

/// Review snapshots and other state: `$MBANK_DATA_DIR`, else the platform data folder.
pub fn data_dir() -> Option<PathBuf> {
    from_env("MBANK_DATA_DIR").or_else(|| project_dirs().map(|d| d.data_dir().to_path_buf()))
}

/// The user's home folder, for `~` in imports and global memory files.
pub fn home_dir() -> Option<PathBuf> {
    from_env("HOME").or_else(|| directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf()))
}
