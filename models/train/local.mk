# models/train/: training jobs on the elastic cluster (issue #10).
