/* 100,000 live GEM objects under RLIMIT_NOFILE = 1024: every object is
 * created, mapped, written and read back (no two share pages), descriptors
 * stay available, creation time per 10,000 objects stays flat, and closed
 * objects give back zeroed pages. Struct layouts are written from
 * include/uapi/drm/asahi_drm.h (MIT) for this test only. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <xf86drm.h>

struct gem_create { uint64_t size; uint32_t flags, vm_id, handle, pad; };
struct mmap_offset { uint32_t handle, flags; uint64_t offset; };
#define ASAHI(dir, nr, T) DRM_##dir(DRM_COMMAND_BASE + (nr), T)

static int failures;
#define CHECK(cond, ...) do { if (cond) { printf("ok   " __VA_ARGS__); printf("\n"); } \
    else { printf("FAIL " __VA_ARGS__); printf(" (errno %d)\n", errno); failures++; } } while (0)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int open_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    while (readdir(d)) n++;
    closedir(d);
    return n - 2;
}

static uint32_t create(int fd, uint64_t size)
{
    struct gem_create gc = { size, 0, 0, 0, 0 };
    return drmIoctl(fd, ASAHI(IOWR, 5, struct gem_create), &gc) == 0 ? gc.handle : 0;
}

static uint32_t *map(int fd, uint32_t handle, size_t len)
{
    struct mmap_offset mo = { handle, 0, 0 };
    if (drmIoctl(fd, ASAHI(IOWR, 6, struct mmap_offset), &mo) != 0) return MAP_FAILED;
    return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, mo.offset);
}

static int gem_close(int fd, uint32_t handle)
{
    struct drm_gem_close c = { handle, 0 };
    return drmIoctl(fd, DRM_IOCTL_GEM_CLOSE, &c);
}

int main(int argc, char **argv)
{
    int count = argc > 1 ? atoi(argv[1]) : 100000;
    const int chunk = 10000;
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = 1024;
    CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0, "RLIMIT_NOFILE lowered to 1024");
    int fd = open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC);
    CHECK(fd >= 0, "open render node");
    int fds_before = open_fds();

    uint32_t *handles = calloc(count, sizeof *handles);
    uint32_t **maps = calloc(count, sizeof *maps);
    double first = 0, worst = 0, t0 = now(), tc = t0;
    int made = 0;
    for (; made < count; made++) {
        uint32_t h = create(fd, 4096);
        if (!h) break;
        uint32_t *m = map(fd, h, 4096);
        if (m == MAP_FAILED) break;
        m[0] = 0x9e3779b9u ^ (uint32_t)made;
        m[1023] = h;
        handles[made] = h;
        maps[made] = m;
        if ((made + 1) % chunk == 0) {
            double t = now(), dt = t - tc;
            tc = t;
            if (made + 1 == chunk) first = dt;
            if (dt > worst) worst = dt;
            printf("     %d objects: %.3f s for the last %d\n", made + 1, dt, chunk);
        }
    }
    double total = now() - t0;
    CHECK(made == count, "created and mapped %d objects of %d in %.2f s", made, count, total);
    int bad = 0;
    for (int i = 0; i < made; i++)
        bad += maps[i][0] != (0x9e3779b9u ^ (uint32_t)i) || maps[i][1023] != handles[i];
    CHECK(bad == 0, "every object keeps its own contents (%d differ)", bad);
    int fds = open_fds();
    CHECK(fds >= 0 && fds - fds_before < 32, "descriptors stay constant (%d before, %d with %d objects)",
          fds_before, fds, made);
    int probe = open("/proc/self/status", O_RDONLY);
    CHECK(probe >= 0, "the process can still open files");
    if (probe >= 0) close(probe);
    /* Linear: no 10,000-object chunk much slower than the first. */
    if (made >= 2 * chunk)
        CHECK(worst <= 4 * first + 0.25, "creation time roughly linear (first chunk %.3f s, slowest %.3f s)",
              first, worst);

    /* A closed object stays readable through its mapping and does not
     * alias a new object; the new object reads zero. */
    uint32_t keep = handles[0];
    CHECK(gem_close(fd, keep) == 0, "GEM_CLOSE while mapped");
    uint32_t h2 = create(fd, 4096);
    uint32_t *m2 = h2 ? map(fd, h2, 4096) : MAP_FAILED;
    CHECK(m2 != MAP_FAILED && m2 != maps[0] && m2[0] == 0 && maps[0][0] == 0x9e3779b9u,
          "a mapping outlives its handle and is not reused");
    munmap(m2, 4096);
    gem_close(fd, h2);

    int closed = 1;
    for (int i = 0; i < made; i++) {
        munmap(maps[i], 4096);
        if (i > 0) closed += gem_close(fd, handles[i]) == 0;
    }
    CHECK(closed == made, "closed %d objects", closed);
    /* Freed pages come back zeroed. */
    int dirty = 0;
    for (int i = 0; i < chunk; i++) {
        uint32_t h = create(fd, 4096);
        uint32_t *m = h ? map(fd, h, 4096) : MAP_FAILED;
        if (m == MAP_FAILED) { dirty++; continue; }
        dirty += m[0] != 0 || m[1023] != 0;
        handles[i] = h;
        maps[i] = m;
    }
    CHECK(dirty == 0, "recycled pages read zero (%d dirty)", dirty);
    CHECK(handles[0] == 1 && handles[chunk - 1] == chunk, "handles reused lowest-first");
    for (int i = 0; i < chunk; i++) {
        munmap(maps[i], 4096);
        gem_close(fd, handles[i]);
    }
    close(fd);
    printf("%s\n", failures ? "FAILED" : "ALL OK");
    return failures != 0;
}
