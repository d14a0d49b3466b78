//! Transports: line framing over any byte stream, the stdin/stdout pair, and a serial device that
//! is reopened with back-off when it disappears.
//!
//! Framing ([`LineReader`]): a line ends at LF; a CR just before the LF is dropped; at most
//! [`MAX_LINE`] bytes are kept per line: the rest of a longer line is discarded up to its LF and the
//! line is reported as [`FrameError::TooLong`] (memory stays bounded). A line that is not UTF-8 is
//! [`FrameError::NotUtf8`]. A last line without LF at the end of input still counts. Reads that
//! time out or are interrupted are retried.
//!
//! Output goes through a [`LineSink`], which writes whole lines only.

use super::protocol::MAX_LINE;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use std::time::Instant;

/// A line that could not be taken as a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    /// The line was longer than [`MAX_LINE`] bytes.
    #[error("line of {len} bytes is longer than {MAX_LINE} bytes; discarded")]
    TooLong {
        /// Its length in bytes, without the terminator.
        len: usize,
    },
    /// The line holds bytes that are not UTF-8.
    #[error("line is not UTF-8 (bad byte at offset {offset}); discarded")]
    NotUtf8 {
        /// Offset of the first bad byte.
        offset: usize,
    },
}

/// What the reading side delivers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// A line (without its terminator).
    Line(String),
    /// A line that broke the framing rules.
    Bad(FrameError),
    /// The end of input.
    End,
    /// A new TCP connection: the lines that follow come from it, and replies to them are written
    /// to it only (never to a later connection).
    Connected(u64),
    /// TCP connection `n` has ended (closed, lost, or taken over by a later one): replies to it
    /// can no longer be written, and no client is connected until the next `Connected`.
    Disconnected(u64),
    /// The input cannot be read and waiting will not help (a path that is not a terminal, a
    /// device the user may not open): the daemon ends with exit status 2 and this message.
    Fatal(String),
}

/// Whether a read error is worth a retry: an interruption, or a time-out unless `timeouts_fatal`.
fn retryable(e: &io::Error, timeouts_fatal: bool) -> bool {
    match e.kind() {
        io::ErrorKind::Interrupted => true,
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => !timeouts_fatal,
        _ => false,
    }
}

/// Splits a byte stream into lines with bounded memory.
#[derive(Debug)]
pub struct LineReader<R> {
    inner: BufReader<R>,
    line: Vec<u8>,
    len: usize,
    /// Drop a last line without LF at the end of input (a connection that closed mid-line).
    drop_unterminated: bool,
    /// A time-out is an error, not a retry (a socket without a read time-out: the kernel gave up
    /// on the connection).
    timeouts_fatal: bool,
}

impl<R: Read> LineReader<R> {
    /// A reader over a byte stream.
    pub fn new(inner: R) -> Self {
        LineReader {
            inner: BufReader::with_capacity(8192, inner),
            line: Vec::with_capacity(256),
            len: 0,
            drop_unterminated: false,
            timeouts_fatal: false,
        }
    }

    /// The stream read from.
    pub fn get_ref(&self) -> &R {
        self.inner.get_ref()
    }

    /// Over a network connection: a last line without LF at the end of input is dropped rather
    /// than delivered (it was cut by the disconnection), and a read that times out ends the
    /// connection (no read time-out is set, so it is the kernel giving up on the peer).
    pub fn for_connection(mut self) -> Self {
        self.drop_unterminated = true;
        self.timeouts_fatal = true;
        self
    }

    fn push(&mut self, bytes: &[u8]) {
        // Keep one byte more than the limit for a CR before the LF.
        let room = (MAX_LINE + 1).saturating_sub(self.line.len());
        self.line.extend_from_slice(&bytes[..bytes.len().min(room)]);
        self.len += bytes.len();
    }

    fn finish(&mut self) -> Result<String, FrameError> {
        let mut len = self.len;
        if self.line.last() == Some(&b'\r') && len == self.line.len() {
            self.line.pop();
            len -= 1;
        }
        let result = if len > MAX_LINE {
            Err(FrameError::TooLong { len })
        } else {
            match std::str::from_utf8(&self.line) {
                Ok(s) => Ok(s.to_string()),
                Err(e) => Err(FrameError::NotUtf8 {
                    offset: e.valid_up_to(),
                }),
            }
        };
        self.line.clear();
        self.len = 0;
        result
    }

    /// The next line; `Ok(None)` at the end of input; `Err` for a read error that is not a
    /// time-out or an interruption.
    pub fn next_line(&mut self) -> io::Result<Option<Result<String, FrameError>>> {
        loop {
            let buf = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if retryable(&e, self.timeouts_fatal) => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                if self.len == 0 {
                    return Ok(None);
                }
                if self.drop_unterminated {
                    tracing::info!(
                        "a line of {} bytes cut by the end of input dropped",
                        self.len
                    );
                    self.line.clear();
                    self.len = 0;
                    return Ok(None);
                }
                return Ok(Some(self.finish()));
            }
            match buf.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    let part = buf[..i].to_vec();
                    self.inner.consume(i + 1);
                    self.push(&part);
                    return Ok(Some(self.finish()));
                }
                None => {
                    let part = buf.to_vec();
                    self.inner.consume(part.len());
                    self.push(&part);
                }
            }
        }
    }

    /// Reads until the end of input or a read error, handing each line to `deliver`; stops early
    /// when `deliver` returns false. Returns the read error, if any.
    pub fn pump(&mut self, deliver: &mut dyn FnMut(Input) -> bool) -> io::Result<()> {
        loop {
            let input = match self.next_line()? {
                None => return Ok(()),
                Some(Ok(line)) => Input::Line(line),
                Some(Err(e)) => Input::Bad(e),
            };
            if !deliver(input) {
                return Ok(());
            }
        }
    }
}

/// What became of a line given to [`LineSink::send_line_to`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sent {
    /// Written.
    Written,
    /// Not written, and never to be: it answers a connection that is no longer the current one.
    Stale,
}

/// Where protocol lines go: whole lines only.
pub trait LineSink: Send {
    /// Writes one line and its LF, and flushes.
    fn send_line(&mut self, line: &str) -> io::Result<()>;

    /// Writes a line that answers a request of connection `session` (see [`Input::Connected`]):
    /// a sink with connections writes it only while that connection is the current one and
    /// answers [`Sent::Stale`] once another has taken its place. `None`, and sinks without
    /// connections, write it as [`LineSink::send_line`] does.
    fn send_line_to(&mut self, line: &str, session: Option<u64>) -> io::Result<Sent> {
        let _ = session;
        self.send_line(line).map(|()| Sent::Written)
    }
}

/// A sink over any writer (stdout, a pipe, a file).
#[derive(Debug)]
pub struct WriterSink<W>(pub W);

impl<W: Write + Send> LineSink for WriterSink<W> {
    fn send_line(&mut self, line: &str) -> io::Result<()> {
        let mut buf = Vec::with_capacity(line.len() + 1);
        buf.extend_from_slice(line.as_bytes());
        buf.push(b'\n');
        self.0.write_all(&buf)?;
        self.0.flush()
    }
}

/// A sink that keeps the lines (tests).
#[derive(Debug, Clone, Default)]
pub struct MemorySink(pub Arc<Mutex<Vec<String>>>);

impl LineSink for MemorySink {
    fn send_line(&mut self, line: &str) -> io::Result<()> {
        self.0
            .lock()
            .map_err(|_| io::Error::other("sink poisoned"))?
            .push(line.to_string());
        Ok(())
    }
}

/// Reads stdin to its end on the calling thread, handing lines to `deliver`.
pub fn pump_stdin(deliver: &mut dyn FnMut(Input) -> bool) {
    let mut reader = LineReader::new(io::stdin());
    if let Err(e) = reader.pump(deliver) {
        tracing::warn!("stdin read error: {e}; treating it as the end of input");
    }
    deliver(Input::End);
}

/// The device the reader has open, and how many times it was (re)opened or lost.
#[derive(Default)]
struct Link {
    port: Option<serialport::TTYPort>,
    generation: u64,
}

/// The writing half of a serial device, pointed by the reader at the device it has open.
///
/// Each clone writes through its own handle of the device (cloned from the reader's, outside any
/// lock), so a write that waits never holds up the reader. A line whose write times out or fails
/// part way is resumed where it stopped on the same device, and written whole again on a device
/// opened since.
pub struct SerialSink {
    link: Arc<Mutex<Link>>,
    own: Option<(u64, serialport::TTYPort)>,
    /// The device generation and the bytes of the current line written on it.
    progress: (u64, usize),
}

impl Default for SerialSink {
    fn default() -> Self {
        SerialSink {
            link: Arc::new(Mutex::new(Link::default())),
            own: None,
            progress: (0, 0),
        }
    }
}

impl Clone for SerialSink {
    fn clone(&self) -> Self {
        SerialSink {
            link: Arc::clone(&self.link),
            own: None,
            progress: (0, 0),
        }
    }
}

impl std::fmt::Debug for SerialSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SerialSink")
    }
}

impl SerialSink {
    fn set(&self, port: Option<serialport::TTYPort>) {
        if let Ok(mut link) = self.link.lock() {
            link.port = port;
            link.generation += 1;
        }
    }

    /// This clone's handle of the current device, and the device's generation.
    fn handle(&mut self) -> io::Result<(u64, &mut serialport::TTYPort)> {
        {
            let link = self
                .link
                .lock()
                .map_err(|_| io::Error::other("serial link lock poisoned"))?;
            if self.own.as_ref().map(|(g, _)| *g) != Some(link.generation) {
                self.own = None;
                if let Some(port) = &link.port {
                    let clone = port.try_clone_native().map_err(io::Error::from)?;
                    self.own = Some((link.generation, clone));
                }
            }
        }
        match &mut self.own {
            Some((g, port)) => Ok((*g, port)),
            None => Err(io::Error::new(
                io::ErrorKind::NotConnected,
                "serial device is not connected",
            )),
        }
    }
}

impl LineSink for SerialSink {
    fn send_line(&mut self, line: &str) -> io::Result<()> {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        let (generation, mut done) = self.progress;
        let (g, port) = self.handle()?;
        if g != generation {
            done = 0;
        }
        let result = loop {
            if done >= bytes.len() {
                break Ok(());
            }
            match port.write(&bytes[done..]) {
                Ok(0) => break Err(io::Error::from(io::ErrorKind::WriteZero)),
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        self.progress = (g, if result.is_ok() { 0 } else { done });
        result
    }
}

/// Back-off between attempts to reopen a serial device: 100 ms doubling up to 5 s.
#[derive(Debug, Clone, Copy)]
pub struct Backoff {
    next: Duration,
}

impl Backoff {
    const FIRST: Duration = Duration::from_millis(100);
    const MAX: Duration = Duration::from_secs(5);

    /// A fresh back-off.
    pub fn new() -> Self {
        Backoff { next: Self::FIRST }
    }

    /// The delay to wait now; the next one is twice as long (up to the maximum).
    pub fn step(&mut self) -> Duration {
        let d = self.next;
        self.next = (self.next * 2).min(Self::MAX);
        d
    }

    /// Back to the first delay.
    pub fn reset(&mut self) {
        self.next = Self::FIRST;
    }
}

impl Default for Backoff {
    fn default() -> Self {
        Self::new()
    }
}

/// A serial device by path and baud rate.
#[derive(Debug, Clone)]
pub struct SerialConfig {
    /// Device path, e.g. `/dev/ttyUSB0`.
    pub path: String,
    /// Baud rate.
    pub baud: u32,
}

impl SerialConfig {
    fn open(&self) -> Result<serialport::TTYPort, serialport::Error> {
        serialport::new(&self.path, self.baud)
            .timeout(Duration::from_millis(250))
            .open_native()
    }
}

/// What stops a serial device from being opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpenProblem {
    /// It may go away by waiting (the device is not there yet, is busy, ...).
    Wait(String),
    /// Waiting will not help (not a terminal, permission denied): the message says what to do.
    Fatal(String),
}

/// Checks a serial device path before opening it: missing is worth waiting for; a path that is
/// not a terminal, or that the user may not open, is not.
pub fn check_device(path: &str) -> Result<(), OpenProblem> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    use std::os::unix::io::AsRawFd;
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(OpenProblem::Wait(format!("{path} does not exist (yet)")))
        }
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
            return Err(OpenProblem::Fatal(permission_hint(path)))
        }
        Err(e) => return Err(OpenProblem::Wait(format!("{path}: {e}"))),
    };
    if !meta.file_type().is_char_device() {
        return Err(OpenProblem::Fatal(format!(
            "{path} is not a serial device (not a character device); give the path of the \
             port, e.g. /dev/ttyUSB0 or /dev/ttyACM0"
        )));
    }
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOCTTY | libc::O_NONBLOCK)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
            return Err(OpenProblem::Fatal(permission_hint(path)))
        }
        Err(e) => return Err(OpenProblem::Wait(format!("{path}: {e}"))),
    };
    // SAFETY: isatty only inspects the descriptor, which `file` keeps open.
    if unsafe { libc::isatty(file.as_raw_fd()) } != 1 {
        return Err(OpenProblem::Fatal(format!(
            "{path} is not a terminal device, so it cannot be a serial port"
        )));
    }
    Ok(())
}

fn permission_hint(path: &str) -> String {
    format!(
        "permission denied opening {path}: add the user to the group that owns it \
         (`ls -l {path}`; on Debian and Ubuntu `sudo usermod -aG dialout $USER`, then log in again)"
    )
}

/// Logs a wait for a device once per back-off step (and once a minute at the longest step),
/// rather than at every attempt.
#[derive(Debug, Default)]
struct WaitLog {
    last: Option<(Duration, Instant)>,
}

impl WaitLog {
    fn note(&mut self, path: &str, why: &str, wait: Duration) {
        let due = match self.last {
            None => true,
            Some((d, at)) => d != wait || at.elapsed() >= Duration::from_secs(60),
        };
        if due {
            tracing::warn!(
                "serial device {path} unavailable ({why}); retrying every {} ms",
                wait.as_millis()
            );
            self.last = Some((wait, Instant::now()));
        }
    }
}

/// Reads lines from a serial device for ever (until `deliver` returns false), reopening it with
/// back-off whenever it fails, and keeps `sink` pointed at the open device. A device that cannot
/// be used however long one waits ([`check_device`]) is delivered as [`Input::Fatal`].
pub fn pump_serial(cfg: &SerialConfig, sink: &SerialSink, deliver: &mut dyn FnMut(Input) -> bool) {
    let mut backoff = Backoff::new();
    let mut log = WaitLog::default();
    loop {
        let opened = match check_device(&cfg.path) {
            Ok(()) => cfg.open().map_err(|e| OpenProblem::Wait(e.to_string())),
            Err(p) => Err(p),
        };
        let port = match opened {
            Ok(p) => p,
            Err(OpenProblem::Fatal(message)) => {
                deliver(Input::Fatal(message));
                return;
            }
            Err(OpenProblem::Wait(why)) => {
                let wait = backoff.step();
                log.note(&cfg.path, &why, wait);
                std::thread::sleep(wait);
                continue;
            }
        };
        let writer = match port.try_clone_native() {
            Ok(w) => w,
            Err(e) => {
                tracing::warn!("cannot clone serial device {}: {e}", cfg.path);
                std::thread::sleep(backoff.step());
                continue;
            }
        };
        sink.set(Some(writer));
        tracing::info!("serial device {} open at {} baud", cfg.path, cfg.baud);
        backoff.reset();
        log = WaitLog::default();
        let mut reader = LineReader::new(port);
        let mut keep_going = true;
        let result = reader.pump(&mut |input| {
            keep_going = deliver(input);
            keep_going
        });
        sink.set(None);
        if !keep_going {
            return;
        }
        match result {
            Ok(()) => tracing::warn!(
                "serial device {} hung up; reopening (game state kept)",
                cfg.path
            ),
            Err(e) => tracing::warn!(
                "serial device {} lost: {e}; reopening (game state kept)",
                cfg.path
            ),
        }
        std::thread::sleep(backoff.step());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(bytes: &[u8]) -> Vec<Result<String, FrameError>> {
        let mut r = LineReader::new(bytes);
        let mut out = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            out.push(l);
        }
        out
    }

    #[test]
    fn lf_crlf_and_a_last_line_without_terminator() {
        assert_eq!(
            lines(b"ping\r\nhello\n\nquit"),
            vec![
                Ok("ping".to_string()),
                Ok("hello".to_string()),
                Ok(String::new()),
                Ok("quit".to_string())
            ]
        );
    }

    #[test]
    fn long_lines_are_discarded_and_reading_goes_on() {
        let mut input = vec![b'a'; MAX_LINE];
        input.extend_from_slice(b"\r\n");
        input.extend(vec![b'b'; MAX_LINE + 1]);
        input.extend_from_slice(b"\n");
        input.extend(vec![b'c'; 100_000]);
        input.extend_from_slice(b"\nping\n");
        let got = lines(&input);
        assert_eq!(got.len(), 4);
        assert_eq!(got[0].as_ref().map(|s| s.len()), Ok(MAX_LINE));
        assert_eq!(got[1], Err(FrameError::TooLong { len: MAX_LINE + 1 }));
        assert_eq!(got[2], Err(FrameError::TooLong { len: 100_000 }));
        assert_eq!(got[3], Ok("ping".to_string()));
    }

    #[test]
    fn bad_utf8_is_an_error() {
        assert_eq!(
            lines(b"pi\xffng\nping\n"),
            vec![
                Err(FrameError::NotUtf8 { offset: 2 }),
                Ok("ping".to_string())
            ]
        );
    }

    #[test]
    fn paths_that_waiting_cannot_fix_are_fatal() {
        assert!(matches!(
            check_device("/nonexistent/ttyUSB9"),
            Err(OpenProblem::Wait(_))
        ));
        let dir = std::env::temp_dir().join(format!("cb-transport-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("not-a-tty");
        std::fs::write(&file, "x").unwrap();
        match check_device(&file.to_string_lossy()) {
            Err(OpenProblem::Fatal(m)) => assert!(m.contains("not a serial device"), "{m}"),
            other => panic!("{other:?}"),
        }
        // A character device that is not a terminal.
        match check_device("/dev/null") {
            Err(OpenProblem::Fatal(m)) => assert!(m.contains("not a terminal"), "{m}"),
            other => panic!("{other:?}"),
        }
        std::fs::remove_dir_all(&dir).ok();
        let (_master, slave) = serialport::TTYPort::pair().unwrap();
        let name = serialport::SerialPort::name(&slave).unwrap();
        assert_eq!(check_device(&name), Ok(()));
    }

    #[test]
    fn a_serial_sink_keeps_nothing_when_no_device_is_open_and_writes_once_one_is() {
        use std::io::Read;
        let sink = SerialSink::default();
        let mut writer = sink.clone();
        let e = writer.send_line("pong").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotConnected);
        let (mut master, slave) = serialport::TTYPort::pair().unwrap();
        sink.set(Some(slave));
        writer.send_line("move C1 D2").unwrap();
        let mut buf = [0u8; 64];
        let mut got = Vec::new();
        serialport::SerialPort::set_timeout(&mut master, Duration::from_millis(100)).unwrap();
        let end = Instant::now() + Duration::from_secs(30);
        while !got.ends_with(b"\n") && Instant::now() < end {
            match master.read(&mut buf) {
                Ok(n) => got.extend(buf[..n].iter().filter(|&&b| b != b'\r')),
                Err(e) if e.kind() == io::ErrorKind::TimedOut => {}
                Err(e) => panic!("{e}"),
            }
        }
        assert_eq!(got, b"move C1 D2\n");
    }

    #[test]
    fn backoff_doubles_up_to_five_seconds() {
        let mut b = Backoff::new();
        let steps: Vec<u128> = (0..9).map(|_| b.step().as_millis()).collect();
        assert_eq!(
            steps,
            vec![100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000]
        );
        b.reset();
        assert_eq!(b.step().as_millis(), 100);
    }
}
