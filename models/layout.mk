# models/layout.mk
# Parallel layouts (models/layout/): memory, traffic and feasibility of
# DP/TP/PP/EP/ZeRO for inference and training. See docs/layouts.md.
