//! The render node Mesa hands us: identification through the DRM core (drm-rs) and the asahi UAPI.

use agx16_kernel::uapi::asahi::{GetParams, ParamsGlobal, GET_PARAMS};
use agx16_kernel::uapi::ioctl::{drm_iowr, DRM_COMMAND_BASE};
use std::os::fd::{AsFd, BorrowedFd, RawFd};

/// The identity of the M4 GPU as the asahi UAPI reports it: generation 16, variant 'G', chip T8132
/// (torvalds/linux include/uapi/drm/asahi_drm.h field meanings; values per the M4 facts, as the
/// agx16 kernel driver reports them in kernel/core/src/params.rs).
pub const M4_GENERATION: u32 = 16;
pub const M4_VARIANT: u32 = b'G' as u32;
pub const M4_CHIP_ID: u32 = 0x8132;

#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    #[error("DRM_IOCTL_VERSION failed: {0}")]
    Version(std::io::Error),
    #[error("kernel driver is {0:?}, not \"asahi\"")]
    NotAsahi(String),
    #[error("DRM_IOCTL_ASAHI_GET_PARAMS failed: {0}")]
    Params(std::io::Error),
    #[error("GPU is generation {generation} variant {variant:?} chip {chip:#x}, not the Apple M4 (G16G, T8132)")]
    NotM4 {
        generation: u32,
        variant: char,
        chip: u32,
    },
}

/// A render node fd owned by Mesa's pipe loader; we borrow it for the screen's lifetime.
pub struct RenderNode {
    fd: RawFd,
}

impl AsFd for RenderNode {
    fn as_fd(&self) -> BorrowedFd<'_> {
        // SAFETY: the pipe loader keeps the fd open until after the screen is destroyed.
        unsafe { BorrowedFd::borrow_raw(self.fd) }
    }
}

impl drm::Device for RenderNode {}

impl RenderNode {
    pub fn new(fd: RawFd) -> RenderNode {
        RenderNode { fd }
    }

    pub fn raw_fd(&self) -> RawFd {
        self.fd
    }

    /// Checks that the node is an asahi device and that it is an M4; returns its global parameters.
    pub fn identify(&self) -> Result<ParamsGlobal, DeviceError> {
        let driver = drm::Device::get_driver(self).map_err(DeviceError::Version)?;
        let name = driver.name().to_string_lossy().into_owned();
        if name != "asahi" {
            return Err(DeviceError::NotAsahi(name));
        }
        let params = self.global_params()?;
        if (params.gpu_generation, params.gpu_variant, params.chip_id)
            != (M4_GENERATION, M4_VARIANT, M4_CHIP_ID)
        {
            return Err(DeviceError::NotM4 {
                generation: params.gpu_generation,
                variant: char::from_u32(params.gpu_variant).unwrap_or('?'),
                chip: params.chip_id,
            });
        }
        Ok(params)
    }

    fn global_params(&self) -> Result<ParamsGlobal, DeviceError> {
        let mut params: ParamsGlobal = bytemuck::Zeroable::zeroed();
        let mut request = GetParams {
            param_group: 0,
            pad: 0,
            pointer: &mut params as *mut ParamsGlobal as u64,
            size: std::mem::size_of::<ParamsGlobal>() as u64,
        };
        let number = drm_iowr(
            DRM_COMMAND_BASE + GET_PARAMS,
            std::mem::size_of::<GetParams>(),
        );
        // SAFETY: `request` and the buffer it points at live across the call; libc's ioctl is what the
        // preloaded shim (or the real kernel) answers.
        let ret = unsafe {
            libc::ioctl(
                self.fd,
                number as libc::c_ulong,
                &mut request as *mut GetParams,
            )
        };
        if ret != 0 {
            return Err(DeviceError::Params(std::io::Error::last_os_error()));
        }
        Ok(params)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    #[test]
    fn identification_reports_the_failing_ioctl() {
        let file = std::fs::File::open("/dev/null").unwrap();
        let err = RenderNode::new(file.as_raw_fd()).identify().unwrap_err();
        assert!(matches!(err, DeviceError::Version(_)), "{err}");
        assert!(
            err.to_string().starts_with("DRM_IOCTL_VERSION failed"),
            "{err}"
        );
    }
}
