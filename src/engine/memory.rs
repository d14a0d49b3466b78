//! How much memory a new transposition table may take, checked before it is allocated, so that a
//! table the machine cannot hold is refused with a message instead of aborting the process.
//!
//! Three limits apply, whichever is smallest: the memory the kernel says is available
//! (`MemAvailable` in `/proc/meminfo`), the address space left under `RLIMIT_AS` (`ulimit -v`)
//! given the process's current size (`VmSize` in `/proc/self/status`), and a cgroup v2 memory limit
//! (`memory.max` less `memory.current`). The table being replaced counts as free, since it is
//! released first. Some room is kept back for the search threads' stacks and allocator arenas.
//! Where a figure cannot be read (not Linux) that limit is not checked; the allocation itself is
//! fallible in any case (see [`crate::engine::tt::Tt::try_new`]).

use std::fmt;

const MIB: u64 = 1 << 20;

/// Physical memory kept back from a table.
pub const SPARE_MEMORY: u64 = 32 * MIB;
/// Address space kept back from a table, per search thread (stack and allocator arena) and in all.
pub const SPARE_ADDRESS_PER_THREAD: u64 = 72 * MIB;
/// Address space kept back from a table in any case.
pub const SPARE_ADDRESS: u64 = 64 * MIB;

/// Which figure limits the table.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Limit {
    /// `MemAvailable`.
    Memory,
    /// `RLIMIT_AS`.
    AddressSpace,
    /// The cgroup's `memory.max`.
    Cgroup,
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Limit::Memory => "available memory",
            Limit::AddressSpace => "address-space limit (ulimit -v)",
            Limit::Cgroup => "cgroup memory limit",
        })
    }
}

/// The most a table may take now, and what limits it (`None`: nothing could be read).
pub fn table_room(current_table: u64, threads: usize) -> Option<(u64, Limit)> {
    let mut room: Option<(u64, Limit)> = None;
    let mut consider = |bytes: Option<u64>, limit: Limit| {
        if let Some(b) = bytes {
            if room.is_none_or(|(r, _)| b < r) {
                room = Some((b, limit));
            }
        }
    };
    consider(
        mem_available().map(|m| (m + current_table).saturating_sub(SPARE_MEMORY)),
        Limit::Memory,
    );
    let spare_as = SPARE_ADDRESS + SPARE_ADDRESS_PER_THREAD * threads.max(1) as u64;
    consider(
        address_space_left().map(|a| (a + current_table).saturating_sub(spare_as)),
        Limit::AddressSpace,
    );
    consider(
        cgroup_left().map(|c| (c + current_table).saturating_sub(SPARE_MEMORY)),
        Limit::Cgroup,
    );
    room
}

/// A `kB` field of a `/proc` file, in bytes.
fn proc_field(path: &str, field: &str) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    text.lines().find_map(|l| {
        let rest = l.strip_prefix(field)?.strip_prefix(':')?;
        let kb: u64 = rest.trim().trim_end_matches("kB").trim().parse().ok()?;
        Some(kb * 1024)
    })
}

/// `MemTotal` (the machine's memory) in bytes.
pub fn mem_total() -> Option<u64> {
    proc_field("/proc/meminfo", "MemTotal")
}

/// `MemAvailable` in bytes.
pub fn mem_available() -> Option<u64> {
    proc_field("/proc/meminfo", "MemAvailable")
}

/// The address space left under `RLIMIT_AS`, in bytes (`None` when unlimited or unknown).
pub fn address_space_left() -> Option<u64> {
    let limit = address_space_limit()?;
    let used = proc_field("/proc/self/status", "VmSize").unwrap_or(0);
    Some(limit.saturating_sub(used))
}

/// The soft `RLIMIT_AS` in bytes, `None` when unlimited.
#[cfg(unix)]
pub fn address_space_limit() -> Option<u64> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct we pass; RLIMIT_AS is a valid resource.
    let r = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) };
    (r == 0 && lim.rlim_cur != libc::RLIM_INFINITY).then_some(lim.rlim_cur)
}

/// No address-space limit off Unix.
#[cfg(not(unix))]
pub fn address_space_limit() -> Option<u64> {
    None
}

/// What the process's cgroup (v2) may still use, in bytes, if it has a limit.
fn cgroup_left() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = text.lines().find_map(|l| l.strip_prefix("0::"))?;
    let dir = format!("/sys/fs/cgroup{}", path.trim_end_matches('/'));
    let max: u64 = std::fs::read_to_string(format!("{dir}/memory.max"))
        .ok()?
        .trim()
        .parse()
        .ok()?;
    let current: u64 = std::fs::read_to_string(format!("{dir}/memory.current"))
        .ok()?
        .trim()
        .parse()
        .ok()?;
    Some(max.saturating_sub(current))
}

/// The smallest table chosen when none is given, MiB: the default before 2026-11-27, and enough
/// for the searches of up to about a second.
pub const AUTO_TABLE_MIN_MB: usize = 16;
/// The largest table chosen when none is given, MiB (a machine with little memory gets less:
/// see [`auto_table_cap_mb`]).
pub const AUTO_TABLE_MAX_MB: usize = 256;
/// Table bytes per node a search is expected to visit: a compact entry (8 bytes) for every second
/// node, about what a search stores, so that the deep entries of a move and of the moves before
/// it stay.
pub const TABLE_BYTES_PER_NODE: u64 = 4;

/// The largest table chosen when none is given: [`AUTO_TABLE_MAX_MB`], an eighth of the machine's
/// memory (`MemTotal`: 128 MiB on a 1 GiB robot computer) and a quarter of what is available now,
/// whichever is least, and never below 1 MiB (figures that cannot be read do not limit it).
pub fn auto_table_cap_mb() -> usize {
    let mut cap = AUTO_TABLE_MAX_MB as u64;
    if let Some(total) = proc_field("/proc/meminfo", "MemTotal") {
        cap = cap.min(total / 8 / MIB);
    }
    if let Some(avail) = mem_available() {
        cap = cap.min(avail / 4 / MIB);
    }
    cap.max(1) as usize
}

/// The table, MiB, for a search expected to visit `nodes` nodes (`None`: no bound, e.g. an
/// analysis without limits): [`TABLE_BYTES_PER_NODE`] a node, rounded up to a multiple of 16
/// MiB, from [`AUTO_TABLE_MIN_MB`] to [`auto_table_cap_mb`].
pub fn table_mb_for(nodes: Option<u64>) -> usize {
    let cap = auto_table_cap_mb();
    let Some(nodes) = nodes else {
        return cap;
    };
    let mb = nodes
        .saturating_mul(TABLE_BYTES_PER_NODE)
        .div_ceil(16 * MIB)
        * 16;
    (mb as usize).clamp(AUTO_TABLE_MIN_MB.min(cap), cap)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_are_read_on_linux() {
        if cfg!(target_os = "linux") {
            assert!(mem_available().is_some_and(|m| m > 0));
            assert!(proc_field("/proc/self/status", "VmSize").is_some());
            let (room, _) = table_room(0, 1).expect("a limit");
            assert!(room > 0);
        }
    }

    #[test]
    fn tables_by_nodes_are_bounded_and_grow() {
        let cap = auto_table_cap_mb();
        assert!((1..=AUTO_TABLE_MAX_MB).contains(&cap));
        assert_eq!(table_mb_for(None), cap);
        let small = table_mb_for(Some(1_000));
        assert_eq!(small, AUTO_TABLE_MIN_MB.min(cap));
        let big = table_mb_for(Some(40_000_000));
        assert!(big >= small && big <= cap);
        if cap >= 160 {
            assert_eq!(big, 160);
        }
    }

    #[test]
    fn the_current_table_counts_as_free() {
        if let (Some((a, _)), Some((b, _))) = (table_room(0, 1), table_room(1 << 30, 1)) {
            assert!(b > a);
        }
    }
}
