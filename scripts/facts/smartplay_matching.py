"""Facts: SmartPlay's own match_act (examples/experiment.py, run unchanged) on natural answers."""
import json
import os
import re
import sys
import textwrap
import types

src = open(os.environ["SMARTPLAY_SCRATCH"] + "/experiment.py").read()
body = re.search(r"(    def match_act\(output\):.*?return 0\n)", src, re.S).group(1)
actions = json.load(open(sys.argv[1]))
games = {"bandit": "smartplay/bandit-highlow", "rps": "smartplay/rps-basic", "hanoi": "smartplay/hanoi-3",
         "messenger": "smartplay/messenger-1", "crafter": "smartplay/crafter", "minecraft": "smartplay/minecraft-plains"}
H = "Move the top disk of rod {} to the top of rod {}"
rows = {
 "bandit": [("Pull slot machine 1.", "Pull slot machine 1."), ("Pull slot machine 2.", "Pull slot machine 2."),
            ("Pull slot machine 2", "Pull slot machine 2."), ("pull slot machine 2", "Pull slot machine 2."),
            ("**Pull slot machine 2.**", "Pull slot machine 2."), ("I will pull slot machine 2.", "Pull slot machine 2."),
            ("2. Pull slot machine 2.", "Pull slot machine 2."), ("Pull slot machine 1, it paid more.", "Pull slot machine 1."),
            ("Action: Pull slot machine 2!", "Pull slot machine 2."), ("2", "Pull slot machine 2."),
            ("PULL SLOT MACHINE 1.", "Pull slot machine 1."), ("I am not sure.", None)],
 "rps": [("Rock", "Rock"), ("rock", "Rock"), ("Rock.", "Rock"), ("Paper", "Paper"), ("paper!", "Paper"),
         ("Scissor", "Scissor"), ("Scissors", "Scissor"), ("scissors.", "Scissor"), ("**Scissors**", "Scissor"),
         ("I choose Scissors.", "Scissor"), ("3. Scissor", "Scissor"), ("Scissors beat paper, so Scissors.", "Scissor"),
         ("Paper covers rock, so Paper.", "Paper"), ("rocky", "Rock"), ("Rocks", "Rock"), ("`Paper`", "Paper"),
         ("I'll play paper this time.", "Paper"), ("3", "Scissor"), ("Nothing.", None)],
 "hanoi": [(H.format("A", "C"), H.format("A", "C")), (H.format("a", "c").lower(), H.format("A", "C")),
           (H.format("B", "C") + ".", H.format("B", "C")), ("**" + H.format("C", "A") + "**", H.format("C", "A")),
           ("The best action: " + H.format("A", "B") + ".", H.format("A", "B")),
           ("1. " + H.format("A", "B"), H.format("A", "B")), ('"' + H.format("B", "A") + '"', H.format("B", "A")),
           ("Move disk 1 from A to C", H.format("A", "C"))],
 "messenger": [("Move North", "Move North"), ("move north", "Move North"), ("Move North.", "Move North"),
               ("MOVE SOUTH", "Move South"), ("I will Move West to avoid the enemy.", "Move West"),
               ("Do Nothing", "Do Nothing"), ("do nothing.", "Do Nothing"), ("Move East!", "Move East"),
               ("4. Move East", "Move East"), ("Move Northwest", "Move North"), ("**Move South**", "Move South"),
               ("Wait.", "Do Nothing")],
 "crafter": [("Do", "Do"), ("do", "Do"), ("Do.", "Do"), ("Noop", "Noop"), ("Move West", "Move West"),
             ("Place Table", "Place Table"), ("place table.", "Place Table"), ("Make Wood Pickaxe", "Make Wood Pickaxe"),
             ("I should make wood pickaxe now.", "Make Wood Pickaxe"), ("**Make Wood Pickaxe**", "Make Wood Pickaxe"),
             ("Sleep", "Sleep"), ("12. Make Wood Pickaxe", "Make Wood Pickaxe"), ("Move North to the tree.", "Move North"),
             ("Place Stone.", "Place Stone"), ("Collect wood.", "Do")],
 "minecraft": [("Move North", "Move North"), ("move east.", "Move East"), ("Move Northwest", "Move North"),
               ("I'll Move South.", "Move South"), ("**Move West**", "Move West"), ("2. Move East", "Move East"),
               ("MOVE WEST", "Move West"), ("Go north.", "Move North")],
}
out = []
for game, items in rows.items():
    legal = actions[games[game]]
    env = types.SimpleNamespace(action_list=legal)
    ns = {"env": env}
    exec(textwrap.dedent(body), ns)
    for answer, intended in items:
        hit = any(a.lower() in answer.lower() for a in legal)
        original = legal[ns["match_act"](answer)]
        out.append({"game": game, "task": games[game], "answer": answer, "intended": intended,
                    "original": original, "original_matched": hit})
json.dump({"source": "microsoft/SmartPlay 9dec5f2 examples/experiment.py match_act, run unchanged",
           "actions": {g: actions[t] for g, t in games.items()}, "rows": out}, open(sys.argv[2], "w"),
          indent=1, ensure_ascii=False)
for r in out:
    print(r["game"], repr(r["answer"]), "->", r["original"], r["original_matched"])
