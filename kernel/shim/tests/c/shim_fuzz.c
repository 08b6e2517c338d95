/* Random ioctls on the shim's render node (random request words, sizes,
 * argument bytes and pointers, including unmapped ones). The process must
 * survive every call, and the device must still answer correctly after.
 * Waits are excluded: a random wait on a fence nobody signals may block,
 * as on a real kernel. argv[1] = number of ioctls. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <xf86drm.h>

static uint64_t state = 0x2545f4914f6cdd1dull;
static uint64_t rnd(void)
{
    state ^= state << 13; state ^= state >> 7; state ^= state << 17;
    return state;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    int fd = open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC);
    if (fd < 0) { perror("open"); return 2; }
    static uint8_t buf[4096];
    static const unsigned nrs[] = { 0x00, 0x09, 0x0c, 0x2d, 0x2e, 0xbf, 0xc0, 0xc1, 0xc2, 0xc4, 0xc5,
                                    0xcb, 0xcd, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48,
                                    0x49, 0x4a, 0x4b, 0x9f, 0x02, 0xff };
    long errors = 0, ok = 0;
    for (long i = 0; i < n; i++) {
        unsigned nr = nrs[rnd() % (sizeof nrs / sizeof nrs[0])];
        unsigned size = (rnd() % 4) ? (unsigned)(8 * (1 + rnd() % 8)) : (unsigned)(rnd() % 0x3fff);
        unsigned dir = (rnd() % 8) ? 3 : (unsigned)(rnd() % 4);
        unsigned long req = ((unsigned long)dir << 30) | ((unsigned long)size << 16) | ('d' << 8) | nr;
        /* Argument: random bytes whose 8-byte words are sometimes small
         * numbers (handles, counts) or pointers back into the buffer. */
        for (unsigned w = 0; w < sizeof buf / 8; w++) {
            uint64_t v;
            switch (rnd() % 5) {
            case 0: v = rnd(); break;
            case 1: v = rnd() % 8; break;
            case 2: v = (uintptr_t)(buf + (rnd() % 2048)); break;
            case 3: v = (rnd() % 4) << 14; break;
            default: v = 0;
            }
            memcpy(buf + 8 * w, &v, 8);
        }
        void *arg = (rnd() % 16) ? (void *)buf : (void *)(uintptr_t)rnd();
        if (ioctl(fd, req, arg) == 0) ok++; else errors++;
    }
    /* Still a working M4 afterwards. */
    drmVersionPtr v = drmGetVersion(fd);
    int good = v && !strcmp(v->name, "asahi");
    drmFreeVersion(v);
    uint32_t so = 0;
    good = good && drmSyncobjCreate(fd, DRM_SYNCOBJ_CREATE_SIGNALED, &so) == 0 &&
           drmSyncobjWait(fd, &so, 1, 0, 0, NULL) == 0;
    close(fd);
    printf("shim fuzz: %ld ioctls, %ld ok, %ld errors, device %s\n", n, ok, errors, good ? "OK" : "BROKEN");
    return good ? 0 : 1;
}
