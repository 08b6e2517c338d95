#version 310 es
// agx16 GLSL corpus (hand-written): one bubble-sort pass over a local array indexed by the loop
// counter, the swap inside a do-while(false) (piglit unroll-do-while-false-loop-only-once);
// reference in tests/corpus/cases.rs.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In0 { int a0[]; };
layout(std430, binding = 1) writeonly buffer Out { int r[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int d[4];
    for (int k = 0; k < 4; k++)
        d[k] = (a0[i] >> (8 * k)) & 255;
    for (int k = 0; k < 3; k++) {
        bool swap = d[k] > d[k + 1];
        do {
            if (swap) {
                int t = d[k];
                d[k] = d[k + 1];
                d[k + 1] = t;
            }
        } while (false);
    }
    r[i] = d[0] + d[1] * 256 + d[2] * 65536 + d[3] * 16777216;
}
