#version 310 es
// agx16 GLSL corpus (hand-written): an if / else-if / else chain on integers
// GLSL ES 3.00 control flow inside a compute kernel; reference in tests/corpus/cases.rs.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In0 { int a0[]; };
layout(std430, binding = 1) readonly buffer In1 { int a1[]; };
layout(std430, binding = 2) writeonly buffer Out { int r[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int p = a0[i];
    int q = a1[i];
    int v;
    if (p < q) {
        v = p - q;
    } else if (p == q) {
        v = 7;
    } else {
        v = max(q, p - 1);
    }
    r[i] = v;
}
