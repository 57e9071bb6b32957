# scaler/: dsec-scaler, the live scaler (issue #8).
