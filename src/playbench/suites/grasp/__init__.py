"""GRASP: collect energy on an 11x11 grid and bring it home within 20 actions (Tang & Kejriwal)."""
