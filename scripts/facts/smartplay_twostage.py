"""Facts: SmartPlay's two-stage requests for a playbench Crafter episode.

examples/experiment.py's compose_ingame_prompt and questions, and the Crafter manual from crafter_env.py and
assets/crafter_ctxt.pkl, run unchanged.
"""
import json
import os
import pickle
import re
import sys

import playbench.suites  # noqa: F401
from playbench.core.registry import get_task

src = open(os.environ["SMARTPLAY_SCRATCH"] + "/experiment.py").read()
ns = {}
exec(re.search(r"def compose_ingame_prompt.*?return messages, 2[^\n]*\n", src, re.S).group(0), ns)
exec(re.search(r"questions=\[.*?\]\n", src, re.S).group(0), ns)
compose, questions = ns["compose_ingame_prompt"], ns["questions"]

env_src = open(os.environ["SMARTPLAY_SCRATCH"] + "/crafter_env.py").read()
block = re.search(r"\n( +CTXT = pickle\.load\(f\).*?self\.desc = CTXT\n)", env_src, re.S).group(1)
block = "\n".join(ln.strip() for ln in block.splitlines()).replace("CTXT = pickle.load(f)", "CTXT = pickle.loads(raw)").replace("self.desc = CTXT", "desc = CTXT")


class Only(pickle.Unpickler):
    """Unpickles the asset, one pickled str, and nothing that names a class."""

    def find_class(self, module, name):
        """Refuse every class: the asset holds a str alone."""
        raise pickle.UnpicklingError("only a str is expected")


raw_bytes = open(os.environ["SMARTPLAY_SCRATCH"] + "/crafter_ctxt.pkl", "rb").read()
assert isinstance(Only(__import__("io").BytesIO(raw_bytes)).load(), str)
ms = {"pickle": pickle, "raw": raw_bytes}
exec(block, ms)
MANUAL = ms["desc"]

SEED = 5
STAGE1 = ["Trees are near; collecting wood first is best.", "Water to the south; I am thirsty.",
          "I should face the tree before acting.", "Let me explore east."]
STAGE2 = ["Move West", "Do", "Move North", "Move East"]


def run(compat):
    """The two-stage requests of one episode, with SmartPlay's compat parameters or not."""
    task = get_task("smartplay/crafter")
    params = task.params({"compat": "true"} if compat else {})
    game = task.make_game(params, 0)
    _, info = game.reset(seed=SEED)
    requests = []
    for a1, a2 in zip(STAGE1, STAGE2, strict=True):
        view = {"manual": MANUAL, "history": info["history"], "obs": info["obs"]}
        m1, _ = compose(view, questions[0])
        m2, _ = compose(view, questions[1], [(questions[0], a1)])
        requests += [m1, m2]
        legal = game.legal_actions()
        _, _, term, trunc, info = game.step(a2 if a2 in legal else legal[0])
        if term or trunc:
            break
    game.close()
    return {"seed": SEED, "task_params": {"compat": "true"} if compat else {}, "answers": [x for p in zip(STAGE1, STAGE2, strict=True) for x in p],
            "requests": requests}


out = {"source": "microsoft/SmartPlay 9dec5f2: examples/experiment.py (compose_ingame_prompt, questions) and "
                  "src/smartplay/crafter/crafter_env.py (manual), run unchanged over playbench's Crafter observations",
       "manual_sha256_16": __import__("hashlib").sha256(MANUAL.encode()).hexdigest()[:16], "manual_chars": len(MANUAL),
       "modes": {"default": run(False), "compat": run(True)}}
texts, index = [], {}
for case in out["modes"].values():  # each distinct text once; a request is [[role, index], ...]
    case["requests"] = [[[m["role"], index.setdefault(m["content"], len(index))] for m in req] for req in case["requests"]]
out["texts"] = list(index)
json.dump(out, open(sys.argv[1], "w"), indent=1, ensure_ascii=False)
print(out["manual_sha256_16"], out["manual_chars"], len(out["modes"]["default"]["requests"]))
