//! The simulator's side of the link to a real daemon: the daemon started as a child process and
//! spoken to over a pipe (its stdin and stdout), a pseudo-terminal standing in for a serial cable
//! (reached through a symbolic link, as a udev rule names a USB adapter, so that a cable pulled
//! and plugged in again is a new terminal under the same name), or TCP on the loopback address.
//!
//! Every transport delivers the daemon's lines through a reader thread into a channel, so reading
//! with a time limit is the same everywhere.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// Which transport the daemon speaks on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Transport {
    /// The daemon's stdin and stdout.
    Pipe,
    /// `serve --serial LINK`, LINK a symbolic link to a pseudo-terminal.
    Serial,
    /// `serve --listen 127.0.0.1:PORT`.
    Tcp,
}

impl Transport {
    /// The transport's word (`pipe`, `serial`, `tcp`).
    pub fn word(self) -> &'static str {
        match self {
            Transport::Pipe => "pipe",
            Transport::Serial => "serial",
            Transport::Tcp => "tcp",
        }
    }

    /// Reads a transport's word.
    pub fn from_word(word: &str) -> Option<Transport> {
        match word {
            "pipe" => Some(Transport::Pipe),
            "serial" => Some(Transport::Serial),
            "tcp" => Some(Transport::Tcp),
            _ => None,
        }
    }
}

/// How long to wait for the daemon to come up (open its device, listen).
const START_PATIENCE: Duration = Duration::from_secs(20);

/// The reader thread of the current connection: it reads lines into the daemon's one channel
/// until its source ends or `stop` is set (checked whenever a read times out). A line it read
/// before it noticed the stop still arrives: on a real cable, bytes already on the wire reach the
/// robot.
struct Reader {
    stop: Arc<AtomicBool>,
}

impl Reader {
    fn spawn<R: Read + Send + 'static>(source: R, tx: Sender<String>) -> Reader {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        thread::spawn(move || read_lines(source, &tx, &flag));
        Reader { stop }
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn read_lines<R: Read>(source: R, tx: &Sender<String>, stop: &AtomicBool) {
    let mut reader = BufReader::new(source);
    let mut buf = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) => return,
            Ok(_) if buf.ends_with(b"\n") => {
                let line = String::from_utf8_lossy(&buf);
                let line = line.trim_end_matches(['\n', '\r']).to_string();
                buf.clear();
                if tx.send(line).is_err() {
                    return;
                }
            }
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::TimedOut
                        | io::ErrorKind::WouldBlock
                        | io::ErrorKind::Interrupted
                ) => {}
            Err(_) => return,
        }
    }
}

/// The writing half of the current connection.
enum Writer {
    Pipe(ChildStdin),
    Serial(serialport::TTYPort),
    Tcp(TcpStream),
    /// The link is broken (cable out).
    None,
}

/// A daemon under test and the link to it.
pub struct Daemon {
    child: Child,
    transport: Transport,
    writer: Writer,
    reader: Option<Reader>,
    lines: Receiver<String>,
    tx: Sender<String>,
    /// A line taken from the channel by [`Daemon::has_reply`] and not yet read.
    peeked: Option<String>,
    /// The serial link's name (a symbolic link) and the terminal's slave kept open, so that the
    /// terminal lives while the daemon reopens it.
    serial: Option<(PathBuf, std::os::fd::OwnedFd)>,
    port: u16,
    dir: PathBuf,
}

impl Daemon {
    /// Starts `program serve ARGS` on `transport`; `dir` is a fresh directory for the serial
    /// link's name. Waits until the daemon answers `ping`.
    pub fn start(
        program: &Path,
        args: &[String],
        transport: Transport,
        dir: &Path,
    ) -> io::Result<Daemon> {
        std::fs::create_dir_all(dir)?;
        let mut cmd = Command::new(program);
        cmd.arg("serve").args(args).stderr(Stdio::null());
        let mut port = 0;
        let mut serial = None;
        match transport {
            Transport::Pipe => {
                cmd.stdin(Stdio::piped()).stdout(Stdio::piped());
            }
            Transport::Serial => {
                let link = dir.join("tty");
                cmd.arg("--serial").arg(&link);
                cmd.stdin(Stdio::null()).stdout(Stdio::null());
                serial = Some(link);
            }
            Transport::Tcp => {
                port = free_port()?;
                cmd.arg("--listen").arg(format!("127.0.0.1:{port}"));
                cmd.stdin(Stdio::null()).stdout(Stdio::null());
            }
        }
        let (tx, lines) = channel();
        let mut d = Daemon {
            child: cmd.spawn()?,
            transport,
            writer: Writer::None,
            reader: None,
            lines,
            tx,
            peeked: None,
            serial: None,
            port,
            dir: dir.to_path_buf(),
        };
        match transport {
            Transport::Pipe => {
                let stdin = d.child.stdin.take().ok_or_else(|| other("no stdin"))?;
                let stdout = d.child.stdout.take().ok_or_else(|| other("no stdout"))?;
                d.writer = Writer::Pipe(stdin);
                d.reader = Some(Reader::spawn(stdout, d.tx.clone()));
            }
            Transport::Serial => {
                if let Some(link) = serial {
                    d.plug(&link)?;
                }
            }
            Transport::Tcp => d.connect()?,
        }
        d.sync("start", START_PATIENCE)?;
        Ok(d)
    }

    /// The transport.
    pub fn transport(&self) -> Transport {
        self.transport
    }

    /// Writes one line (a broken link takes nothing: it is lost, as on a pulled cable).
    pub fn send(&mut self, line: &str) -> io::Result<()> {
        let bytes = format!("{line}\n");
        let result = match &mut self.writer {
            Writer::Pipe(w) => w.write_all(bytes.as_bytes()).and_then(|_| w.flush()),
            Writer::Serial(w) => write_all_patiently(w, bytes.as_bytes()),
            Writer::Tcp(w) => w.write_all(bytes.as_bytes()),
            Writer::None => Ok(()),
        };
        result
    }

    /// The next final reply (not an `info` line) within `within`, or `None`.
    pub fn final_reply(&mut self, within: Duration) -> Option<String> {
        if let Some(line) = self.peeked.take() {
            return Some(line);
        }
        let end = Instant::now() + within;
        loop {
            let left = end.checked_duration_since(Instant::now())?;
            match self.lines.recv_timeout(left) {
                Ok(line) if line.starts_with("info ") => continue,
                Ok(line) => return Some(line),
                Err(RecvTimeoutError::Timeout) => return None,
                // Not reached: the daemon holds a sender for its whole life.
                Err(RecvTimeoutError::Disconnected) => return None,
            }
        }
    }

    /// Whether a final reply has come and is waiting to be read.
    pub fn has_reply(&mut self) -> bool {
        if self.peeked.is_none() {
            while let Ok(line) = self.lines.try_recv() {
                if !line.starts_with("info ") {
                    self.peeked = Some(line);
                    break;
                }
            }
        }
        self.peeked.is_some()
    }

    /// Breaks the link: the serial cable pulled (the terminal gone, its name removed) or the TCP
    /// connection closed. Nothing happens on a pipe.
    pub fn pull(&mut self) {
        match self.transport {
            Transport::Pipe => {}
            Transport::Serial => {
                self.writer = Writer::None;
                self.reader = None;
                if let Some((link, _slave)) = self.serial.take() {
                    let _ = std::fs::remove_file(&link);
                }
            }
            Transport::Tcp => {
                if let Writer::Tcp(s) = &self.writer {
                    let _ = s.shutdown(std::net::Shutdown::Both);
                }
                self.writer = Writer::None;
                self.reader = None;
            }
        }
    }

    /// Restores a broken link: a new terminal under the same name, or a new connection (which
    /// resynchronises with `ping`). A move the daemon found meanwhile comes by itself on the
    /// serial link; over TCP the caller asks for it with `repeat`.
    pub fn replug(&mut self) -> io::Result<()> {
        match self.transport {
            Transport::Pipe => Ok(()),
            Transport::Serial => {
                let link = self.dir.join("tty");
                self.plug(&link)
            }
            Transport::Tcp => {
                self.connect()?;
                self.sync("replug", START_PATIENCE)
            }
        }
    }

    /// A new pseudo-terminal named by the symbolic link `link`.
    fn plug(&mut self, link: &Path) -> io::Result<()> {
        let (master, slave, path) = pty_pair()?;
        let _ = std::fs::remove_file(link);
        std::os::unix::fs::symlink(&path, link)?;
        let reading = master.try_clone_native().map_err(io::Error::other)?;
        self.reader = Some(Reader::spawn(reading, self.tx.clone()));
        self.writer = Writer::Serial(master);
        self.serial = Some((link.to_path_buf(), slave));
        Ok(())
    }

    fn connect(&mut self) -> io::Result<()> {
        let end = Instant::now() + START_PATIENCE;
        loop {
            match TcpStream::connect(("127.0.0.1", self.port)) {
                Ok(s) => {
                    s.set_nodelay(true)?;
                    s.set_read_timeout(Some(Duration::from_millis(100)))?;
                    self.reader = Some(Reader::spawn(s.try_clone()?, self.tx.clone()));
                    self.writer = Writer::Tcp(s);
                    return Ok(());
                }
                Err(e) if Instant::now() >= end => return Err(e),
                Err(_) => thread::sleep(Duration::from_millis(20)),
            }
        }
    }

    /// Sends `ping TOKEN` until `pong TOKEN` comes (the daemon may still be opening its device),
    /// dropping every line before it.
    fn sync(&mut self, token: &str, patience: Duration) -> io::Result<()> {
        let end = Instant::now() + patience;
        let want = format!("pong {token}");
        while Instant::now() < end {
            self.send(&format!("ping {token}"))?;
            let step = Instant::now() + Duration::from_millis(300);
            while let Some(line) = self.final_reply(step.saturating_duration_since(Instant::now()))
            {
                if line == want {
                    // Answers to earlier copies of the ping.
                    while self.final_reply(Duration::from_millis(50)).is_some() {}
                    return Ok(());
                }
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(other(&format!("the daemon ended: {status}")));
            }
        }
        Err(other("the daemon did not answer ping"))
    }

    /// Ends the daemon: `quit`, then a kill if it has not ended within a second.
    pub fn stop(mut self) {
        let _ = self.send("quit");
        let end = Instant::now() + Duration::from_secs(1);
        while Instant::now() < end {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn other(what: &str) -> io::Error {
    io::Error::other(what.to_string())
}

/// A port that was free a moment ago on the loopback address.
fn free_port() -> io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Writes every byte to a terminal whose writes time out while its reader is slow.
fn write_all_patiently(w: &mut serialport::TTYPort, mut bytes: &[u8]) -> io::Result<()> {
    let end = Instant::now() + Duration::from_secs(10);
    while !bytes.is_empty() {
        match w.write(bytes) {
            Ok(n) => bytes = &bytes[n..],
            Err(e) if e.kind() == io::ErrorKind::TimedOut && Instant::now() < end => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// A pseudo-terminal: its master (the robot's end), the slave kept open so that the terminal
/// lives while the daemon opens and reopens it, and the slave's path. Raw from the start, as a
/// serial line is.
pub fn pty_pair() -> io::Result<(serialport::TTYPort, std::os::fd::OwnedFd, String)> {
    use std::ffi::CStr;
    use std::os::fd::{FromRawFd, IntoRawFd, OwnedFd};
    let check = |r: libc::c_int| {
        if r < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(r)
        }
    };
    // SAFETY: plain libc calls on descriptors opened here; each is owned (and so closed) as soon
    // as it exists, and `name` is a NUL-terminated buffer that ptsname_r fills.
    unsafe {
        let master = check(libc::posix_openpt(
            libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC,
        ))?;
        let master_fd = OwnedFd::from_raw_fd(master);
        check(libc::grantpt(master))?;
        check(libc::unlockpt(master))?;
        let mut name = [0 as libc::c_char; 128];
        if libc::ptsname_r(master, name.as_mut_ptr(), name.len()) != 0 {
            return Err(io::Error::last_os_error());
        }
        let path_c = CStr::from_ptr(name.as_ptr());
        let slave = check(libc::open(
            path_c.as_ptr(),
            libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC,
        ))?;
        let slave_fd = OwnedFd::from_raw_fd(slave);
        let mut termios = std::mem::zeroed::<libc::termios>();
        check(libc::tcgetattr(slave, &mut termios))?;
        libc::cfmakeraw(&mut termios);
        check(libc::tcsetattr(slave, libc::TCSANOW, &termios))?;
        let path = path_c.to_string_lossy().into_owned();
        let mut master = serialport::TTYPort::from_raw_fd(master_fd.into_raw_fd());
        serialport::SerialPort::set_timeout(&mut master, Duration::from_millis(100))
            .map_err(io::Error::other)?;
        Ok((master, slave_fd, path))
    }
}
