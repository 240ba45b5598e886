#!/usr/bin/env bash
# Build a scratch copy of BALROG's pure-Python prompt code, to run unchanged by balrog_requests.py.
# Usage: setup_balrog.sh BALROG_GIT_DIR SCRATCH_DIR   (BALROG_GIT_DIR: a clone of balrog-ai/BALROG at af7d1f1)
# Only the import lines that pull in engines or API clients are dropped; stubs replace the client,
# utils (clock seeds) and omegaconf. Nothing here is committed: the copy lives in SCRATCH_DIR.
set -euo pipefail
git_dir=$1
out=$2/pkg
show() { git --git-dir="$git_dir" show "HEAD:balrog/$1"; }
mkdir -p "$out"/balrog/{agents,prompt_builder} "$out"/balrog/environments/{nle,minihack,babyai_text,babaisai,crafter,textworld} "$out"/omegaconf
for f in agents/__init__.py agents/base.py agents/naive.py agents/chain_of_thought.py agents/robust_naive.py \
         agents/robust_cot.py agents/few_shot.py agents/custom.py agents/dummy.py prompt_builder/__init__.py \
         prompt_builder/history.py dataset.py evaluator.py environments/__init__.py environments/env_wrapper.py \
         environments/minihack/__init__.py; do
  show "$f" > "$out/balrog/$f"
done
show environments/nle/__init__.py | grep -v '^from \.auto_more\|^from \.base' > "$out/balrog/environments/nle/__init__.py"
show environments/babyai_text/__init__.py | grep -v '^from \.clean_lang' > "$out/balrog/environments/babyai_text/__init__.py"
show environments/babaisai/__init__.py | grep -v '^from balrog.environments.babaisai.base' \
  | sed 's/^__all__ = \[BabaIsAIWrapper\]//' > "$out/balrog/environments/babaisai/__init__.py"
{ echo 'TextWorldFactory = object  # scratch: the factory itself is not needed'
  show environments/textworld/__init__.py | grep -v '^from balrog.environments.textworld.base'; } \
  > "$out/balrog/environments/textworld/__init__.py"
python3 - "$git_dir" "$out" <<'PY'
import ast, subprocess, sys
git_dir, out = sys.argv[1:]
show = lambda p: subprocess.run(["git", f"--git-dir={git_dir}", "show", f"HEAD:balrog/{p}"], capture_output=True,
                                text=True, check=True).stdout
src = show("environments/crafter/env.py")
acts = next(n for n in ast.parse(src).body if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "ACTIONS")
init = show("environments/crafter/__init__.py").replace("from .env import ACTIONS, CrafterLanguageWrapper",
                                                        ast.get_source_segment(src, acts))
open(f"{out}/balrog/environments/crafter/__init__.py", "w").write(init)
PY
: > "$out/balrog/__init__.py"
cat > "$out/balrog/client.py" <<'PY'
# stub: a scripted client that records every request
from collections import namedtuple
LLMResponse = namedtuple("LLMResponse", ["model_id", "completion", "stop_reason", "input_tokens", "output_tokens", "reasoning"])
SCRIPT = []
REQUESTS = []
class LLMClientWrapper:
    pass
class Scripted(LLMClientWrapper):
    def generate(self, messages):
        REQUESTS.append([{"role": m.role, "content": m.content} for m in messages])
        return LLMResponse("scripted", SCRIPT.pop(0), "stop", 0, 0, None)
def create_llm_client(client_config):
    return lambda: Scripted()
PY
cat > "$out/balrog/utils.py" <<'PY'
def get_unique_seed(process_num=None, episode_idx=0):
    raise AssertionError("the scratch config always gives a seed")
PY
cat > "$out/omegaconf/__init__.py" <<'PY'
class OmegaConf:
    @staticmethod
    def to_container(cfg, resolve=True):
        return dict(cfg)
PY
echo "scratch BALROG in $out"
