# calib/: dsec-calib, the calibration suite (issue #7).
