//! End-to-end tests of the agx16 stack: helpers to run GL programs on the Mesa build with or without the
//! DRM shim. Paths come from the environment `Makefile.toml` sets (`./x test`).

pub mod gles;
pub mod msaa_scene;

use std::path::PathBuf;
use std::process::{Command, Output};

/// Where the built stack lives.
pub struct Stack {
    pub mesa_build: PathBuf,
    pub shim: PathBuf,
}

impl Stack {
    /// Reads `AGX16_MESA_BUILD` and `AGX16_SHIM`; a clear error if the stack is not built.
    pub fn from_env() -> Result<Stack, String> {
        let var = |name: &str| {
            std::env::var_os(name).map(PathBuf::from).ok_or(format!(
                "{name} is not set: run the end-to-end tests through `./x test`"
            ))
        };
        let stack = Stack {
            mesa_build: var("AGX16_MESA_BUILD")?,
            shim: var("AGX16_SHIM")?,
        };
        for lib in stack.lib_dirs() {
            if !lib.is_dir() {
                return Err(format!(
                    "{} is missing: build Mesa with `./x mesa`",
                    lib.display()
                ));
            }
        }
        if !stack.shim.is_file() {
            return Err(format!(
                "the DRM shim {} is missing: build it with `./x build`",
                stack.shim.display()
            ));
        }
        Ok(stack)
    }

    /// The build directories holding libEGL, libGLESv2 and libgallium; `AGX16_GALLIUM_DIR` (a
    /// libgallium relinked by `ci/dev-gallium.sh` for another checkout) comes first when set.
    pub fn lib_dirs(&self) -> Vec<PathBuf> {
        let dev = std::env::var_os("AGX16_GALLIUM_DIR").map(PathBuf::from);
        dev.into_iter()
            .chain(
                ["src/egl", "src/mapi/es2api", "src/gallium/targets/dri"]
                    .iter()
                    .map(|d| self.mesa_build.join(d)),
            )
            .collect()
    }

    /// A command for `program` on our Mesa build, with the shim preloaded when `with_shim`.
    pub fn command(&self, program: &str, with_shim: bool) -> Command {
        let mut cmd = Command::new(program);
        let dirs: Vec<String> = self
            .lib_dirs()
            .iter()
            .map(|d| d.display().to_string())
            .collect();
        cmd.env("LD_LIBRARY_PATH", dirs.join(":"))
            .env("EGL_PLATFORM", "surfaceless");
        cmd.env_remove("LIBGL_ALWAYS_SOFTWARE")
            .env_remove("GALLIUM_DRIVER")
            .env_remove("AGX16_DEBUG");
        if with_shim {
            cmd.env("LD_PRELOAD", &self.shim);
        } else {
            cmd.env_remove("LD_PRELOAD");
        }
        cmd
    }
}

/// Runs a command and returns (exit success, stdout, stderr) as text.
pub fn run(mut cmd: Command) -> (bool, String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot start {:?}: {e}", cmd.get_program()));
    (
        status.success(),
        String::from_utf8_lossy(&stdout).into_owned(),
        String::from_utf8_lossy(&stderr).into_owned(),
    )
}

/// The value of a `KEY: value` line of agx16-glinfo's output.
pub fn field<'a>(stdout: &'a str, key: &str) -> Option<&'a str> {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix(": ")))
}
