//! The protocol's errors: every `error CODE MESSAGE` reply's code, and the error a request
//! that does not parse gets.

use std::fmt;

/// A protocol error's code: the second word of an `error` line.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// Malformed arguments of a known command.
    Syntax,
    /// Unknown first word.
    UnknownCommand,
    /// Invalid board text.
    BadBoard,
    /// Invalid FEN.
    BadFen,
    /// Unknown option or bad value.
    BadOption,
    /// No legal move explains the board.
    IllegalTransition,
    /// The arm has not completed the bot's move.
    ArmIncomplete,
    /// Line over [`MAX_LINE`](super::MAX_LINE) bytes.
    LineTooLong,
    /// Line not UTF-8.
    NotUtf8,
    /// `board` before any game.
    NoGame,
    /// A request that needs the engine while it searches.
    Busy,
    /// A board that differs from a finished game's final position.
    GameOver,
    /// `repeat` before any final reply.
    NothingToRepeat,
    /// A fault inside the daemon (should not happen); the state is unchanged.
    Internal,
    /// `takeback` before the person has moved.
    NothingToTakeBack,
    /// A move of a `position ... moves` list or a PDN game that is not legal there.
    IllegalMove,
    /// A PDN game that cannot be read.
    BadPdn,
    /// `hint` when it is not the person's turn.
    NotPersonsTurn,
    /// Written to a TCP client whose connection another client took over, before it is closed.
    TakenOver,
    /// A TCP connection whose first request is not `hello TOKEN` with the daemon's token
    /// (`serve --token-file`), before it is closed.
    Unauthorized,
}

impl ErrorCode {
    /// Every code.
    pub const ALL: [ErrorCode; 20] = [
        ErrorCode::Syntax,
        ErrorCode::UnknownCommand,
        ErrorCode::BadBoard,
        ErrorCode::BadFen,
        ErrorCode::BadOption,
        ErrorCode::IllegalTransition,
        ErrorCode::ArmIncomplete,
        ErrorCode::LineTooLong,
        ErrorCode::NotUtf8,
        ErrorCode::NoGame,
        ErrorCode::Busy,
        ErrorCode::GameOver,
        ErrorCode::NothingToRepeat,
        ErrorCode::Internal,
        ErrorCode::NothingToTakeBack,
        ErrorCode::IllegalMove,
        ErrorCode::BadPdn,
        ErrorCode::NotPersonsTurn,
        ErrorCode::TakenOver,
        ErrorCode::Unauthorized,
    ];

    /// The protocol word.
    pub fn word(self) -> &'static str {
        match self {
            ErrorCode::Syntax => "syntax",
            ErrorCode::UnknownCommand => "unknown-command",
            ErrorCode::BadBoard => "bad-board",
            ErrorCode::BadFen => "bad-fen",
            ErrorCode::BadOption => "bad-option",
            ErrorCode::IllegalTransition => "illegal-transition",
            ErrorCode::ArmIncomplete => "arm-incomplete",
            ErrorCode::LineTooLong => "line-too-long",
            ErrorCode::NotUtf8 => "not-utf8",
            ErrorCode::NoGame => "no-game",
            ErrorCode::Busy => "busy",
            ErrorCode::GameOver => "game-over",
            ErrorCode::NothingToRepeat => "nothing-to-repeat",
            ErrorCode::Internal => "internal",
            ErrorCode::NothingToTakeBack => "nothing-to-take-back",
            ErrorCode::IllegalMove => "illegal-move",
            ErrorCode::BadPdn => "bad-pdn",
            ErrorCode::NotPersonsTurn => "not-persons-turn",
            ErrorCode::TakenOver => "taken-over",
            ErrorCode::Unauthorized => "unauthorized",
        }
    }

    /// Reads a protocol word.
    pub fn from_word(word: &str) -> Option<ErrorCode> {
        Self::ALL.into_iter().find(|c| c.word() == word)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// A request that could not be read: the code and message of its `error` reply.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{code} {message}")]
pub struct ProtocolError {
    /// The error code.
    pub code: ErrorCode,
    /// A human-readable explanation (one line).
    pub message: String,
}

impl ProtocolError {
    /// An error with a code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ProtocolError {
            code,
            message: message.into(),
        }
    }
}

pub(super) fn syntax(msg: impl Into<String>) -> ProtocolError {
    ProtocolError::new(ErrorCode::Syntax, msg)
}

pub(super) fn bad_option(msg: impl Into<String>) -> ProtocolError {
    ProtocolError::new(ErrorCode::BadOption, msg)
}

/// Shortens text quoted in messages so replies stay short.
pub(super) fn clip(text: &str) -> String {
    const MAX: usize = 40;
    if text.chars().count() <= MAX {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(MAX).collect();
        s.push_str("...");
        s
    }
}
