"""SmartPlay's two-stage prompt texts (specs/smartplay.md §3.2)."""

SYSTEM = "You\u2019re a player trying to play the game."  # U+2019 apostrophe, as in the original
OBSERVATION = "current step observation: {obs}"
Q1 = "What is the best action to take? Let's think step by step, "
Q2 = "Choose the best executable action from the list of all actions. Write the exact chosen action."
HISTORY_BLOCK = "Player Observation Step "
HISTORY_HEADER = "Most recent {n} steps of the player's in-game observation:"
