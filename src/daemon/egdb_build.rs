//! The endgame database built in the background of `serve`: on a machine without one, the daemon
//! builds it into its cache directory level by level (up to 4 pieces, 5, then 6), and takes each
//! level into play between moves as soon as it is complete.
//!
//! Each level is built by a child process, `checkersbot egdb build --size 8 --pieces K --dir
//! DIR`, started at the lowest priority the kernel has (`SCHED_IDLE`, nice 19, idle I/O class;
//! `serve --egdb-priority normal` keeps the daemon's own, [`BuildPriority`]):
//! it runs only on a core that nothing else wants, so it cannot take a move's time from the
//! search threads; a crash or an out-of-memory kill of the build (it is made the kernel's first
//! choice: `oom_score_adj` 1000) cannot take the daemon down; and it ends with the daemon
//! (`PR_SET_PDEATHSIG`). **While the bot searches, the build is stopped** (SIGSTOP, and SIGCONT
//! when the search is answered: [`Pauser`]): on the project's 2-core machine a process at
//! `SCHED_IDLE` priority still made 100 ms moves up to 15-30 ms late at the 99th percentile (two
//! plain busy loops at that priority did the same: the scheduler no longer pulls a waiting
//! thread onto a core it counts as busy), and stopped it costs nothing. `egdb build` writes each slice file whole under its final name and
//! resumes from the slices it finds, so a build stopped at any point goes on at the next start;
//! the daemon opens only complete levels ([`Egdb::open_complete`]).
//!
//! A level is opened on a thread of its own, also at the lowest priority and on one core (the
//! 8x8 database up to 6 pieces decompresses 784 MiB), waiting between slice files while the bot
//! searches as the build does, and handed to the event loop as
//! [`Event::EgdbBuild`]; the loop puts it in the settings, so the next search uses it (a search
//! under way keeps the database it started with). What the build does is in `status`
//! (`egdbpieces`, `egdbbuild`) and on the operator page.

use super::event::Event;
use crate::engine::egdb::probe::complete_pieces;
use crate::engine::egdb::Egdb;
use crate::rules::geometry::BoardSize;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The levels built one after the other, each a database of its own once complete: up to 4
/// pieces takes seconds, 5 about a minute and a half, 6 about half an hour (on two cores).
pub const STAGES: [u32; 3] = [4, 5, 6];

/// The machine's memory below which `--egdb-build auto` stops at 5 pieces: the 6-piece build
/// holds 2.9 GB at its peak, and the daemon then holds 784 MiB of it.
pub const SIX_PIECES_MEMORY: u64 = 6 << 30;

/// Bytes on disk of the 8x8 database up to `pieces` pieces, measured and rounded up (1.3 MB up to
/// 4, 31.6 MB up to 5, 140 MB up to 6: docs/experiments/endgame-databases.md).
pub fn footprint(pieces: u32) -> u64 {
    const MB: u64 = 1_000_000;
    match pieces {
        0..=4 => 2 * MB,
        5 => 33 * MB,
        _ => 150 * MB,
    }
}

/// Room a level needs beside what it writes: the disk is not filled to its last byte.
pub const DISK_MARGIN: u64 = 64 * 1_000_000;

/// Refuses a level the disk cannot hold, before any of it is written: `free` bytes free for the
/// daemon's user on the directory's disk, `have` bytes of slices already there (a level goes on
/// from them). The error says how much is free and how much the level needs.
pub fn disk_room(pieces: u32, free: u64, have: u64) -> Result<(), String> {
    let need = footprint(pieces).saturating_sub(have) + DISK_MARGIN;
    if free >= need {
        return Ok(());
    }
    let fewer = if pieces > STAGES[0] {
        format!(", or `--egdb-build {}` for fewer pieces", pieces - 1)
    } else {
        String::new()
    };
    Err(format!(
        "the disk has {} MB free and the database up to {pieces} pieces needs about {} MB more \
         ({} MB of it, {} MB kept free); free some space, or turn the build off \
         (`serve --egdb-build off`{fewer})",
        free / 1_000_000,
        need / 1_000_000,
        footprint(pieces).saturating_sub(have) / 1_000_000,
        DISK_MARGIN / 1_000_000,
    ))
}

/// Bytes free for an unprivileged user on the disk of `dir`, or `None` when it cannot be read.
fn free_bytes(dir: &std::path::Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs fills the struct we pass from a NUL-terminated path.
    unsafe {
        let mut st: libc::statvfs = std::mem::zeroed();
        if libc::statvfs(path.as_ptr(), &mut st) != 0 {
            return None;
        }
        Some((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
    }
}

/// Bytes of the files in `dir` (the slices a build goes on from).
fn bytes_in(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .filter_map(|e| e.ok()?.metadata().ok())
            .filter(|m| m.is_file())
            .map(|m| m.len())
            .sum()
    })
}

/// What the background build is doing, for `status` and the operator page.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BuildState {
    /// No background build (`serve --egdb-build off`, a database chosen with `--egdb`, `replay`).
    #[default]
    Off,
    /// Building the level with this many pieces (or waiting for another process that builds it).
    Building(u32),
    /// Every level it was to build is complete.
    Ready,
    /// The build of this level failed (the log says why); no more levels are built.
    Failed(u32),
}

impl BuildState {
    /// The `egdbbuild` word of `status`: `off`, `building-6`, `ready`, `failed-6`.
    pub fn word(&self) -> String {
        match self {
            BuildState::Off => "off".into(),
            BuildState::Building(k) => format!("building-{k}"),
            BuildState::Ready => "ready".into(),
            BuildState::Failed(k) => format!("failed-{k}"),
        }
    }

    /// Reads an `egdbbuild` word back.
    pub fn from_word(word: &str) -> Option<BuildState> {
        let level = |rest: &str| rest.parse().ok().filter(|&k: &u32| k > 0);
        match word {
            "off" => Some(BuildState::Off),
            "ready" => Some(BuildState::Ready),
            w => {
                if let Some(k) = w.strip_prefix("building-") {
                    level(k).map(BuildState::Building)
                } else {
                    level(w.strip_prefix("failed-")?).map(BuildState::Failed)
                }
            }
        }
    }
}

/// What the build thread tells the event loop.
#[derive(Debug)]
pub enum BuildNews {
    /// A level's build has started.
    Building(u32),
    /// A level is complete and opened: every slice up to `pieces` pieces.
    Ready {
        /// Most pieces of the database.
        pieces: u32,
        /// The database, opened under the daemon's memory cap.
        db: Arc<Egdb>,
    },
    /// A level could not be built or opened; nothing more is built.
    Failed {
        /// The level.
        pieces: u32,
        /// Why, for the log.
        why: String,
    },
    /// Every level asked for is complete.
    Done,
}

/// What to build, where and how.
#[derive(Clone, Debug)]
pub struct BuildPlan {
    /// The program to run as `PROGRAM egdb build ...` (the running `checkersbot`).
    pub program: PathBuf,
    /// The database directory (the cache, unless `serve --egdb DIR` names one).
    pub dir: PathBuf,
    /// The board size.
    pub size: BoardSize,
    /// The most pieces to build.
    pub pieces: u32,
    /// Pieces of the database the daemon already plays with (its levels are not built again).
    pub have: u32,
    /// The memory cap a level is opened with (`serve --egdb-cache`).
    pub cache_mb: usize,
    /// The CPU and I/O priority the build and the opening of its levels run at.
    pub priority: BuildPriority,
}

/// The priority of the background build (`serve --egdb-priority`). At either, the build
/// is stopped while the bot searches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BuildPriority {
    /// The lowest the kernel has (`SCHED_IDLE`, nice 19, the idle I/O class): the build takes
    /// only CPU time nothing else wants, so on a busy machine it waits.
    #[default]
    Idle,
    /// The daemon's own: the build shares the CPU with the machine's other work between the
    /// bot's moves (a machine prepared before a fair, or one that is always busy).
    Normal,
}

impl BuildPriority {
    /// Reads `idle` or `normal`.
    pub fn from_word(word: &str) -> Option<BuildPriority> {
        match word {
            "idle" => Some(BuildPriority::Idle),
            "normal" => Some(BuildPriority::Normal),
            _ => None,
        }
    }
}

impl BuildPlan {
    /// The levels still to build, in order: the stages above what the daemon has, up to the
    /// most pieces asked (which is a level of its own when it is not a stage).
    pub fn levels(&self) -> Vec<u32> {
        let mut levels: Vec<u32> = STAGES
            .iter()
            .copied()
            .filter(|&k| k < self.pieces)
            .chain(std::iter::once(self.pieces))
            .filter(|&k| k > self.have)
            .collect();
        levels.dedup();
        levels
    }
}

/// Stops the build's child process while the bot searches and lets it go on after: shared by
/// the build thread (which says when a child runs) and the event loop (which says when it
/// searches). A signal is sent only to a child that has not been reaped, so never to another
/// process that took its number.
#[derive(Clone, Debug, Default)]
pub struct Pauser(Arc<(Mutex<Pause>, Condvar)>);

#[derive(Debug, Default)]
struct Pause {
    /// The running child, until it has ended (it is reaped only after this is cleared).
    child: Option<libc::pid_t>,
    /// The daemon searches: a child is to be stopped.
    paused: bool,
}

impl Pauser {
    fn lock(&self) -> std::sync::MutexGuard<'_, Pause> {
        self.0 .0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Returns when no search holds the build (at once when none does): the opening of a
    /// level, which runs in the daemon's own process, waits here between slice files.
    pub fn wait_while_paused(&self) {
        let mut p = self.lock();
        while p.paused {
            p = self.0 .1.wait(p).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// The daemon starts (`true`) or ends (`false`) a search: the child, if any, is stopped or
    /// let go on.
    pub fn set_paused(&self, paused: bool) {
        let mut p = self.lock();
        if p.paused == paused {
            return;
        }
        p.paused = paused;
        self.0 .1.notify_all();
        if let Some(pid) = p.child {
            let sig = if paused { libc::SIGSTOP } else { libc::SIGCONT };
            // SAFETY: kill on the pid of a child that has not been reaped (see `ended`).
            unsafe { libc::kill(pid, sig) };
        }
    }

    /// Whether a search holds the build.
    pub fn is_paused(&self) -> bool {
        self.lock().paused
    }

    /// A child started: stopped at once if the daemon searches.
    fn started(&self, pid: libc::pid_t) {
        let mut p = self.lock();
        p.child = Some(pid);
        if p.paused {
            // SAFETY: as in `set_paused`.
            unsafe { libc::kill(pid, libc::SIGSTOP) };
        }
    }

    /// The child has exited and is about to be reaped: no more signals to it.
    fn ended(&self) {
        self.lock().child = None;
    }
}

/// The most pieces `--egdb-build auto` builds on a machine with `total` bytes of memory (`None`:
/// unknown): 6 with [`SIX_PIECES_MEMORY`] or more, else 5.
pub fn auto_pieces(total: Option<u64>) -> u32 {
    match total {
        Some(t) if t < SIX_PIECES_MEMORY => 5,
        _ => 6,
    }
}

/// Starts the build thread; its news arrives on `events`; `pauser` stops its children while the
/// daemon searches (give the daemon the same one: [`super::Daemon::with_build_pauser`]).
/// Returns at once.
pub fn start(plan: BuildPlan, events: Sender<Event>, pauser: Pauser) {
    let spawned = std::thread::Builder::new()
        .name("egdb-build".into())
        .spawn(move || run(&plan, &events, &pauser));
    if let Err(e) = spawned {
        tracing::warn!("cannot start the endgame database build thread: {e}; no database is built");
    }
}

fn run(plan: &BuildPlan, events: &Sender<Event>, pauser: &Pauser) {
    let tell = |news: BuildNews| events.send(Event::EgdbBuild(news)).is_ok();
    let levels = plan.levels();
    let sdir = crate::engine::egdb::store::size_dir(&plan.dir, plan.size);
    if let (Some(&first), Err(e)) = (levels.first(), std::fs::create_dir_all(&sdir)) {
        tell(BuildNews::Failed {
            pieces: first,
            why: format!("cannot create {}: {e}", sdir.display()),
        });
        return;
    }
    for pieces in levels {
        if !tell(BuildNews::Building(pieces)) {
            return;
        }
        match free_bytes(&sdir) {
            Some(free) => {
                if let Err(why) = disk_room(pieces, free, bytes_in(&sdir)) {
                    tell(BuildNews::Failed { pieces, why });
                    return;
                }
            }
            None => tracing::warn!(
                "cannot read the free space on the disk of {}; building without checking it",
                sdir.display()
            ),
        }
        let result =
            build_level(plan, pieces, pauser).and_then(|()| open_level(plan, pieces, pauser));
        match result {
            Ok(db) => {
                if !tell(BuildNews::Ready { pieces, db }) {
                    return;
                }
            }
            Err(why) => {
                tell(BuildNews::Failed { pieces, why });
                return;
            }
        }
    }
    tell(BuildNews::Done);
}

/// Prepares the build's process (after `fork`, before `exec`; `daemon` is the process that
/// forked): at [`BuildPriority::Idle`] lowers it to the lowest priority (the `SCHED_IDLE` policy,
/// nice 19 and the idle I/O class); at either, makes it the out-of-memory killer's first choice
/// and asks for SIGKILL when the thread that started it ends (the daemon's end).
///
/// Only system calls: nothing that allocates or takes a lock, as the child of a threaded
/// process must.
fn prepare_child(daemon: libc::pid_t, priority: BuildPriority) -> std::io::Result<()> {
    // SAFETY: plain system calls on the calling process with valid arguments; the strings are
    // static and NUL-terminated.
    unsafe {
        // The daemon blocks SIGINT and SIGTERM in its threads (one thread takes them); the
        // build must not inherit that, or the signal below would never end it.
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::pthread_sigmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
        // SIGKILL, not SIGTERM: a build stopped while the bot searched would keep a SIGTERM
        // pending for ever.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
        if libc::getppid() != daemon {
            // The daemon ended before the prctl: nothing is to be built.
            libc::_exit(0);
        }
        if priority == BuildPriority::Idle {
            libc::setpriority(libc::PRIO_PROCESS, 0, 19);
            let param = libc::sched_param { sched_priority: 0 };
            libc::sched_setscheduler(0, libc::SCHED_IDLE, &param);
            // ioprio_set(IOPRIO_WHO_PROCESS, self, IOPRIO_CLASS_IDLE << IOPRIO_CLASS_SHIFT)
            libc::syscall(libc::SYS_ioprio_set, 1, 0, 3 << 13);
        }
        let path = b"/proc/self/oom_score_adj\0";
        let fd = libc::open(path.as_ptr().cast(), libc::O_WRONLY);
        if fd >= 0 {
            libc::write(fd, b"1000".as_ptr().cast(), 4);
            libc::close(fd);
        }
    }
    Ok(())
}

/// The lowest priority for the calling thread (`SCHED_IDLE`, nice 19): on Linux both are
/// attributes of a thread, and threads it starts inherit them.
fn lowest_priority_thread() {
    // SAFETY: system calls on the calling thread with valid arguments.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, 19);
        let param = libc::sched_param { sched_priority: 0 };
        libc::sched_setscheduler(0, libc::SCHED_IDLE, &param);
    }
}

/// CPU time (user and system) and peak memory of the children waited for so far.
fn children_usage() -> (Duration, u64) {
    // SAFETY: getrusage fills the struct we pass.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) } != 0 {
        return (Duration::ZERO, 0);
    }
    let t = |tv: libc::timeval| {
        Duration::from_secs(tv.tv_sec.max(0) as u64) + Duration::from_micros(tv.tv_usec as u64)
    };
    (
        t(u.ru_utime) + t(u.ru_stime),
        u.ru_maxrss.max(0) as u64 * 1024,
    )
}

/// Lines of the build's log kept for the message of a failure.
const KEPT_LINES: usize = 4;

/// Runs `egdb build` for one level in a child process at the plan's priority and waits for it.
fn build_level(plan: &BuildPlan, pieces: u32, pauser: &Pauser) -> Result<(), String> {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(&plan.program);
    cmd.arg("egdb")
        .arg("build")
        .arg("--size")
        .arg(plan.size.n().to_string())
        .arg("--pieces")
        .arg(pieces.to_string())
        .arg("--dir")
        .arg(&plan.dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let daemon = std::process::id() as libc::pid_t;
    let priority = plan.priority;
    // SAFETY: the hook makes system calls only (see `prepare_child`).
    unsafe {
        cmd.pre_exec(move || prepare_child(daemon, priority));
    }
    let (cpu_before, _) = children_usage();
    let start = Instant::now();
    tracing::info!(
        "building the {} endgame database up to {pieces} pieces in {} in the background \
         (`serve --egdb-build off` turns this off)",
        plan.size,
        plan.dir.display()
    );
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start `{} egdb build`: {e}", plan.program.display()))?;
    pauser.started(child.id() as libc::pid_t);
    let mut kept: Vec<String> = Vec::new();
    if let Some(err) = child.stderr.take() {
        for line in BufReader::new(err).lines() {
            let Ok(line) = line else { break };
            tracing::debug!("egdb build: {line}");
            kept.push(line);
            if kept.len() > KEPT_LINES {
                kept.remove(0);
            }
        }
    }
    let mut summary = String::new();
    if let Some(mut out) = child.stdout.take() {
        out.read_to_string(&mut summary).ok();
    }
    // Wait for its end without reaping it, so that its number is not given to another process
    // before the pauser forgets it; then reap it.
    // SAFETY: waitid fills the siginfo we pass, for our own child.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        while libc::waitid(
            libc::P_PID,
            child.id() as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOWAIT,
        ) != 0
            && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
        {}
    }
    pauser.ended();
    let status = child
        .wait()
        .map_err(|e| format!("waiting for `egdb build`: {e}"))?;
    let (cpu_after, peak) = children_usage();
    if !status.success() {
        return Err(format!(
            "`egdb build --pieces {pieces}` ended with {status}: {}",
            kept.join(" / ")
        ));
    }
    tracing::info!(
        "endgame database up to {pieces} pieces built in {:.1} s ({:.1} s of CPU, peak memory \
         {} MiB): {}",
        start.elapsed().as_secs_f64(),
        (cpu_after.saturating_sub(cpu_before)).as_secs_f64(),
        peak >> 20,
        summary.trim()
    );
    Ok(())
}

/// Opens the complete levels of the directory on one core at the plan's priority, waiting
/// between slice files while the bot searches (the open is in the daemon's process, where no
/// SIGSTOP can hold it).
fn open_level(plan: &BuildPlan, pieces: u32, pauser: &Pauser) -> Result<Arc<Egdb>, String> {
    let have = complete_pieces(&plan.dir, plan.size);
    if have < pieces {
        return Err(format!(
            "`egdb build` ended, but {} holds the slices up to {have} pieces only",
            plan.dir.display()
        ));
    }
    let idle = plan.priority == BuildPriority::Idle;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .thread_name(|_| "egdb-open".into())
        .start_handler(move |_| {
            if idle {
                lowest_priority_thread()
            }
        })
        .build()
        .map_err(|e| format!("cannot start the thread that opens the database: {e}"))?;
    let start = Instant::now();
    let db = pool
        .install(|| {
            Egdb::open_complete_between(&plan.dir, plan.cache_mb, &|| pauser.wait_while_paused())
        })
        .map_err(|e| format!("the database built does not open: {e}"))?;
    tracing::info!(
        "endgame database up to {} pieces opened in {} ms ({} MiB, {})",
        db.max_pieces(plan.size),
        start.elapsed().as_millis(),
        db.decompressed_bytes() >> 20,
        if db.is_resident() {
            "held in memory"
        } else {
            "read block by block"
        }
    );
    Ok(Arc::new(db))
}

impl super::Daemon {
    /// Takes the background build's news: its state for `status`, and a level completed into
    /// play unless a database was chosen. The next search uses it; the database it replaces is
    /// let go on a thread of its own (freeing hundreds of MiB is not the loop's work).
    pub(super) fn egdb_news(&mut self, news: BuildNews) {
        match news {
            BuildNews::Building(k) => self.settings.egdb_build = BuildState::Building(k),
            BuildNews::Ready { pieces, db } => {
                if self.settings.egdb_chosen {
                    tracing::info!(
                        "endgame database up to {pieces} pieces built; not used, since a database \
                         was chosen (`set egdb`)"
                    );
                    return;
                }
                tracing::info!(
                    "endgame database up to {pieces} pieces in play from the next search"
                );
                self.settings.egdb_dir = Some(db.dir().to_path_buf());
                if let Some(old) = self.settings.egdb.replace(db) {
                    std::thread::Builder::new()
                        .name("egdb-drop".into())
                        .spawn(move || drop(old))
                        .ok();
                }
            }
            BuildNews::Failed { pieces, why } => {
                tracing::warn!(
                    "the endgame database up to {pieces} pieces was not built: {why}; the daemon \
                     plays with what it has (up to {} pieces)",
                    self.settings
                        .egdb
                        .as_ref()
                        .map_or(0, |db| db.max_pieces(self.settings.size))
                );
                self.settings.egdb_build = BuildState::Failed(pieces);
            }
            BuildNews::Done => self.settings.egdb_build = BuildState::Ready,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(pieces: u32, have: u32) -> BuildPlan {
        BuildPlan {
            program: PathBuf::from("checkersbot"),
            dir: PathBuf::from("/tmp"),
            size: BoardSize::S8,
            pieces,
            have,
            cache_mb: 64,
            priority: BuildPriority::Idle,
        }
    }

    #[test]
    fn levels_go_up_in_stages_from_what_the_daemon_has() {
        assert_eq!(plan(6, 0).levels(), vec![4, 5, 6]);
        assert_eq!(plan(6, 4).levels(), vec![5, 6]);
        assert_eq!(plan(6, 5).levels(), vec![6]);
        assert_eq!(plan(6, 6).levels(), Vec::<u32>::new());
        assert_eq!(plan(5, 0).levels(), vec![4, 5]);
        assert_eq!(plan(3, 0).levels(), vec![3]);
        assert_eq!(plan(4, 2).levels(), vec![4]);
    }

    #[test]
    fn auto_builds_six_pieces_only_with_the_memory_for_it() {
        assert_eq!(auto_pieces(Some(4 << 30)), 5);
        assert_eq!(auto_pieces(Some(8 << 30)), 6);
        assert_eq!(auto_pieces(None), 6);
    }

    #[test]
    fn a_level_the_disk_cannot_hold_is_refused_before_it_starts() {
        const MB: u64 = 1_000_000;
        // Room for the level and the margin: built.
        assert_eq!(disk_room(5, 200 * MB, 0), Ok(()));
        assert_eq!(disk_room(6, 220 * MB, 0), Ok(()));
        // 100 MB free is not enough for 6 pieces from nothing...
        let why = disk_room(6, 100 * MB, 0).expect_err("140 MB do not fit in 100");
        assert!(why.contains("100 MB free"), "{why}");
        assert!(why.contains("--egdb-build off"), "{why}");
        assert!(why.contains("--egdb-build 5"), "{why}");
        // ...but it is for one that goes on from 120 MB of slices already written.
        assert_eq!(disk_room(6, 100 * MB, 120 * MB), Ok(()));
        // The margin is kept even when every slice is there; the first level has no fewer.
        let why = disk_room(4, DISK_MARGIN - 1, footprint(4)).expect_err("the margin is kept");
        assert!(!why.contains("for fewer pieces"), "{why}");
    }

    #[test]
    fn the_free_space_and_the_slices_of_a_directory_are_read() {
        let dir = std::env::temp_dir().join(format!("cb-disk-room-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        std::fs::write(dir.join("a.slice"), vec![0u8; 1000]).expect("write");
        std::fs::write(dir.join("b.slice"), vec![0u8; 234]).expect("write");
        assert_eq!(bytes_in(&dir), 1234);
        assert!(free_bytes(&dir).is_some_and(|free| free > 0));
        assert_eq!(free_bytes(&dir.join("not-there")), None);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_level_is_not_opened_while_the_bot_searches() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let (dir, _) = crate::engine::egdb::build::small_test_db("pause-open");
        let slices = std::fs::read_dir(dir.join("6x6"))
            .expect("6x6 slices")
            .count();
        let pauser = Pauser::default();
        pauser.set_paused(true);
        let reads = Arc::new(AtomicUsize::new(0));
        let opening = {
            let (dir, pauser, reads) = (dir.clone(), pauser.clone(), reads.clone());
            std::thread::spawn(move || {
                Egdb::open_complete_between(&dir, 16, &|| {
                    reads.fetch_add(1, Ordering::SeqCst);
                    pauser.wait_while_paused();
                })
            })
        };
        // The opening reaches its first slice file and waits there for as long as the search.
        let start = Instant::now();
        while reads.load(Ordering::SeqCst) == 0 && start.elapsed() < Duration::from_secs(60) {
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(reads.load(Ordering::SeqCst), 1);
        assert!(!opening.is_finished());
        // The search answered: it goes on and opens every slice.
        pauser.set_paused(false);
        let db = opening
            .join()
            .expect("no panic")
            .expect("the database opens");
        assert_eq!(db.max_pieces(BoardSize::S6), 4);
        assert!(
            reads.load(Ordering::SeqCst) >= slices,
            "{} of {slices}",
            reads.load(Ordering::SeqCst)
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn build_state_words_read_back() {
        for s in [
            BuildState::Off,
            BuildState::Building(6),
            BuildState::Ready,
            BuildState::Failed(5),
        ] {
            assert_eq!(BuildState::from_word(&s.word()), Some(s));
        }
        assert_eq!(BuildState::from_word("building-x"), None);
        assert_eq!(BuildState::from_word("failed-0"), None);
    }
}
