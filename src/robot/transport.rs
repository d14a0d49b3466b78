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

use crate::robot::protocol::MAX_LINE;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

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
}

/// Splits a byte stream into lines with bounded memory.
#[derive(Debug)]
pub struct LineReader<R> {
    inner: BufReader<R>,
    line: Vec<u8>,
    len: usize,
}

fn retryable(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::Interrupted | io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
    )
}

impl<R: Read> LineReader<R> {
    /// A reader over a byte stream.
    pub fn new(inner: R) -> Self {
        LineReader {
            inner: BufReader::with_capacity(8192, inner),
            line: Vec::with_capacity(256),
            len: 0,
        }
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
                Err(e) if retryable(&e) => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                if self.len == 0 {
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

/// Where protocol lines go: whole lines only.
pub trait LineSink: Send {
    /// Writes one line and its LF, and flushes.
    fn send_line(&mut self, line: &str) -> io::Result<()>;
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

/// The writing half of a serial device, shared with the reader that reopens it.
#[derive(Clone, Default)]
pub struct SerialSink {
    port: Arc<Mutex<Option<serialport::TTYPort>>>,
}

impl std::fmt::Debug for SerialSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SerialSink")
    }
}

impl LineSink for SerialSink {
    fn send_line(&mut self, line: &str) -> io::Result<()> {
        let mut guard = self
            .port
            .lock()
            .map_err(|_| io::Error::other("serial port lock poisoned"))?;
        match guard.as_mut() {
            Some(port) => {
                let mut buf = Vec::with_capacity(line.len() + 1);
                buf.extend_from_slice(line.as_bytes());
                buf.push(b'\n');
                port.write_all(&buf)
            }
            None => Err(io::Error::new(
                io::ErrorKind::NotConnected,
                "serial device is not connected; reply dropped",
            )),
        }
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

/// Reads lines from a serial device for ever (until `deliver` returns false), reopening it with
/// back-off whenever it fails, and keeps `sink` pointed at the open device.
pub fn pump_serial(cfg: &SerialConfig, sink: &SerialSink, deliver: &mut dyn FnMut(Input) -> bool) {
    let mut backoff = Backoff::new();
    let mut first = true;
    loop {
        let port = match cfg.open() {
            Ok(p) => p,
            Err(e) => {
                let wait = backoff.step();
                if first {
                    tracing::error!("cannot open serial device {}: {e}", cfg.path);
                    first = false;
                }
                tracing::warn!(
                    "serial device {} unavailable ({e}); retrying in {} ms",
                    cfg.path,
                    wait.as_millis()
                );
                std::thread::sleep(wait);
                continue;
            }
        };
        first = false;
        let writer = match port.try_clone_native() {
            Ok(w) => w,
            Err(e) => {
                tracing::warn!("cannot clone serial device {}: {e}", cfg.path);
                std::thread::sleep(backoff.step());
                continue;
            }
        };
        if let Ok(mut slot) = sink.port.lock() {
            *slot = Some(writer);
        }
        tracing::info!("serial device {} open at {} baud", cfg.path, cfg.baud);
        backoff.reset();
        let mut reader = LineReader::new(port);
        let mut keep_going = true;
        let result = reader.pump(&mut |input| {
            keep_going = deliver(input);
            keep_going
        });
        if let Ok(mut slot) = sink.port.lock() {
            *slot = None;
        }
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
