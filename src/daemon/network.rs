//! The daemon over TCP (`serve --listen`): one client at a time, the game kept between clients.
//!
//! - [`listen_address`] reads the `--listen` value: a port alone (`5555`, `:5555`) is bound to the
//!   loopback address 127.0.0.1, so the daemon is reachable from other machines only when an
//!   address is given explicitly (`0.0.0.0:5555`, `192.168.1.20:5555`, `[::]:5555`).
//! - [`pump_tcp`] accepts clients on a thread of its own and reads the current client's lines on
//!   the calling thread. A new connection is a *candidate* until it sends its first valid
//!   request (lines that do not parse are answered with their error on that connection; blank
//!   and comment lines wait): that request **takes over**: the old client gets one line,
//!   [`taken_over_line`], and is closed (so a client that vanished, or holds the slot idle,
//!   never locks the robot out), while a port probe or a health check that connects and closes
//!   takes nothing. With a token ([`TcpOptions::token`], `serve --token-file`) the first request
//!   must be `hello TOKEN`; anything else is answered `error unauthorized` and closed. At most
//!   [`MAX_CANDIDATES`] candidates wait at once, each at most [`FIRST_REQUEST_WAIT`]. Each
//!   connection that takes over is delivered as [`Input::Connected`] before its lines: replies
//!   go to the connection that asked only, never to a later one. When a client ends its input (closes, or half-closes after its last
//!   request), the replies to everything it sent are written before the connection is closed;
//!   the daemon keeps its game and waits for the next client; a request line cut by the
//!   disconnection is dropped; the end of a connection is not the end of input.
//! - A client that vanished without closing is dropped after [`DEFAULT_TIMEOUT`] (25 s; the
//!   `timeout` of [`TcpOptions`]): keep-alive probes while the connection is idle, and
//!   `TCP_USER_TIMEOUT` while replies are in flight unacknowledged.
//! - [`TcpSink`] writes to the current client. While there is none, writes fail with
//!   `NotConnected`, so the writer ([`crate::daemon::outbox`]) keeps the lines until a client
//!   connects; lines that answer an earlier connection are then dropped ([`Sent::Stale`]). A
//!   line cut short is finished on the same connection.

use super::outbox::FlowControl;
use super::protocol::{Command, ErrorCode, ProtocolError};
use super::transport::{FrameError, Input, LineReader, LineSink, Sent};
use std::io::{self, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The line a client gets when another client takes its connection over, before it is closed.
pub fn taken_over_line(by: &str) -> String {
    format!(
        "error taken-over another client ({by}) connected and took over; this connection is closed"
    )
}

/// Connections that have not sent their first request yet, at most; more are refused at once.
pub const MAX_CANDIDATES: usize = 8;

/// How long a new connection may take to send its first request before it is closed.
pub const FIRST_REQUEST_WAIT: Duration = Duration::from_secs(10);

/// The shortest token `serve --token-file` accepts.
pub const MIN_TOKEN_LEN: usize = 16;

/// How long a write to a client may wait before it counts as timed out (the reply is kept).
const WRITE_TIMEOUT: Duration = Duration::from_secs(1);

/// How long a client that vanished keeps the connection: about 25 s.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(25);

/// How long the replies to a client that ended its input may fail to be written before the
/// connection is closed anyway.
const DRAIN_PATIENCE: Duration = Duration::from_secs(2);

/// Settings of the TCP transport.
#[derive(Clone)]
pub struct TcpOptions {
    /// How long a client that vanished (no acknowledgement, no keep-alive answer) keeps the
    /// connection before it is dropped.
    pub timeout: Duration,
    /// The shared secret a connection must send with `hello` before anything else (`None`: the
    /// first valid request of any connection takes over).
    pub token: Option<String>,
}

impl Default for TcpOptions {
    fn default() -> Self {
        TcpOptions {
            timeout: DEFAULT_TIMEOUT,
            token: None,
        }
    }
}

impl std::fmt::Debug for TcpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the token itself.
        f.debug_struct("TcpOptions")
            .field("timeout", &self.timeout)
            .field("token", &self.token.as_ref().map(|_| "(set)"))
            .finish()
    }
}

/// Reads the token of `serve --token-file`: the file's first line, trimmed: [`MIN_TOKEN_LEN`] to
/// 64 letters, digits, `-`, `_`, `.` or `:` (it travels as one word of a request: `hello TOKEN`).
pub fn read_token(path: &std::path::Path) -> Result<String, String> {
    let bytes = crate::files::read_regular(path, 4096).map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&bytes);
    let token = text.lines().next().unwrap_or("").trim();
    let is_word = matches!(
        Command::parse(&format!("hello {token}")),
        Ok(Some(Command::Hello(Some(ref t)))) if t == token
    );
    if token.len() < MIN_TOKEN_LEN || !is_word {
        return Err(format!(
            "{}: the token must be one line of {MIN_TOKEN_LEN} to {} letters, digits, '-', '_', \
             '.' or ':' (e.g. od -An -tx1 -N24 /dev/urandom | tr -d ' \\n')",
            path.display(),
            super::protocol::MAX_TOKEN
        ));
    }
    Ok(token.to_string())
}

/// Whether two tokens are equal, in a time that does not depend on where they differ.
fn same_token(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

/// Reads a `--listen` value: `PORT`, `:PORT` (both on 127.0.0.1), `HOST:PORT` or `[V6]:PORT`.
/// Host names are resolved; the first address is taken.
pub fn listen_address(spec: &str) -> Result<SocketAddr, String> {
    let spec = spec.trim();
    let port_only = spec.strip_prefix(':').unwrap_or(spec);
    if !port_only.is_empty() && port_only.bytes().all(|b| b.is_ascii_digit()) {
        return port_only
            .parse::<u16>()
            .map(|port| SocketAddr::from(([127, 0, 0, 1], port)))
            .map_err(|_| format!("port {port_only} is out of range (0 to 65535)"));
    }
    if let Ok(addr) = spec.parse::<SocketAddr>() {
        return Ok(addr);
    }
    match spec.to_socket_addrs() {
        Ok(mut addrs) => addrs
            .next()
            .ok_or_else(|| format!("{spec} resolves to no address")),
        Err(e) => Err(format!(
            "cannot read listen address '{spec}' ({e}); give PORT, :PORT or HOST:PORT"
        )),
    }
}

/// The client connected now, and how many connections there have been.
#[derive(Default)]
struct Link {
    stream: Option<TcpStream>,
    generation: u64,
}

/// The writing half of the current TCP client (clones share the client).
#[derive(Clone, Default)]
pub struct TcpSink {
    link: Arc<Mutex<Link>>,
    /// The connection generation and the bytes of the current line written on it.
    progress: (u64, usize),
}

impl std::fmt::Debug for TcpSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TcpSink")
    }
}

impl TcpSink {
    /// Makes `stream` the current client: returns its connection number and the client it
    /// replaces, if any.
    fn take_over(&self, stream: &TcpStream) -> io::Result<(u64, Option<TcpStream>)> {
        let mut link = self
            .link
            .lock()
            .map_err(|_| io::Error::other("tcp link lock poisoned"))?;
        let old = link.stream.replace(stream.try_clone()?);
        link.generation += 1;
        Ok((link.generation, old))
    }

    /// Closes connection `generation` if it is still the current one.
    fn disconnect(&self, generation: u64) {
        if let Ok(mut link) = self.link.lock() {
            if link.generation == generation {
                if let Some(s) = link.stream.take() {
                    s.shutdown(Shutdown::Both).ok();
                }
            }
        }
    }

    /// Whether connection `generation` is still the current one.
    fn is_current(&self, generation: u64) -> bool {
        self.link
            .lock()
            .map(|l| l.generation == generation && l.stream.is_some())
            .unwrap_or(false)
    }

    /// A handle of the current client and its generation.
    fn handle(&self) -> io::Result<(u64, TcpStream)> {
        let link = self
            .link
            .lock()
            .map_err(|_| io::Error::other("tcp link lock poisoned"))?;
        match &link.stream {
            Some(s) => Ok((link.generation, s.try_clone()?)),
            None => Err(io::Error::new(
                io::ErrorKind::NotConnected,
                "no client is connected",
            )),
        }
    }
}

impl LineSink for TcpSink {
    fn send_line(&mut self, line: &str) -> io::Result<()> {
        self.send_line_to(line, None).map(|_| ())
    }

    fn send_line_to(&mut self, line: &str, session: Option<u64>) -> io::Result<Sent> {
        // A connection that has ended never comes back (a new one gets a new number): its
        // replies are stale at once, not kept until the next client connects.
        if let Some(s) = session {
            if !self.is_current(s) {
                return Ok(Sent::Stale);
            }
        }
        let (g, mut stream) = self.handle()?;
        if session.is_some_and(|s| s != g) {
            return Ok(Sent::Stale);
        }
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        let (generation, mut done) = self.progress;
        if g != generation {
            done = 0;
        }
        let result = loop {
            if done >= bytes.len() {
                break Ok(());
            }
            match stream.write(&bytes[done..]) {
                Ok(0) => break Err(io::Error::from(io::ErrorKind::WriteZero)),
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        self.progress = (g, if result.is_ok() { 0 } else { done });
        result.map(|()| Sent::Written).map_err(|e| match e.kind() {
            // The client has gone, not the output. (A write time-out is `WouldBlock`; `TimedOut`
            // is the kernel giving up on the peer: TCP_USER_TIMEOUT.)
            io::ErrorKind::BrokenPipe
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::TimedOut
            | io::ErrorKind::WriteZero => {
                if self.is_current(g) {
                    tracing::warn!("client lost ({e}): connection {g} dropped");
                }
                self.disconnect(g);
                io::Error::new(io::ErrorKind::NotConnected, e)
            }
            _ => e,
        })
    }
}

/// A connection that has taken over: its number, its reader (holding what it sent after its
/// first request) and that first request.
type Promoted = (u64, LineReader<TcpStream>, String);

/// Accepts clients on `listener` for ever and reads the current one's lines, handing them to
/// `deliver` (each connection starts with [`Input::Connected`]), until `deliver` returns false.
/// A new client takes over from the current one with its first valid request (see the module
/// documentation). When a client ends its input, `flow` (the daemon's, when given) is waited on
/// until every request read from it is answered and written.
pub fn pump_tcp(
    listener: TcpListener,
    sink: &TcpSink,
    options: TcpOptions,
    flow: Option<FlowControl>,
    deliver: &mut dyn FnMut(Input) -> bool,
) {
    let (tx, rx) = std::sync::mpsc::channel::<Promoted>();
    let accepting = sink.clone();
    let spawned = std::thread::Builder::new()
        .name("accept".into())
        .spawn(move || accept_loop(&listener, &accepting, &options, &tx));
    if let Err(e) = spawned {
        deliver(Input::Fatal(format!("cannot start the accept thread: {e}")));
        return;
    }
    while let Ok((generation, mut reader, first)) = rx.recv() {
        if !sink.is_current(generation) {
            // Taken over already by a later connection, before it was read from.
            continue;
        }
        let peer = peer_name(reader.get_ref());
        tracing::info!("client {peer} connected (connection {generation})");
        if !deliver(Input::Connected(generation)) || !deliver(Input::Line(first)) {
            sink.disconnect(generation);
            return;
        }
        let mut keep_going = true;
        let result = reader.pump(&mut |input| {
            // What a connection sent is not handed on once it has been replaced or dropped (its
            // replies could go nowhere): a flood still buffered from a client that went is not
            // worked through.
            if !sink.is_current(generation) {
                return false;
            }
            keep_going = deliver(input);
            keep_going
        });
        if !keep_going {
            sink.disconnect(generation);
            return;
        }
        match result {
            Ok(()) if sink.is_current(generation) => {
                // Closed or half-closed: what it asked is answered first.
                let written = flow.as_ref().is_none_or(|f| {
                    f.wait_drained(DRAIN_PATIENCE, &|| !sink.is_current(generation))
                });
                tracing::info!(
                    "client {peer} ended its input{}; game kept, waiting for the next",
                    if written {
                        ""
                    } else {
                        " (some replies could not be written)"
                    }
                );
            }
            // Closed by the daemon: taken over, or lost on a write (logged there).
            Ok(()) => tracing::info!("client {peer} closed; game kept"),
            Err(e) => tracing::warn!("client {peer} lost ({e}); game kept, waiting for the next"),
        }
        sink.disconnect(generation);
        if !deliver(Input::Disconnected(generation)) {
            return;
        }
    }
}

fn peer_name(stream: &TcpStream) -> String {
    stream
        .peer_addr()
        .map(|a| a.to_string())
        .unwrap_or_else(|_| "?".into())
}

/// Counts a candidate connection while it lives.
struct Waiting(Arc<AtomicUsize>);

impl Drop for Waiting {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

fn accept_loop(
    listener: &TcpListener,
    sink: &TcpSink,
    options: &TcpOptions,
    promoted: &Sender<Promoted>,
) {
    let waiting: Arc<AtomicUsize> = Arc::default();
    // Taking the link and queueing the connection happen in one step, so that connections reach
    // the reader in the order they took over.
    let promote: Arc<Mutex<()>> = Arc::default();
    for stream in listener.incoming() {
        let mut stream = match stream {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!("accepting a client failed: {e}");
                // E.g. out of file descriptors: do not spin.
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
        };
        stream.set_nodelay(true).ok();
        dead_peer_timeouts(&stream, options.timeout);
        stream.set_write_timeout(Some(WRITE_TIMEOUT)).ok();
        let peer = peer_name(&stream);
        if waiting.fetch_add(1, Ordering::SeqCst) >= MAX_CANDIDATES {
            waiting.fetch_sub(1, Ordering::SeqCst);
            tracing::warn!("client {peer} refused: {MAX_CANDIDATES} new connections wait already");
            let e = ProtocolError::new(
                ErrorCode::Busy,
                format!(
                    "{MAX_CANDIDATES} new connections wait to send their first request; try again"
                ),
            );
            stream.write_all(format!("{}\n", e.reply()).as_bytes()).ok();
            stream.shutdown(Shutdown::Both).ok();
            continue;
        }
        let counted = Waiting(Arc::clone(&waiting));
        let (sink, token, promoted, promote) = (
            sink.clone(),
            options.token.clone(),
            promoted.clone(),
            Arc::clone(&promote),
        );
        let spawned = std::thread::Builder::new()
            .name("candidate".into())
            .spawn(move || {
                let _counted = counted;
                let Some((reader, first)) = first_request(stream, &peer, token.as_deref()) else {
                    return;
                };
                let Ok(_in_order) = promote.lock() else {
                    return;
                };
                match sink.take_over(reader.get_ref()) {
                    Ok((generation, old)) => {
                        if let Some(mut old) = old {
                            tracing::warn!(
                                "client {peer} takes over from client {}",
                                peer_name(&old)
                            );
                            old.write_all(format!("{}\n", taken_over_line(&peer)).as_bytes())
                                .ok();
                            old.shutdown(Shutdown::Both).ok();
                        }
                        promoted.send((generation, reader, first)).ok();
                    }
                    Err(e) => tracing::warn!("cannot take client {peer}: {e}"),
                }
            });
        if let Err(e) = spawned {
            // The closure and its count went with the failed spawn.
            tracing::warn!("cannot serve a new client: {e}");
        }
    }
}

/// Reads a new connection until its first valid request (see the module documentation):
/// returns its reader and that request (`hello` for `hello TOKEN`: the token goes no further),
/// or `None` when it closed, stayed silent for [`FIRST_REQUEST_WAIT`] or was refused.
fn first_request(
    stream: TcpStream,
    peer: &str,
    token: Option<&str>,
) -> Option<(LineReader<TcpStream>, String)> {
    stream.set_read_timeout(Some(FIRST_REQUEST_WAIT)).ok();
    let mut writer = stream.try_clone().ok()?;
    let mut answer = |e: ProtocolError| {
        writer
            .write_all(format!("{}\n", e.reply()).as_bytes())
            .is_ok()
    };
    let mut reader = LineReader::new(stream).for_connection();
    let mut first = None;
    let mut refused = false;
    let read = reader.pump(&mut |input| match input {
        Input::Line(line) => match Command::parse(&line) {
            Ok(None) => true,
            Err(e) => answer(e),
            Ok(Some(cmd)) => {
                match (token, cmd) {
                    (None, _) => first = Some(line),
                    (Some(t), Command::Hello(Some(given))) if same_token(t, &given) => {
                        first = Some("hello".to_string());
                    }
                    (Some(_), _) => {
                        refused = true;
                        answer(ProtocolError::new(
                            ErrorCode::Unauthorized,
                            "this daemon needs its token first: send hello TOKEN (serve --token-file)",
                        ));
                    }
                }
                false
            }
        },
        Input::Bad(e) => answer(ProtocolError::new(
            match e {
                FrameError::TooLong { .. } => ErrorCode::LineTooLong,
                FrameError::NotUtf8 { .. } => ErrorCode::NotUtf8,
            },
            e.to_string(),
        )),
        _ => false,
    });
    match (read, first) {
        (Ok(()), Some(first)) if !refused => {
            reader.get_ref().set_read_timeout(None).ok();
            Some((reader, first))
        }
        (result, _) => {
            if refused {
                tracing::warn!("client {peer} refused: no valid token");
            } else {
                let why = result.err().map_or("closed".into(), |e| e.to_string());
                tracing::debug!("connection from {peer} ended before a request ({why})");
            }
            reader.get_ref().shutdown(Shutdown::Both).ok();
            None
        }
    }
}

/// Makes a client that vanished without closing (a vision computer switched off, a cable
/// pulled) give the connection up after about `timeout`: keep-alive probes while it is idle
/// (after 2/5 of it, then every 1/5, 3 lost), and `TCP_USER_TIMEOUT` while data is in flight
/// unacknowledged (keep-alive does not probe then).
#[cfg(target_os = "linux")]
fn dead_peer_timeouts(stream: &TcpStream, timeout: Duration) {
    use std::os::unix::io::AsRawFd;
    let fd = stream.as_raw_fd();
    let set = |level: libc::c_int, name: libc::c_int, value: libc::c_int| {
        // SAFETY: `fd` is an open socket that `stream` keeps; the value is a valid c_int whose
        // size is passed.
        let r = unsafe {
            libc::setsockopt(
                fd,
                level,
                name,
                (&value as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
        if r != 0 {
            tracing::debug!("setsockopt {name}: {}", io::Error::last_os_error());
        }
    };
    let secs = timeout.as_secs().clamp(1, 3600) as libc::c_int;
    let ms = timeout.as_millis().clamp(1000, 3_600_000) as libc::c_int;
    set(libc::SOL_SOCKET, libc::SO_KEEPALIVE, 1);
    set(libc::IPPROTO_TCP, libc::TCP_KEEPIDLE, (secs * 2 / 5).max(1));
    set(libc::IPPROTO_TCP, libc::TCP_KEEPINTVL, (secs / 5).max(1));
    set(libc::IPPROTO_TCP, libc::TCP_KEEPCNT, 3);
    set(libc::IPPROTO_TCP, libc::TCP_USER_TIMEOUT, ms);
}

#[cfg(not(target_os = "linux"))]
fn dead_peer_timeouts(_: &TcpStream, _: Duration) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_port_alone_is_loopback_and_an_address_is_kept() {
        let lo = |p| SocketAddr::from(([127, 0, 0, 1], p));
        assert_eq!(listen_address("5555"), Ok(lo(5555)));
        assert_eq!(listen_address(":5555"), Ok(lo(5555)));
        assert_eq!(
            listen_address("0.0.0.0:5555"),
            Ok(SocketAddr::from(([0, 0, 0, 0], 5555)))
        );
        assert_eq!(
            listen_address("[::1]:7"),
            Ok("[::1]:7".parse::<SocketAddr>().unwrap())
        );
        assert!(listen_address("70000").is_err());
        assert!(listen_address("no such host name:1").is_err());
        assert!(listen_address("").is_err());
    }
}
