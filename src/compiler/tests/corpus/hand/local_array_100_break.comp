#version 310 es
// agx16 GLSL corpus (hand-written): a 100-element local array updated at data-dependent indices
// in a loop left by a data-dependent break between two updates (the elements leave the loop
// through the break's phis as well as the header's), then read at two data-dependent indices;
// reference in tests/corpus/cases.rs.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In0 { int a0[]; };
layout(std430, binding = 1) writeonly buffer Out { int r[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int x = a0[i];
    uint ux = uint(x);
    int t[100];
    for (int k = 0; k < 100; k++)
        t[k] = x - 5 * k;
    for (int k = 0; k < 12; k++) {
        t[int((ux + uint(k) * 11u) % 100u)] += k + 1;
        if (((ux >> uint(k)) & 3u) == 3u)
            break;
        t[int(((ux >> 5) + uint(k) * 17u) % 100u)] ^= t[k];
    }
    r[i] = t[int(ux % 100u)] - t[int((ux >> 9) % 100u)] * 7;
}
