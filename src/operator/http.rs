//! The operator page's web server (`serve --http ADDR:PORT`): read-only, on the standard library.
//!
//! Four routes, answered to GET and HEAD from the latest [`Snapshot`] of a [`Feed`]:
//!
//! | path | answer |
//! |---|---|
//! | `/` | the page (HTML with its style, script and SVG boards inline: nothing is fetched from elsewhere) |
//! | `/events` | server-sent events (`text/event-stream`): an `update` event with the page's live part at once and after changes (at most four a second), a comment line every 15 s while nothing changes |
//! | `/status.json` | the data of the page as JSON ([`crate::operator::page::status_json`]) |
//! | `/game.pdn` | the game so far as PDN (8x8 games; 404 on other sizes) |
//!
//! HEAD gets what GET would (status line and headers, `Content-Length` included) without the
//! body, so that monitoring tools and `curl -I` can check the page. Any other path is `404`; any
//! other method `405`; a request that is not HTTP is `400`; a request line and headers over
//! [`MAX_HEAD`] bytes are `431`. Every answer closes its connection (`Connection: close`); a
//! request body is never read.
//!
//! Why the standard library and no HTTP crate: four routes and one event stream need a request
//! line, a few response headers and a thread per connection; a crate would add code to build and
//! audit on the robot for features the page does not use. Nothing from the network can make it
//! panic; an error ends that connection's thread only.
//!
//! **Limits.** A client must not hold the daemon's resources, and the open pages must not hold
//! back the tools that read `/status.json`. So a connection is counted in one of three pools by
//! what it does, each with a cap of its own:
//!
//! - **waiting** for its request (at most [`MAX_WAITING`]): a client has [`HEAD_DEADLINE`] to send
//!   it. When the pool is full, the connection that has waited longest is closed to make room,
//!   provided it has waited [`HEAD_GRACE`] (a real client sends its request at once); else the new
//!   one is answered `503`. Clients that connect and send nothing therefore cannot lock the page
//!   out, however many they are.
//! - **event streams** (at most [`MAX_STREAMS`], an open page holds one): more are answered `503`.
//! - **answers** (at most [`MAX_ANSWERS`] being written at a time): the page, `/status.json`,
//!   `/game.pdn` and the error answers; more are answered `503`. An answer is written within
//!   [`WRITE_TIMEOUT`] or dropped.
//!
//! The pools are separate, so `/status.json` is served while the event streams are at their cap
//! and while slow clients crowd the waiting pool. A client that stops reading an event stream is
//! dropped after [`WRITE_TIMEOUT`].
//!
//! The daemon never waits for the server: it publishes snapshots to the feed and goes on (see
//! [`crate::daemon::snapshot`]). The page and the JSON are made on the connection's thread.

use crate::daemon::snapshot::{Feed, Snapshot};
use crate::operator::page;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Connections that may wait for their request at a time (see the module's limits).
pub const MAX_WAITING: usize = 64;

/// How long a connection may wait for its request before a new connection may take its place
/// when [`MAX_WAITING`] wait.
pub const HEAD_GRACE: Duration = Duration::from_secs(1);

/// Event streams (open pages) served at a time; more are answered `503 Service Unavailable`.
pub const MAX_STREAMS: usize = 16;

/// Answers (the page, `/status.json`, `/game.pdn`, errors) written at a time; more are answered
/// `503 Service Unavailable`.
pub const MAX_ANSWERS: usize = 32;

/// Refusals (`503`) written at a time; beyond this a connection is closed at once.
const MAX_REFUSING: usize = 16;

/// The most bytes of request line and headers read; a longer head is answered `431`.
pub const MAX_HEAD: usize = 8 * 1024;

/// How long a client has to send its request line and headers.
pub const HEAD_DEADLINE: Duration = Duration::from_secs(10);

/// How long one read may wait.
const READ_TIMEOUT: Duration = Duration::from_secs(5);

/// How long one write may wait: a client that stops reading is dropped after this.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// How often an idle event stream gets a comment line (which also finds clients that have gone).
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The shortest time between two events of a stream: snapshots that come faster (a search
/// publishes one at each iteration) are merged, the latest sent, so that a browser redraws the
/// page a few times a second at most and takes no more of the machine from the search.
pub const EVENT_INTERVAL: Duration = Duration::from_millis(250);

/// How long the rest of a request (a body that is not read) is taken in after the answer, so
/// that closing the connection does not reset it before the client has read the answer.
const LINGER: Duration = Duration::from_millis(500);

/// A request line read from a client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// The method (`GET`).
    pub method: String,
    /// The path, without the query.
    pub path: String,
}

/// Why a request cannot be answered as asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BadRequest {
    /// The head did not end within [`MAX_HEAD`] bytes.
    TooLarge,
    /// Not an HTTP/1.x request line, or not UTF-8.
    Malformed,
}

/// Reads a request head (the request line and the headers, up to the blank line): the method and
/// the path. Headers are not needed and not kept, but each must be a `Name: value` line.
///
/// ```
/// use checkersbot::operator::http::{parse_head, BadRequest};
/// let r = parse_head(b"GET /status.json?x=1 HTTP/1.1\r\nHost: robot\r\n\r\n").unwrap();
/// assert_eq!((r.method.as_str(), r.path.as_str()), ("GET", "/status.json"));
/// assert_eq!(parse_head(b"hello\r\n\r\n"), Err(BadRequest::Malformed));
/// ```
pub fn parse_head(head: &[u8]) -> Result<Request, BadRequest> {
    let text = std::str::from_utf8(head).map_err(|_| BadRequest::Malformed)?;
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let line = lines.next().ok_or(BadRequest::Malformed)?;
    let mut words = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (words.next(), words.next(), words.next(), words.next())
    else {
        return Err(BadRequest::Malformed);
    };
    let token = |w: &str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_alphabetic());
    if !token(method) || !version.starts_with("HTTP/1.") || !target.starts_with('/') {
        return Err(BadRequest::Malformed);
    }
    for header in lines.take_while(|l| !l.is_empty()) {
        match header.split_once(':') {
            Some((name, _)) if !name.is_empty() && !name.contains(char::is_whitespace) => {}
            _ => return Err(BadRequest::Malformed),
        }
    }
    let path = target.split(['?', '#']).next().unwrap_or(target);
    Ok(Request {
        method: method.to_string(),
        path: path.to_string(),
    })
}

/// Where the head ends: the index just past its blank line.
fn head_end(buf: &[u8]) -> Option<usize> {
    let crlf = buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4);
    let lf = buf.windows(2).position(|w| w == b"\n\n").map(|i| i + 2);
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Reads the head of a request: `Ok(None)` when the client closed or went quiet before sending
/// one.
fn read_head(stream: &mut TcpStream) -> io::Result<Option<Result<Request, BadRequest>>> {
    let start = Instant::now();
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    loop {
        if let Some(end) = head_end(&buf) {
            return Ok(Some(parse_head(&buf[..end])));
        }
        if buf.len() >= MAX_HEAD {
            return Ok(Some(Err(BadRequest::TooLarge)));
        }
        if start.elapsed() > HEAD_DEADLINE {
            return Ok(None);
        }
        let room = (MAX_HEAD - buf.len()).min(chunk.len());
        match stream.read(&mut chunk[..room]) {
            Ok(0) => return Ok(None),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                return Ok(None)
            }
            Err(e) => return Err(e),
        }
    }
}

/// Whether the body goes with the head: GET, or HEAD (the same head, no body).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Body {
    Send,
    Omit,
}

/// A whole answer: status line, headers, body (not for HEAD: `Content-Length` is still the
/// body's); the connection closes after it.
fn respond(
    stream: &mut TcpStream,
    status: &str,
    content_type: &str,
    extra: &str,
    body: &[u8],
    send: Body,
) -> io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n{extra}Connection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    if send == Body::Send {
        stream.write_all(body)?;
    }
    stream.flush()
}

/// A short plain-text answer (errors).
fn respond_text(
    stream: &mut TcpStream,
    status: &str,
    extra: &str,
    text: &str,
    send: Body,
) -> io::Result<()> {
    respond(
        stream,
        status,
        "text/plain; charset=utf-8",
        extra,
        format!("{text}\n").as_bytes(),
        send,
    )
}

/// The page may run its own inline style and script and connect back to this server only.
const PAGE_POLICY: &str =
    "Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'; \
     script-src 'unsafe-inline'; img-src data:; connect-src 'self'\r\n";

/// The head of an event stream (the body follows for GET).
const EVENTS_HEAD: &[u8] =
    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n\
      X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n";

/// The counters of the module's limits, shared by the accepting thread and the connections'.
#[derive(Default)]
struct Limits {
    /// Connections waiting for their request: id, a handle to close it by, since when.
    waiting: Mutex<Waiting>,
    streams: Arc<AtomicUsize>,
    answers: Arc<AtomicUsize>,
    refusing: Arc<AtomicUsize>,
}

#[derive(Default)]
struct Waiting {
    next: u64,
    list: Vec<(u64, TcpStream, Instant)>,
}

impl Limits {
    /// Counts a new connection as waiting for its request: `Some(id)`, or `None` when the pool
    /// is full of connections that have not waited [`HEAD_GRACE`] yet. When it is full, the
    /// connection that has waited longest (at least [`HEAD_GRACE`]) is closed to make room.
    fn admit(&self, stream: &TcpStream) -> Option<u64> {
        let handle = stream.try_clone().ok()?;
        let mut w = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
        if w.list.len() >= MAX_WAITING {
            let (at, since) = w
                .list
                .iter()
                .enumerate()
                .map(|(i, (_, _, since))| (i, *since))
                .min_by_key(|(_, since)| *since)?;
            if since.elapsed() < HEAD_GRACE {
                return None;
            }
            let (_, old, _) = w.list.swap_remove(at);
            // Its thread reads the end of input and ends.
            old.shutdown(Shutdown::Both).ok();
            tracing::debug!("operator page: {MAX_WAITING} connections waiting; the oldest closed");
        }
        w.next += 1;
        let id = w.next;
        w.list.push((id, handle, Instant::now()));
        Some(id)
    }

    /// The request of connection `id` has come (or it has ended): it waits no more.
    fn arrived(&self, id: u64) {
        let mut w = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
        w.list.retain(|(i, _, _)| *i != id);
    }
}

/// Counts a connection in one pool while it is served there.
struct Slot(Arc<AtomicUsize>);

impl Slot {
    /// A place in the pool `counter` holding at most `cap`, if there is one.
    fn take(counter: &Arc<AtomicUsize>, cap: usize) -> Option<Slot> {
        let taken = counter.fetch_add(1, Ordering::SeqCst);
        let slot = Slot(Arc::clone(counter));
        (taken < cap).then_some(slot)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Answers one connection: reads its request while counted as waiting (`id`), then answers it
/// from the pool its route belongs to.
fn serve_connection(
    mut stream: TcpStream,
    feed: &Feed,
    limits: &Limits,
    id: u64,
) -> io::Result<()> {
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    stream.set_write_timeout(Some(WRITE_TIMEOUT))?;
    stream.set_nodelay(true).ok();
    let head = read_head(&mut stream);
    limits.arrived(id);
    let request = match head? {
        None => return Ok(()),
        Some(Err(bad)) => {
            let Some(_slot) = Slot::take(&limits.answers, MAX_ANSWERS) else {
                return refuse(stream, Body::Send);
            };
            let (status, text) = match bad {
                BadRequest::TooLarge => (
                    "431 Request Header Fields Too Large",
                    "request head too large",
                ),
                BadRequest::Malformed => ("400 Bad Request", "not an HTTP/1.x request"),
            };
            respond_text(&mut stream, status, "", text, Body::Send)?;
            return linger(stream);
        }
        Some(Ok(r)) => r,
    };
    tracing::debug!("http: {} {}", request.method, request.path);
    let send = match request.method.as_str() {
        "GET" => Body::Send,
        "HEAD" => Body::Omit,
        _ => Body::Send,
    };
    let is_stream = request.path == "/events" && send == Body::Send;
    let (pool, cap) = if is_stream {
        (&limits.streams, MAX_STREAMS)
    } else {
        (&limits.answers, MAX_ANSWERS)
    };
    let Some(_slot) = Slot::take(pool, cap) else {
        tracing::debug!("operator page: {cap} already; {} refused", request.path);
        return refuse(stream, send);
    };
    if !matches!(request.method.as_str(), "GET" | "HEAD") {
        respond_text(
            &mut stream,
            "405 Method Not Allowed",
            "Allow: GET, HEAD\r\n",
            "the operator page is read-only: GET and HEAD only",
            Body::Send,
        )?;
        return linger(stream);
    }
    let (version, snap) = feed.latest();
    let now = Instant::now();
    match request.path.as_str() {
        "/" | "/index.html" => respond(
            &mut stream,
            "200 OK",
            "text/html; charset=utf-8",
            PAGE_POLICY,
            page::page(&snap, version, now).as_bytes(),
            send,
        )?,
        "/status.json" => respond(
            &mut stream,
            "200 OK",
            "application/json",
            "",
            page::status_json(&snap, version, now).as_bytes(),
            send,
        )?,
        "/game.pdn" => match page::game_record(&snap) {
            Some(pdn) => respond(
                &mut stream,
                "200 OK",
                "application/x-chess-pdn; charset=utf-8",
                "Content-Disposition: inline; filename=\"game.pdn\"\r\n",
                pdn.as_bytes(),
                send,
            )?,
            None => respond_text(
                &mut stream,
                "404 Not Found",
                "",
                "no 8x8 game: PDN records are for 8x8 games",
                send,
            )?,
        },
        "/events" if send == Body::Omit => {
            stream.write_all(EVENTS_HEAD)?;
            stream.flush()?;
        }
        "/events" => return stream_events(stream, feed, version, snap),
        _ => respond_text(&mut stream, "404 Not Found", "", "not found", send)?,
    }
    linger(stream)
}

/// Closes the sending side, then takes in what the client still sends for a moment, so that the
/// answer is not cut by a reset.
fn linger(mut stream: TcpStream) -> io::Result<()> {
    stream.shutdown(Shutdown::Write)?;
    stream.set_read_timeout(Some(LINGER))?;
    let end = Instant::now() + LINGER;
    let mut sink = [0u8; 4096];
    let mut taken = 0usize;
    while Instant::now() < end && taken < 1 << 20 {
        match stream.read(&mut sink) {
            Ok(0) | Err(_) => break,
            Ok(n) => taken += n,
        }
    }
    Ok(())
}

/// One server-sent event: the live part of the page as it is at `now`, one `data:` line per
/// line of HTML.
fn event(version: u64, snap: &Snapshot, now: Instant) -> String {
    let html = page::live_html(snap, now);
    let mut out = String::with_capacity(html.len() + 64 * (html.lines().count() + 1));
    out.push_str("event: update\nid: ");
    out.push_str(&version.to_string());
    out.push('\n');
    for line in html.split('\n') {
        out.push_str("data: ");
        out.push_str(line.trim_end_matches('\r'));
        out.push('\n');
    }
    out.push('\n');
    out
}

/// `/events`: the latest snapshot at once, then the newest one as they come, at most one every
/// [`EVENT_INTERVAL`] (versions in between are skipped: the page shows the latest), a comment
/// line when idle. Ends when a write fails (the client has gone or stopped reading).
fn stream_events(
    mut stream: TcpStream,
    feed: &Feed,
    mut version: u64,
    mut snap: Arc<Snapshot>,
) -> io::Result<()> {
    stream.write_all(EVENTS_HEAD)?;
    stream.write_all(b"retry: 1000\n\n")?;
    loop {
        stream.write_all(event(version, &snap, Instant::now()).as_bytes())?;
        stream.flush()?;
        let sent = Instant::now();
        loop {
            match feed.wait_newer(version, KEEP_ALIVE) {
                Some(_) => {
                    if let Some(rest) = EVENT_INTERVAL.checked_sub(sent.elapsed()) {
                        std::thread::sleep(rest);
                    }
                    (version, snap) = feed.latest();
                    break;
                }
                None => {
                    stream.write_all(b": idle\n\n")?;
                    stream.flush()?;
                }
            }
        }
    }
}

/// Binds the page's address; the error names it.
pub fn bind(addr: SocketAddr) -> io::Result<TcpListener> {
    TcpListener::bind(addr).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("cannot serve the operator page on {addr}: {e}"),
        )
    })
}

/// Serves the page on `listener` from a thread of its own (and a thread per connection); returns
/// the address it serves on.
pub fn spawn(listener: TcpListener, feed: Feed) -> io::Result<SocketAddr> {
    let addr = listener.local_addr()?;
    std::thread::Builder::new()
        .name("http".into())
        .spawn(move || accept_loop(listener, feed))?;
    Ok(addr)
}

fn accept_loop(listener: TcpListener, feed: Feed) {
    let limits = Arc::new(Limits::default());
    for stream in listener.incoming() {
        let stream = match stream {
            Ok(s) => s,
            Err(e) => {
                // Out of descriptors, or a connection reset before it was taken: wait a little
                // rather than spin.
                tracing::warn!("operator page: cannot accept a connection: {e}");
                std::thread::sleep(Duration::from_millis(100));
                continue;
            }
        };
        let Some(id) = limits.admit(&stream) else {
            // Every waiting place is taken by a connection that has just come: a 503 on a
            // thread of its own (the answer written, the request taken in for a moment so that
            // closing does not reset the answer away), or closed at once beyond that.
            tracing::debug!("operator page: {MAX_WAITING} connections waiting; refused");
            let Some(slot) = Slot::take(&limits.refusing, MAX_REFUSING) else {
                continue;
            };
            let spawned = std::thread::Builder::new()
                .name("http-refuse".into())
                .spawn(move || {
                    let _slot = slot;
                    refuse(stream, Body::Send).ok();
                });
            if let Err(e) = spawned {
                tracing::warn!("operator page: cannot start a connection thread: {e}");
            }
            continue;
        };
        let feed = feed.clone();
        let shared = Arc::clone(&limits);
        let spawned = std::thread::Builder::new()
            .name("http-conn".into())
            .spawn(move || {
                let peer = stream
                    .peer_addr()
                    .map_or_else(|_| "?".to_string(), |a| a.to_string());
                if let Err(e) = serve_connection(stream, &feed, &shared, id) {
                    tracing::debug!("operator page: connection from {peer} ended: {e}");
                }
                // Whatever ended it, it waits no more.
                shared.arrived(id);
            });
        if let Err(e) = spawned {
            // The closure (and the stream in it) was dropped with the error.
            tracing::warn!("operator page: cannot start a connection thread: {e}");
            limits.arrived(id);
        }
    }
}

/// `503` for a connection over a cap.
fn refuse(mut stream: TcpStream, send: Body) -> io::Result<()> {
    stream.set_write_timeout(Some(Duration::from_secs(1)))?;
    respond_text(
        &mut stream,
        "503 Service Unavailable",
        "Retry-After: 5\r\n",
        "too many connections",
        send,
    )?;
    linger(stream)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_are_read_or_refused() {
        let ok = |h: &[u8]| parse_head(h).map(|r| (r.method, r.path));
        assert_eq!(
            ok(b"GET / HTTP/1.1\r\n\r\n"),
            Ok(("GET".into(), "/".into()))
        );
        assert_eq!(
            ok(b"POST /events HTTP/1.0\nHost: x\n\n"),
            Ok(("POST".into(), "/events".into()))
        );
        for bad in [
            &b"GET /\r\n\r\n"[..],
            b"GET / HTTP/2\r\n\r\n",
            b"GET http://x/ HTTP/1.1\r\n\r\n",
            b"G T / HTTP/1.1\r\n\r\n",
            b"GET / HTTP/1.1\r\nno colon\r\n\r\n",
            b"GET /\xff HTTP/1.1\r\n\r\n",
            b"",
        ] {
            assert_eq!(parse_head(bad), Err(BadRequest::Malformed), "{bad:?}");
        }
        assert_eq!(head_end(b"GET / HTTP/1.1\r\n\r\nbody"), Some(18));
        assert_eq!(head_end(b"GET / HTTP/1.1\r\n"), None);
    }

    #[test]
    fn an_event_carries_every_line_as_data() {
        let text = event(5, &Snapshot::default(), Instant::now());
        assert!(text.starts_with("event: update\nid: 5\ndata: "));
        assert!(text.ends_with("\n\n"));
        assert!(text
            .trim_end()
            .lines()
            .skip(2)
            .all(|l| l.starts_with("data: ")));
    }
}
