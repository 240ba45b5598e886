"""SmartPlay (Wu et al., 2023): bandits, rock-paper-scissors, Tower of Hanoi, Messenger, Crafter, Minecraft."""
