/* Opens the shim's node the way Mesa does (libdrm enumeration, open(),
 * drmGetVersion) and checks the asahi UAPI round trips. Struct layouts are
 * written from include/uapi/drm/asahi_drm.h (MIT) for this test only.
 * Prints one line per check; exits non-zero on the first failure. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <poll.h>
#include <linux/sync_file.h>
#include <xf86drm.h>

struct params { uint64_t features; uint32_t gen, variant, rev, chip, dies, clusters, cores, freq;
                uint64_t core_masks[64]; uint64_t vm_start, vm_end, vm_kernel_min;
                uint32_t max_cmds, max_att; uint64_t ts_freq; };
struct get_params { uint32_t group, pad; uint64_t pointer, size; };
struct vm_create { uint64_t kstart, kend; uint32_t vm_id, pad; };
struct gem_create { uint64_t size; uint32_t flags, vm_id, handle, pad; };
struct mmap_offset { uint32_t handle, flags; uint64_t offset; };
struct bind_op { uint32_t flags, handle; uint64_t offset, range, addr; };
struct vm_bind { uint32_t vm_id, num, stride, pad; uint64_t userptr; };
struct queue_create { uint32_t flags, vm_id, priority, queue_id; uint64_t usc; };
struct cmd_header { uint16_t type, size, vdm_barrier, cdm_barrier; };
struct cmd_compute { uint32_t flags, sampler_count; uint64_t base, end, sampler_heap;
                     uint32_t helper_binary, helper_cfg; uint64_t helper_data; uint32_t ts[4]; };
struct asahi_sync { uint32_t type, handle; uint64_t value; };
struct submit { uint64_t syncs, cmdbuf; uint32_t flags, queue_id, in_count, out_count, cmdbuf_size, pad; };

#define ASAHI(dir, nr, T) DRM_##dir(DRM_COMMAND_BASE + (nr), T)

static int failures;
#define CHECK(cond, ...) do { if (cond) { printf("ok   " __VA_ARGS__); printf("\n"); } \
    else { printf("FAIL " __VA_ARGS__); printf(" (errno %d)\n", errno); failures++; } } while (0)

int main(void)
{
    drmDevicePtr devs[8];
    int n = drmGetDevices2(0, devs, 8);
    CHECK(n == 1, "drmGetDevices2 finds exactly one device (got %d)", n);
    if (n < 1) return 1;
    drmDevicePtr d = devs[0];
    CHECK(d->bustype == DRM_BUS_PLATFORM, "bus type is platform");
    CHECK(d->available_nodes & (1 << DRM_NODE_RENDER), "render node available");
    CHECK(!strcmp(d->nodes[DRM_NODE_RENDER], "/dev/dri/renderD128"), "node path %s", d->nodes[DRM_NODE_RENDER]);
    CHECK(d->deviceinfo.platform->compatible[0] &&
          !strcmp(d->deviceinfo.platform->compatible[0], "apple,agx-t8132"), "compatible apple,agx-t8132");
    int fd = open(d->nodes[DRM_NODE_RENDER], O_RDWR | O_CLOEXEC);
    CHECK(fd >= 0, "open render node");
    drmFreeDevices(devs, n);

    drmVersionPtr v = drmGetVersion(fd);
    CHECK(v && !strcmp(v->name, "asahi"), "driver name asahi");
    drmFreeVersion(v);

    drmDevicePtr byfd;
    CHECK(drmGetDevice2(fd, 0, &byfd) == 0 && byfd->bustype == DRM_BUS_PLATFORM, "drmGetDevice2(fd)");
    char *name = drmGetRenderDeviceNameFromFd(fd);
    CHECK(name && !strcmp(name, "/dev/dri/renderD128"), "render device name from fd");
    free(name);

    uint64_t cap = 0;
    CHECK(drmGetCap(fd, DRM_CAP_SYNCOBJ_TIMELINE, &cap) == 0 && cap == 1, "timeline syncobj cap");
    CHECK(drmGetCap(fd, DRM_CAP_PRIME, &cap) == 0 && cap == 3, "prime cap import|export");

    struct params p; memset(&p, 0xaa, sizeof p);
    struct get_params gp = { 0, 0, (uintptr_t)&p, sizeof p };
    CHECK(drmIoctl(fd, ASAHI(IOW, 0, struct get_params), &gp) == 0, "GET_PARAMS");
    CHECK(p.gen == 16 && p.variant == 'G' && p.chip == 0x8132, "G16G chip 8132");
    CHECK(p.cores == 10 && p.vm_start == 0x4000 && p.vm_end == (1ull << 42) - 0x8000, "cores and VA range");
    CHECK(p.ts_freq == 1000000000ull && p.max_cmds == 64, "timestamp frequency and command limit");
    gp.pointer = 1; /* unmapped user pointer must be EFAULT, not a crash */
    CHECK(drmIoctl(fd, ASAHI(IOW, 0, struct get_params), &gp) == -1 && errno == EFAULT, "bad pointer is EFAULT");

    struct vm_create vc = { 0x1000000000ull, 0x1000000000ull + 0x20000000ull * 4, 0, 0 };
    CHECK(drmIoctl(fd, ASAHI(IOWR, 2, struct vm_create), &vc) == 0 && vc.vm_id, "VM_CREATE");
    struct gem_create gc = { 65536, 0, 0, 0, 0 };
    CHECK(drmIoctl(fd, ASAHI(IOWR, 5, struct gem_create), &gc) == 0 && gc.handle, "GEM_CREATE");
    struct mmap_offset mo = { gc.handle, 0, 0 };
    CHECK(drmIoctl(fd, ASAHI(IOWR, 6, struct mmap_offset), &mo) == 0, "GEM_MMAP_OFFSET");
    uint32_t *map = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_SHARED, fd, mo.offset);
    CHECK(map != MAP_FAILED, "mmap of the fake offset");
    for (int i = 0; i < 16384; i++) map[i] = 0x9e3779b9u * i;

    int dmabuf = -1;
    CHECK(drmPrimeHandleToFD(fd, gc.handle, DRM_CLOEXEC | DRM_RDWR, &dmabuf) == 0, "PRIME export");
    uint32_t *map2 = mmap(NULL, 65536, PROT_READ, MAP_SHARED, dmabuf, 0);
    CHECK(map2 != MAP_FAILED && map2[12345] == 0x9e3779b9u * 12345, "dma-buf mmap sees CPU writes");
    int fd2 = open("/dev/dri/renderD128", O_RDWR);
    uint32_t h2 = 0;
    CHECK(drmPrimeFDToHandle(fd2, dmabuf, &h2) == 0 && h2, "PRIME import in a second open");
    struct mmap_offset mo2 = { h2, 0, 0 };
    drmIoctl(fd2, ASAHI(IOWR, 6, struct mmap_offset), &mo2);
    uint32_t *map3 = mmap(NULL, 65536, PROT_READ, MAP_SHARED, fd2, mo2.offset);
    CHECK(map3 != MAP_FAILED && map3[7] == 0x9e3779b9u * 7, "second open maps the same pages");
    struct gem_create priv = { 16384, 0, 0, 0, 0 };
    drmIoctl(fd, ASAHI(IOWR, 5, struct gem_create), &priv);
    struct mmap_offset foreign = { priv.handle, 0, 0 };
    CHECK(priv.handle == 2 && drmIoctl(fd2, ASAHI(IOWR, 6, struct mmap_offset), &foreign) == -1 && errno == ENOENT,
          "handles do not leak between opens");
    struct mmap_offset mine = { priv.handle, 0, 0 };
    drmIoctl(fd, ASAHI(IOWR, 6, struct mmap_offset), &mine);
    CHECK(mmap(NULL, 16384, PROT_READ, MAP_SHARED, fd2, mine.offset) == MAP_FAILED, "other open's offset cannot be mapped");

    struct bind_op op = { 2 | 4, gc.handle, 0, 65536, 0x200000000ull };
    struct vm_bind vb = { vc.vm_id, 1, sizeof op, 0, (uintptr_t)&op };
    CHECK(drmIoctl(fd, ASAHI(IOW, 4, struct vm_bind), &vb) == 0, "VM_BIND read/write");
    CHECK(drmIoctl(fd, ASAHI(IOW, 4, struct vm_bind), &vb) == -1 && errno == EEXIST, "double bind is EEXIST");
    struct queue_create qc = { 0, vc.vm_id, 1, 0, 1ull << 40 };
    CHECK(drmIoctl(fd, ASAHI(IOWR, 8, struct queue_create), &qc) == 0 && qc.queue_id, "QUEUE_CREATE");
    qc.usc = 0;
    CHECK(drmIoctl(fd, ASAHI(IOWR, 8, struct queue_create), &qc) == -1 && errno == EINVAL, "usc_exec_base != 1<<40 rejected");

    uint32_t so = 0;
    CHECK(drmSyncobjCreate(fd, 0, &so) == 0, "syncobj create");
    CHECK(drmSyncobjSignal(fd, &so, 1) == 0, "syncobj signal");
    CHECK(drmSyncobjWait(fd, &so, 1, 0, 0, NULL) == 0, "syncobj wait");
    int sync_fd = -1;
    CHECK(drmSyncobjExportSyncFile(fd, so, &sync_fd) == 0 && sync_fd >= 0, "export sync file");
    uint64_t pt = 5;
    uint32_t tl = 0;
    drmSyncobjCreate(fd, 0, &tl);
    CHECK(drmSyncobjTimelineSignal(fd, &tl, &pt, 1) == 0, "timeline signal");
    uint64_t q = 0;
    CHECK(drmSyncobjQuery(fd, &tl, &q, 1) == 0 && q == 5, "timeline query");

    /* A compute job whose "control stream" is the pattern written above:
     * accepted by SUBMIT, failed on the GPU thread (malformed stream); the
     * failure must be visible on the
     * exported sync file and poll() must see it signalled. */
    struct { struct cmd_header h; struct cmd_compute c; } cb;
    memset(&cb, 0, sizeof cb);
    cb.h = (struct cmd_header){ 1, sizeof cb.c, 0, 0 };
    cb.c.base = 0x200000000ull;
    cb.c.end = 0x200000000ull + 0x100;
    uint32_t done = 0;
    drmSyncobjCreate(fd, 0, &done);
    struct asahi_sync out = { 0, done, 0 };
    struct submit sb = { (uintptr_t)&out, (uintptr_t)&cb, 0, qc.queue_id, 0, 1, sizeof cb, 0 };
    CHECK(drmIoctl(fd, ASAHI(IOW, 10, struct submit), &sb) == 0, "SUBMIT compute");
    CHECK(drmSyncobjWait(fd, &done, 1, INT64_MAX, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL) == 0, "job completes");
    int job_fd = -1;
    CHECK(drmSyncobjExportSyncFile(fd, done, &job_fd) == 0, "export job sync file");
    struct pollfd pfd = { job_fd, POLLIN, 0 };
    CHECK(poll(&pfd, 1, 1000) == 1 && (pfd.revents & POLLIN), "sync file polls signalled");
    struct sync_file_info info;
    memset(&info, 0, sizeof info);
    CHECK(ioctl(job_fd, SYNC_IOC_FILE_INFO, &info) == 0 && info.status == -EINVAL,
          "failed job reported on the sync file (status %d)", info.status);
    close(job_fd);

    CHECK(ioctl(fd, DRM_IOWR(0x3f, struct drm_version), &(struct drm_version){0}) == -1, "unknown ioctl rejected");
    /* An fd closed behind the shim's back (close_range) whose number is
     * reused by an ordinary file must not be taken for the device. */
    int stale = open("/dev/dri/renderD128", O_RDWR);
    syscall(SYS_close_range, stale, stale, 0);
    int plain = open("/proc/self/status", O_RDONLY);
    CHECK(plain == stale && drmGetVersion(plain) == NULL && errno == ENOTTY,
          "reused fd number is not the device");
    close(plain);
    close(sync_fd);
    close(dmabuf);
    close(fd2);
    close(fd);
    printf("%s\n", failures ? "FAILED" : "ALL OK");
    return failures != 0;
}
