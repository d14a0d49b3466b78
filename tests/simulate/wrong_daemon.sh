#!/usr/bin/env bash
# A deliberately wrong daemon for the simulator's judge (tests/simulate.rs): it answers the
# protocol's requests as the real one would, but every board with the same move, C3 D2 (legal
# from the 8x8 start for the bot, never again once made), so the judge must catch a wrong command.
while IFS= read -r line; do
    case "$line" in
        ping*) echo "pong ${line#ping }" ;;
        newgame*|set*) echo "ok" ;;
        board*) echo "move C3 D2" ;;
        quit) echo "bye"; exit 0 ;;
        *) echo "ok" ;;
    esac
done
