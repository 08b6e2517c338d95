#version 310 es
// agx16 GLSL corpus (hand-written): a 40-element local array filled in a loop and read at two
// data-dependent indices (Mesa's indirect-deref lowering turns each read into a ladder of direct
// accesses; arrays of up to 64 elements take that path); reference in tests/corpus/cases.rs.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In0 { int a0[]; };
layout(std430, binding = 1) writeonly buffer Out { int r[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int x = a0[i];
    int t[40];
    for (int k = 0; k < 40; k++)
        t[k] = x * k + 3;
    int p = ((x >> 3) & 63) % 40;
    int q = (x & 255) % 40;
    r[i] = t[p] - 2 * t[q];
}
