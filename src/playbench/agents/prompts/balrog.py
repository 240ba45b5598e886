"""BALROG's exact instruction suffixes and fixed strings (specs/balrog.md §2.3, §3)."""

#: S1: naive and few-shot.
NAIVE = ("You always have to output one of the above actions at a time and no other text. "
         "You always have to output an action until the episode terminates.")
#: S2: chain of thought.
COT = ("First think about what's the best course of action step by step.\n"
       "Finally, provide a single output action at the end of the message in the form of: ACTION: <action>")
#: S3: robust naive.
ROBUST_NAIVE = ("You must choose exactly one of the listed actions and output it strictly in the following format:"
                "\n\n<|ACTION|>YOUR_CHOSEN_ACTION<|END|>\n\n"
                "Replace YOUR_CHOSEN_ACTION with the chosen action. Output no other text, explanation, or reasoning.")
#: S4: robust chain of thought.
ROBUST_COT = ("First, think about the best course of action.\n"
              "Then, you must choose exactly one of the listed actions and output it strictly in the following format:"
              "\n\n<|ACTION|>YOUR_CHOSEN_ACTION<|END|>\n\n"
              "Replace YOUR_CHOSEN_ACTION with the chosen action.")
#: S5: the custom (planning) agent.
CUSTOM = ("Review the current plan above if present. Decide whether to continue with it or make changes.\n"
          "If you make changes, provide the updated plan. Then, provide the next action to take.\n"
          "You must output an action at every step.\n"
          "Format your answer in the following way:\n"
          "PLAN: <your updated plan if changed, or \"No changes to the plan.\" if the current plan is good>\n"
          "ACTION: <your next action>")
NO_PLAN_CHANGE = "No changes to the plan."
ROBUST_COT_FAILED = "Failed to obtain a valid action from the reasoning."

#: Invalid-action feedback prepended to the next observation's long-term text.
FEEDBACK = "\n\nYour previous output did not contain a valid action. Defaulted to action: {action}\n\nObservation:\n{text}"

#: Few-shot framing (``Obesrvation`` is BALROG's own spelling: the request the benchmark sends).
ICL_START = "****** START OF DEMONSTRATION EPISODE {k} ******"
ICL_END = "****** END OF DEMONSTRATION EPISODE {k} ******"
ICL_OBS = "Obesrvation:\n{text}"
ICL_TURN = "****** Now it's your turn to play the game! ******"
ICL_PLAY = "First, observe the demonstrations provided and learn from them!"

#: Shown in fixed mode as the assistant turn of a step whose output was empty (B6).
NO_VALID_ACTION = "(no valid action)"

ACTION_LIST = "List of all actions:\n{lines}"


def action_list(actions: list[str]) -> str:
    """``List of all actions:`` followed by ``1. a``, ``2. b`` … one per line."""
    return ACTION_LIST.format(lines="\n".join(f"{i}. {a}" for i, a in enumerate(actions, 1)))


def should_list(mode: str, text: str, actions: list[str]) -> bool:
    """Whether to add the numbered action list to ``text`` under ``-A list_actions=mode``.

    ``never`` (the default: the benchmark's own request), ``always``, or ``auto`` (only when ``text``
    does not already number every action).
    """
    if mode == "always":
        return True
    return mode == "auto" and not lists_actions(text, actions)


def lists_actions(text: str, actions: list[str]) -> bool:
    """Whether ``text`` already numbers every action one per line (``1. a`` …)."""
    lines = set(text.splitlines())
    return all(f"{i}. {a}" in lines for i, a in enumerate(actions, 1))
