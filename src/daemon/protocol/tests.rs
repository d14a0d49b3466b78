use super::*;
use crate::rules::geometry::BoardSize;

#[test]
fn commands_round_trip() {
    for line in [
        "hello",
        "ping",
        "ping 7f3a-1",
        "stop",
        "quit",
        "set movetime 250",
        "set depth 6",
        "set nodes 50000",
        "set threads 2",
        "set hash 32",
        "set size 10",
        "set strict off",
        "set colouronly on",
        "set rotated on",
        "set info final",
        "repeat",
        "newgame",
        "newgame 8",
        "newgame _b_b/____/____/p_p_",
        "position _b_b/____/____/p_p_ p",
        "position fen B:W21,22:B1,K2",
        "board _b_b/____/____/p_p_ b",
        "set level easy",
        "set style aggressive",
        "set record /tmp/games",
        "set record off",
        "options",
        "hint",
        "takeback",
        "status",
        "analyse 3",
        "analyse 1 _b_b/____/____/p_p_ p",
        "analyse 2 fen B:W21,22:B1,K2",
        "analyse 2 start b",
        "analyse 3 infinite",
        "analyse 1 infinite start b",
        "position start p",
        "position start b moves 11-15 23-19",
        "position _b_b/____/____/p_p_ b moves A1-B2 D2-C1",
        "position fen W:W21,22:B1,2 moves 22-18 1-5",
        "position pdn [FEN \"W:W21,22:B1,2\"] 1. 22-18 1-5 *",
        "moves",
        "moves start b",
        "moves _b_b/____/____/p_p_ p",
        "moves fen W:W21,22:B1,2",
        "moves start b moves 11-15 23-19",
        "moves pdn 1. 11-15 23-19 *",
    ] {
        let cmd = Command::parse(line).unwrap().unwrap();
        assert_eq!(cmd.to_string(), line);
        assert_eq!(Command::parse(&cmd.to_string()).unwrap().unwrap(), cmd);
    }
    assert_eq!(Command::parse("  # note").unwrap(), None);
    assert_eq!(Command::parse("").unwrap(), None);
    assert_eq!(
        Command::parse("newgame 8x8").unwrap(),
        Some(Command::NewGame(Some(Layout::Size(BoardSize::S8))))
    );
    assert_eq!(
        Command::parse("position fen W:W21, 22:B1").unwrap(),
        Some(Command::Position(Setup::Fen("W:W21,22:B1".into())))
    );
}

#[test]
fn bad_commands_get_their_codes() {
    let code = |l: &str| Command::parse(l).unwrap_err().code;
    assert_eq!(code("jump"), ErrorCode::UnknownCommand);
    assert_eq!(code("ping now later"), ErrorCode::Syntax);
    assert_eq!(code("ping a/b"), ErrorCode::Syntax);
    for blank in ["\u{b}", "\u{c}", "\u{a0}", "\u{3000}"] {
        assert_eq!(code(blank), ErrorCode::Syntax, "{blank:?}");
        assert_eq!(
            code(&format!("ping{blank}x")),
            ErrorCode::Syntax,
            "{blank:?}"
        );
    }
    assert_eq!(Command::parse(" \t ").unwrap(), None);
    assert_eq!(
        Command::parse("\tping\t tok ").unwrap(),
        Some(Command::Ping(Some("tok".into())))
    );
    assert_eq!(code("board _b_b/____/____/p_p_"), ErrorCode::Syntax);
    assert_eq!(code("board _b_b/____/____/p_p_ x"), ErrorCode::Syntax);
    assert_eq!(code("set movetime soon"), ErrorCode::BadOption);
    assert_eq!(code("set threads 0"), ErrorCode::BadOption);
    assert_eq!(code("set nodes -1"), ErrorCode::BadOption);
    assert_eq!(code("set nodes 1000000000001"), ErrorCode::BadOption);
    assert_eq!(code("set colour blue"), ErrorCode::BadOption);
    assert_eq!(code("set size 7"), ErrorCode::BadOption);
    assert_eq!(code("newgame 7"), ErrorCode::Syntax);
    assert_eq!(code("position fen"), ErrorCode::Syntax);
    assert_eq!(code("position start b moves"), ErrorCode::Syntax);
    assert_eq!(code("position pdn"), ErrorCode::Syntax);
    assert_eq!(code("analyse"), ErrorCode::Syntax);
    assert_eq!(code("analyse 0"), ErrorCode::Syntax);
    assert_eq!(code("analyse 21"), ErrorCode::Syntax);
    assert_eq!(code("analyse 2 start b moves 11-15"), ErrorCode::Syntax);
    assert_eq!(code("hint now"), ErrorCode::Syntax);
    assert_eq!(code("status now"), ErrorCode::Syntax);
    assert_eq!(code("moves start"), ErrorCode::Syntax);
    assert_eq!(code("moves start x"), ErrorCode::Syntax);
    assert_eq!(code("moves start b moves"), ErrorCode::Syntax);
    assert_eq!(code("set level expert"), ErrorCode::BadOption);
    assert_eq!(code("set style wild"), ErrorCode::BadOption);
}

#[test]
fn replies_round_trip() {
    for line in [
        "hello checkersbot 0.1.0 protocol 1",
        "ok",
        "pong",
        "pong 7f3a-1",
        "bye",
        "unchanged",
        "move C1 D2",
        "move E5 C3 A1 captures D4 B2",
        "move F2 H4 captures G3 crown",
        "move G1 H0 crown",
        "gameover win b nomoves",
        "gameover win p nomoves",
        "gameover draw repetition",
        "gameover draw noprogress",
        "info opponent F2 E3",
        "info accepted _b_b/____/____/p_p_ p",
        "info depth 4 score cp -12 pv C1-D2 F2-E3",
        "info depth 9 score win 7 nodes 1234 time 12 nps 100000 pv E5-C3-A1",
        "info line 2 depth 5 score cp -8 nodes 900 time 3 nps 300000 pv C5-D6 F2-E3",
        "error illegal-transition E3,F4: no legal move by p explains this board",
        "option movetime type int min 0 max 3600000 default 1000 value 250",
        "option strict type bool default on value off",
        "option level type choice choices easy,medium,hard,max default hard value easy",
        "option record type string default off value /tmp/my games",
        "line 1 depth 6 score cp 12 pv C1-D2 F2-E3",
        "line 2 depth 6 score loss 4 pv C3-D4",
        "hint F2 E3",
        "hint E3 C5 captures D4",
        "legal F2 E3",
        "legal E5 C3 A1 captures D4 B2 crown",
        "expect _b_b/____/____/p_p_ p",
        "error nothing-to-take-back the person has not moved in this game",
        "status state nogame size none side none position none expect none seen none plies 0 \
             result none clock off left none level hard style default eval learned egdb none \
             egdbpieces 0 egdbbuild off book none diagnosis none",
        "status state person size 8 side p position none expect none seen none plies 2 \
             result ongoing clock off left none level hard style default eval learned \
             egdb /var/cache/egdb egdbpieces 5 egdbbuild building-6 book builtin diagnosis none",
    ] {
        let r = Reply::parse(line).unwrap();
        assert_eq!(r.to_string(), line);
    }
    assert!(Reply::parse("move C1").is_err());
    assert!(Reply::parse("move C1 D2 captures").is_err());
    assert!(Reply::parse("error nonsense x").is_err());
    assert!(Reply::Ok.is_final());
    assert!(!Reply::parse("info opponent F2 E3").unwrap().is_final());
    assert!(!Reply::parse("line 1 depth 1 score cp 0 pv C1-D2")
        .unwrap()
        .is_final());
    assert!(
        !Reply::parse("option hash type int min 1 max 4096 default 16 value 16")
            .unwrap()
            .is_final()
    );
    assert!(Reply::parse("hint F2 E3").unwrap().is_final());
    assert!(!Reply::parse("legal F2 E3").unwrap().is_final());
}

#[test]
fn error_codes_have_distinct_words() {
    for c in ErrorCode::ALL {
        assert_eq!(ErrorCode::from_word(c.word()), Some(c));
    }
}

#[test]
fn comment_lines_get_no_reply_whatever_they_hold() {
    for line in [
        "# a\u{b}b",
        "# a\rb",
        "#\u{a0}nbsp",
        "  \t# indented \u{1b}[31m",
        "#",
    ] {
        assert_eq!(Command::parse(line), Ok(None), "{line:?}");
    }
    // A control character outside a comment is still an error.
    assert!(Command::parse("ping\u{b}1").is_err());
}

#[test]
fn a_book_move_info_line_reads_back_with_and_without_timings() {
    for line in [
        "info depth 0 score cp 11 book pv C5-D4",
        "info depth 0 score cp 11 nodes 0 time 0 nps 0 book pv C5-D4",
    ] {
        let reply = Reply::parse(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(reply.to_string(), line);
    }
}
