"""Options are typed from the daemon's `options` list; configure sets them."""

from checkersbot_client import (BadOptionError, BoolOption, ChoiceOption, Engine, IntOption,
                                StringOption)

with Engine.popen(["checkersbot", "serve"]) as engine:
    for name, option in engine.options.items():
        match option:
            case IntOption(min=low, max=high, value=value):
                print(f"{name}: int {low}..{high} = {value}")
            case BoolOption(value=value):
                print(f"{name}: bool = {value}")
            case ChoiceOption(choices=choices, value=value):
                print(f"{name}: one of {', '.join(choices)} = {value}")
            case StringOption(value=value):
                print(f"{name}: text = {value}")
    engine.configure({"level": "easy", "strict": False, "threads": 1})
    print("after level easy: depth", engine.options["depth"].value)
    try:
        engine.configure({"threads": 1000})
    except BadOptionError as e:
        print("refused:", e.message)
