#version 310 es
// agx16 GLSL corpus (hand-written): a 100-element local array filled in a loop, updated in a
// loop at data-dependent indices (every element is loop-carried: one phi per element at the
// loop header, more than the 96 registers, so the allocator keeps some of them in scratch as
// memory phis) and read at two data-dependent indices; reference in tests/corpus/cases.rs.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In0 { int a0[]; };
layout(std430, binding = 1) writeonly buffer Out { int r[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int x = a0[i];
    uint ux = uint(x);
    int t[100];
    for (int k = 0; k < 100; k++)
        t[k] = x * k + 3;
    int n = int(ux & 15u);
    for (int k = 0; k < n; k++) {
        int d = int((ux + uint(k) * 7u) % 100u);
        int s = int(((ux >> 4) + uint(k) * 13u) % 100u);
        t[d] += t[s];
    }
    r[i] = t[int(ux % 100u)] - t[int((ux >> 8) % 100u)];
}
