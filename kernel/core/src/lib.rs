//! Host-independent asahi UAPI kernel driver core for the M4
