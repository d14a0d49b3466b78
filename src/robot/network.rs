//! The daemon over TCP (`serve --listen`): one client at a time, the game kept between clients.
//!
//! - [`listen_address`] reads the `--listen` value: a port alone (`5555`, `:5555`) is bound to the
//!   loopback address 127.0.0.1, so the daemon is reachable from other machines only when an
//!   address is given explicitly (`0.0.0.0:5555`, `192.168.1.20:5555`, `[::]:5555`).
//! - [`pump_tcp`] accepts clients on a thread of its own and reads the current client's lines on
//!   the calling thread. A client that connects while another is connected gets one line,
//!   [`BUSY_LINE`], and is closed. When the client disconnects (or its connection fails), the
//!   daemon keeps its game and waits for the next one; a request line cut by the disconnection is
//!   dropped; the end of a connection is not the end of input.
//! - [`TcpSink`] writes to the current client. While there is none, writes fail with
//!   `NotConnected`, so the writer ([`crate::robot::outbox`]) keeps final replies and writes them
//!   to the next client. A line cut short is finished on the same connection and written whole
//!   again to a new one.

use crate::robot::transport::{Input, LineReader, LineSink};
use std::io::{self, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The line a second client gets before it is closed.
pub const BUSY_LINE: &str =
    "error busy another client is connected; only one client at a time (try again when it has gone)";

/// How long a write to a client may wait before it counts as timed out (the reply is kept).
const WRITE_TIMEOUT: Duration = Duration::from_secs(1);

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
    /// Takes `stream` as the current client unless one is connected; `false` if one is.
    fn connect(&self, stream: &TcpStream) -> io::Result<bool> {
        let mut link = self
            .link
            .lock()
            .map_err(|_| io::Error::other("tcp link lock poisoned"))?;
        if link.stream.is_some() {
            return Ok(false);
        }
        link.stream = Some(stream.try_clone()?);
        link.generation += 1;
        Ok(true)
    }

    fn disconnect(&self) {
        if let Ok(mut link) = self.link.lock() {
            if let Some(s) = link.stream.take() {
                s.shutdown(Shutdown::Both).ok();
            }
            link.generation += 1;
        }
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
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        let (generation, mut done) = self.progress;
        let (g, mut stream) = self.handle()?;
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
        result.map_err(|e| match e.kind() {
            // The client has gone, not the output: the next client gets the line.
            io::ErrorKind::BrokenPipe
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::WriteZero => io::Error::new(io::ErrorKind::NotConnected, e),
            _ => e,
        })
    }
}

/// Accepts clients on `listener` for ever and reads the current one's lines, handing them to
/// `deliver`, until `deliver` returns false. Clients beyond the first get [`BUSY_LINE`].
pub fn pump_tcp(listener: TcpListener, sink: &TcpSink, deliver: &mut dyn FnMut(Input) -> bool) {
    let (tx, rx) = std::sync::mpsc::channel::<TcpStream>();
    let accepting = sink.clone();
    let spawned = std::thread::Builder::new()
        .name("accept".into())
        .spawn(move || accept_loop(&listener, &accepting, &tx));
    if let Err(e) = spawned {
        deliver(Input::Fatal(format!("cannot start the accept thread: {e}")));
        return;
    }
    while let Ok(stream) = rx.recv() {
        let peer = peer_name(&stream);
        tracing::info!("client {peer} connected");
        let mut reader = LineReader::new(&stream).dropping_unterminated();
        let mut keep_going = true;
        let result = reader.pump(&mut |input| {
            keep_going = deliver(input);
            keep_going
        });
        sink.disconnect();
        if !keep_going {
            return;
        }
        match result {
            Ok(()) => tracing::info!("client {peer} disconnected; game kept, waiting for the next"),
            Err(e) => tracing::warn!("client {peer} lost ({e}); game kept, waiting for the next"),
        }
    }
}

fn peer_name(stream: &TcpStream) -> String {
    stream
        .peer_addr()
        .map(|a| a.to_string())
        .unwrap_or_else(|_| "?".into())
}

fn accept_loop(
    listener: &TcpListener,
    sink: &TcpSink,
    clients: &std::sync::mpsc::Sender<TcpStream>,
) {
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
        keepalive(&stream);
        stream.set_write_timeout(Some(WRITE_TIMEOUT)).ok();
        match sink.connect(&stream) {
            Ok(true) => {
                if clients.send(stream).is_err() {
                    return;
                }
            }
            Ok(false) => {
                tracing::warn!(
                    "client {} refused: another client is connected",
                    peer_name(&stream)
                );
                stream.write_all(format!("{BUSY_LINE}\n").as_bytes()).ok();
                stream.flush().ok();
                stream.shutdown(Shutdown::Both).ok();
            }
            Err(e) => tracing::warn!("cannot take client {}: {e}", peer_name(&stream)),
        }
    }
}

/// Turns on TCP keep-alive probes (after 10 s idle, every 5 s, 3 lost: about 25 s), so that a
/// client that vanished without closing (a vision computer switched off, a cable pulled) frees
/// the daemon for the next one.
#[cfg(target_os = "linux")]
fn keepalive(stream: &TcpStream) {
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
    set(libc::SOL_SOCKET, libc::SO_KEEPALIVE, 1);
    set(libc::IPPROTO_TCP, libc::TCP_KEEPIDLE, 10);
    set(libc::IPPROTO_TCP, libc::TCP_KEEPINTVL, 5);
    set(libc::IPPROTO_TCP, libc::TCP_KEEPCNT, 3);
}

#[cfg(not(target_os = "linux"))]
fn keepalive(_: &TcpStream) {}

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
