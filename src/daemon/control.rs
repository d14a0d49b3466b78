//! The control family of requests: `hello`, `ping`, `stop`, `quit`, `repeat` and `status`:
//! answered at once, also while the engine works (or queued behind its reply, for `ping TOKEN`,
//! `stop` and `quit`).

use super::event_loop::{Daemon, MAX_WAITING_FOR_JOB};
use super::protocol::{Command, ErrorCode, ProtocolError, Reply};
use super::status;
use std::sync::atomic::Ordering;

impl Daemon {
    /// `hello`, `ping`, `repeat`, `stop`, `quit` and `status`.
    pub(super) fn control(&mut self, cmd: Command) {
        let busy = self.pending.is_some();
        match cmd {
            Command::Hello(_) => self.send(&Reply::hello()),
            Command::Ping(Some(_)) | Command::Stop
                if self.waiting_for_job() >= MAX_WAITING_FOR_JOB =>
            {
                self.error(
                    ErrorCode::Busy,
                    format!(
                        "{MAX_WAITING_FOR_JOB} replies already wait for the search; wait for it"
                    ),
                );
            }
            // With a token, `ping` is a barrier: its `pong` follows every reply to an earlier
            // request (also a move being searched); without, it is answered at once.
            Command::Ping(Some(token)) if busy => {
                if let Some(p) = &mut self.pending {
                    p.after.push((self.session, Reply::Pong(Some(token))));
                }
            }
            Command::Ping(token) => self.send(&Reply::Pong(token)),
            Command::Repeat => match self.last_final.clone() {
                // Not recorded: `repeat` twice gives the same line twice.
                Some(text) => self.send_text(text, true),
                None => {
                    let e = ProtocolError::new(
                        ErrorCode::NothingToRepeat,
                        "no final reply has been written yet",
                    );
                    self.send_text(e.reply().to_string(), true);
                }
            },
            Command::Stop => match &mut self.pending {
                Some(p) => {
                    p.after.push((self.session, Reply::Ok));
                    self.stop.store(true, Ordering::Relaxed);
                }
                None => {
                    self.stop_pondering();
                    self.send(&Reply::Ok);
                }
            },
            Command::Quit => match &mut self.pending {
                Some(p) => {
                    p.quit = Some(self.session);
                    self.exiting = true;
                    self.stop.store(true, Ordering::Relaxed);
                }
                None => {
                    self.send(&Reply::Bye);
                    self.exiting = true;
                }
            },
            // Changes nothing, so it is answered at once, also while the engine thinks.
            Command::Status => {
                let report = status::report(
                    &self.tracker,
                    &self.settings,
                    busy,
                    self.clock_left,
                    &self.observed,
                );
                self.send(&Reply::Status(Box::new(report)));
            }
            other => {
                tracing::error!("not a control request: {other}");
                self.error(ErrorCode::Internal, "a request went to the wrong handler");
            }
        }
    }
}
