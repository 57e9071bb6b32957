# tests/ end-to-end
