"""MANGO (Ding et al., COLM 2024): mapping and navigation questions over text-adventure walkthroughs."""
