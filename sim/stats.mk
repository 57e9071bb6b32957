# sim/stats: owned by the statistics module (see sim/stats.h).
