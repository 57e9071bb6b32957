# models/physics.mk
