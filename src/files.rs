//! Files a person or a request names (weights, opening books, endgame database slices, game
//! records, `serve` flags and `set` requests alike): checked before they are used, so that a
//! name can neither hang the program (a FIFO with no writer, a device), nor make it read without
//! bound (`/dev/zero`, a huge file), nor leave a half-written record behind.
//!
//! - [`open_regular`] opens without blocking (`O_NONBLOCK`, no controlling terminal,
//!   close-on-exec) and checks on the open descriptor that it is a regular file; [`read_regular`]
//!   also checks its size against a limit and only then reads it (never more than that size).
//! - [`check_record_dir`] takes an existing directory, or creates one whose parent exists (never a
//!   chain of directories), and proves it writable by creating and removing a file in it.
//! - [`write_atomically`] writes a file under a hidden temporary name in its directory (with the
//!   writer's process id), syncs it and renames it into place: a reader sees the whole file or
//!   none. [`remove_stale_temporaries`] removes the temporary files of writers that no longer
//!   run (a process killed in the middle of a write).
//!
//! Their errors are the program's own words, the same whichever file it is, and say what to fix
//! without telling a missing file from an unreadable one or from something that is not a regular
//! file ([`FileError::Unusable`]).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Why a file named from the wire cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// Missing, unreadable, or not a regular file (which of them is not said).
    #[error("cannot use {0}: not a readable regular file")]
    Unusable(String),
    /// A regular file larger than the limit.
    #[error("cannot use {path}: larger than {max_mib} MiB")]
    TooBig {
        /// The path as given.
        path: String,
        /// The limit in MiB.
        max_mib: u64,
    },
    /// Not a directory that can be created or written to (which of them is not said).
    #[error("cannot write records to {0}: not a writable directory (its parent must exist)")]
    NotWritableDir(String),
}

/// Opens the regular file at `path` for reading without blocking on what is not one (see the
/// module documentation); returns it with its size.
pub fn open_regular(path: &Path) -> Result<(std::fs::File, u64), FileError> {
    use std::os::unix::fs::OpenOptionsExt;
    let unusable = || FileError::Unusable(path.display().to_string());
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path)
        .map_err(|_| unusable())?;
    let meta = file.metadata().map_err(|_| unusable())?;
    if !meta.is_file() {
        return Err(unusable());
    }
    Ok((file, meta.len()))
}

/// Reads the regular file at `path`, of at most `max` bytes (see the module documentation).
pub fn read_regular(path: &Path, max: u64) -> Result<Vec<u8>, FileError> {
    let shown = path.display().to_string();
    let unusable = || FileError::Unusable(shown.clone());
    let (file, len) = open_regular(path)?;
    if len > max {
        return Err(FileError::TooBig {
            path: shown,
            max_mib: max >> 20,
        });
    }
    let mut bytes = Vec::with_capacity(len as usize);
    // The file may grow meanwhile: never more than the limit.
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|_| unusable())?;
    if bytes.len() as u64 > max {
        return Err(FileError::TooBig {
            path: shown,
            max_mib: max >> 20,
        });
    }
    Ok(bytes)
}

/// Checks that records can be written to `dir` (see the module documentation) and removes the
/// temporary files of writers killed in the middle of a record ([`remove_stale_temporaries`]);
/// returns it.
pub fn check_record_dir(dir: &Path) -> Result<PathBuf, FileError> {
    let refused = || FileError::NotWritableDir(dir.display().to_string());
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return Err(refused()),
        Err(_) => std::fs::create_dir(dir).map_err(|_| refused())?,
    }
    let probe = dir.join(format!(".checkersbot-probe-{}", std::process::id()));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .map_err(|_| refused())?;
    std::fs::remove_file(&probe).map_err(|_| refused())?;
    let removed = remove_stale_temporaries(dir);
    if removed > 0 {
        tracing::info!(
            "{removed} temporary files of interrupted record writes removed from {}",
            dir.display()
        );
    }
    Ok(dir.to_path_buf())
}

/// The hidden temporary name [`write_atomically`] writes `name` under, for process `pid`.
fn temporary_name(name: &str, pid: u32) -> String {
    format!(".{name}.{pid}.tmp")
}

/// Writes `bytes` to `path` through a temporary file in the same directory, renamed into place
/// once complete and synced; the temporary file is removed when anything fails.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let tmp = path.with_file_name(temporary_name(&name, std::process::id()));
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        std::fs::remove_file(&tmp).ok();
    }
    result
}

/// Removes from `dir` the temporary files of [`write_atomically`] whose writer no longer runs
/// (killed in the middle of a write: the file it was writing was never renamed into place);
/// those of running processes, this one included, are left alone. Returns how many it removed.
pub fn remove_stale_temporaries(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        let Some(pid) = name
            .strip_prefix('.')
            .and_then(|n| n.strip_suffix(".tmp"))
            .and_then(|n| n.rsplit_once('.'))
            .and_then(|(_, pid)| pid.parse::<i32>().ok())
        else {
            continue;
        };
        if pid <= 0 || process_runs(pid) {
            continue;
        }
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        if is_file && std::fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// Whether process `pid` exists (it may belong to another user).
fn process_runs(pid: i32) -> bool {
    // SAFETY: kill with signal 0 sends nothing; it only checks that the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("cb-files-{tag}-{}", std::process::id()));
        std::fs::remove_dir_all(&dir).ok();
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn only_regular_files_within_the_limit_are_read() {
        let dir = scratch("read");
        let file = dir.join("w");
        std::fs::write(&file, b"12345").unwrap();
        assert_eq!(read_regular(&file, 5).unwrap(), b"12345");
        assert!(matches!(
            read_regular(&file, 4),
            Err(FileError::TooBig { .. })
        ));
        let fifo = dir.join("fifo");
        let c = std::ffi::CString::new(fifo.to_string_lossy().as_bytes()).unwrap();
        // SAFETY: mkfifo with a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // Neither blocks, and the messages are the same for a FIFO, a device, a directory and a
        // missing file.
        let said: Vec<String> = [
            fifo.clone(),
            "/dev/zero".into(),
            dir.clone(),
            dir.join("no"),
        ]
        .iter()
        .map(|p| match read_regular(p, 1 << 20) {
            Err(FileError::Unusable(_)) => "unusable".to_string(),
            other => format!("{other:?}"),
        })
        .collect();
        assert_eq!(said, vec!["unusable"; 4]);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_record_directory_must_be_writable_and_only_its_last_part_is_created() {
        let dir = scratch("rec");
        assert!(check_record_dir(&dir.join("new")).is_ok());
        assert!(dir.join("new").is_dir());
        assert!(check_record_dir(&dir.join("a/b/c")).is_err());
        assert!(!dir.join("a").exists());
        std::fs::write(dir.join("file"), "x").unwrap();
        assert!(check_record_dir(&dir.join("file")).is_err());
        assert!(check_record_dir(Path::new("/proc/self")).is_err());
        let out = dir.join("new/game.pdn");
        write_atomically(&out, b"1. 11-15 *\n").unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "1. 11-15 *\n");
        let left: Vec<_> = std::fs::read_dir(dir.join("new")).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary file left");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn temporaries_of_dead_writers_are_removed_and_live_ones_kept() {
        let dir = scratch("tmp");
        // A writer that has exited: a child process that ran and was reaped.
        let dead = std::process::Command::new("true")
            .spawn()
            .and_then(|mut c| c.wait().map(|_| c.id()))
            .unwrap();
        let mine = std::process::id();
        for (name, pid) in [("game-1-001.pdn", dead), ("game-2-002.pdn", mine)] {
            std::fs::write(dir.join(temporary_name(name, pid)), "1. 11-15").unwrap();
        }
        std::fs::write(dir.join("game-3-003.pdn"), "1. 11-15 *").unwrap();
        std::fs::write(dir.join(".notes.tmp"), "kept: no process id").unwrap();
        assert_eq!(remove_stale_temporaries(&dir), 1);
        let mut left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .collect();
        left.sort();
        let live = temporary_name("game-2-002.pdn", mine);
        assert_eq!(left, vec![live.as_str(), ".notes.tmp", "game-3-003.pdn"]);
        std::fs::remove_dir_all(&dir).ok();
    }
}
