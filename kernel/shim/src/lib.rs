//! LD_PRELOAD DRM shim presenting an M4 render node backed by agx16-kernel
