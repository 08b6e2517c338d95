//! A `log` sink writing straight to fd 2 (no Rust std I/O inside hooks).

struct StderrLog;

impl log::Log for StderrLog {
    fn enabled(&self, m: &log::Metadata) -> bool {
        m.level() <= log::Level::Warn || crate::device::debug()
    }
    fn log(&self, r: &log::Record) {
        if self.enabled(r.metadata()) {
            let line = format!("agx16-drm-shim [{}] {}\n", r.level(), r.args());
            // SAFETY: writing a local buffer to stderr.
            unsafe { libc::write(2, line.as_ptr() as *const libc::c_void, line.len()) };
        }
    }
    fn flush(&self) {}
}

pub fn init() {
    static LOGGER: StderrLog = StderrLog;
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(log::LevelFilter::Debug);
    }
}
